import { describe, expect, it } from 'vitest';
import { matchAnswerIds } from './answer-ids.ts';

const TASKS = ['javascript/leap', 'javascript/bob', 'python/leap', 'python/bowling'];

describe('matchAnswerIds', () => {
  it.each([
    [['javascript/leap', 'javascript/bob', 'python/leap', 'python/bowling'], 0],
    [['javascript/leap'], 3],
    [[], 4],
  ])('counts the tasks %j leaves without an answer', (answers, unanswered) => {
    expect(matchAnswerIds(answers, TASKS)).toEqual({ kind: 'matched', unanswered });
  });

  it('refuses ids that match no task, naming them, showing task ids and the one a short id meant', () => {
    const match = matchAnswerIds(['leap', 'bowling'], TASKS);
    expect(match.kind).toBe('refused');
    const message = match.kind === 'refused' ? match.message : '';
    expect(message).toContain('none of its 2 ids is the id of a task: leap, bowling');
    expect(message).toContain('look like javascript/leap, javascript/bob, python/leap (4 in all)');
    expect(message).toContain('Did you mean javascript/leap for leap, python/bowling for bowling?');
  });

  it('refuses a file where only some ids match, and counts the rest past five', () => {
    const odd = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const match = matchAnswerIds(['python/leap', ...odd], TASKS);
    expect(match).toEqual({
      kind: 'refused',
      message: expect.stringContaining('7 of its 8 ids are the id of no task: a, b, c, d, e and 2 more.'),
    });
    expect(match.kind === 'refused' && match.message).not.toContain('Did you mean');
  });
});
