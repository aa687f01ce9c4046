import { describe, expect, it } from 'vitest';
import { passAtK, passAtKOfTask } from './pass-at-k.ts';

const attempts = (taskId: string, outcomes: string[], split = 'val') =>
  outcomes.map((outcome) => ({ domain: 'd', split, taskId, outcome }));

describe('pass@k', () => {
  it('is the chance that one of k attempts is correct, from n kept attempts', () => {
    expect(passAtKOfTask(4, 0, 2)).toBe(0);
    expect(passAtKOfTask(4, 4, 1)).toBe(1);
    expect(passAtKOfTask(4, 1, 1)).toBeCloseTo(0.25);
    // One correct of four: 1 − C(3,2)/C(4,2) = 1 − 3/6.
    expect(passAtKOfTask(4, 1, 2)).toBeCloseTo(0.5);
    expect(passAtKOfTask(4, 1, 4)).toBe(1);
  });

  it('averages over tasks per domain and split, for splits with repeated attempts only', () => {
    const got = passAtK([
      ...attempts('a', ['correct', 'wrong', 'wrong', 'wrong']),
      ...attempts('b', ['wrong', 'wrong', 'wrong', 'wrong']),
      ...attempts('c', ['correct'], 'train'),
    ]);
    expect(got).toEqual([{ domain: 'd', split: 'val', tasks: 2, attempts: 4, passAt: { 1: 0.125, 4: 0.5 } }]);
  });
});
