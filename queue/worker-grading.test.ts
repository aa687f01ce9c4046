import { describe, expect, it } from 'vitest';
import type { GradeContext } from '../domains/index.ts';
import { loadDomain } from '../domains/index.ts';
import { createWorkerGrader } from './worker-grading.ts';

/** Arithmetic runs no command: a grading context that refuses to run one. */
const noCommands: GradeContext = {
  run: async () => {
    throw new Error('no command expected');
  },
};

describe('createWorkerGrader', async () => {
  const grader = createWorkerGrader(noCommands);
  const [task] = await (await loadDomain('arithmetic')).load('val');
  if (task === undefined) throw new Error('arithmetic has no val task');
  const request = { id: task.id, domain: 'arithmetic', input: task.input };
  const reply = (answer: unknown): string => `<json>${JSON.stringify({ response: answer })}</json>`;

  it('grades an answer against its own copy of a shipped domain', async () => {
    expect(await grader.grade(request, reply(task.answer))).toMatchObject({ outcome: 'correct', score: 1 });
    expect(await grader.grade(request, 'no json here')).toMatchObject({ outcome: 'parse_failure' });
  });

  it.each([
    ['a domain it does not ship', { ...request, domain: 'dataset-of-the-coordinator' }],
    ['a task id it does not have', { ...request, id: `smoke-${task.id}` }],
    ['another input under the same id', { ...request, input: { changed: true } }],
  ])('leaves %s to the coordinator', async (_, other) => {
    expect(await grader.grade(other, reply(task.answer))).toBeNull();
  });
});
