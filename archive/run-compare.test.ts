import { describe, expect, it } from 'vitest';
import { type ComparedVariant, compareRuns } from './run-compare.ts';

const task = (outcome: string, score: number, prediction: string | null = '4') => ({
  outcome,
  score,
  prediction,
});

function variant(id: number, over: Partial<ComparedVariant> = {}): ComparedVariant {
  const split = {
    score: 0.5,
    stage: 'full' as const,
    nTasks: 2,
    nTotal: 2,
    correct: 1,
    wrong: 1,
    parseFailures: 0,
    errors: 0,
  };
  return {
    id,
    parent: id === 0 ? null : 0,
    outcome: 'evaluated',
    score: 0.5,
    scores: { arithmetic: { val: split } },
    tasks: new Map([
      ['arithmetic val t1', task('correct', 1)],
      ['arithmetic val t2', task('wrong', 0, '5')],
    ]),
    ...over,
  };
}

const names: [string, string] = ['in the bundle', 'in the re-run'];
const base = [variant(0), variant(1)];

describe('compareRuns', () => {
  it('finds nothing between a run and itself', () => {
    expect(compareRuns(base, [variant(0), variant(1)], names)).toEqual([]);
  });

  it.each<[string, ComparedVariant[], string[]]>([
    [
      'a variant more',
      [...base, variant(2)],
      ['2 variants in the bundle, 3 in the re-run', 'variant 2: only in the re-run'],
    ],
    [
      'another parent',
      [variant(0), variant(1, { parent: 1 })],
      ['variant 1: parent 0 in the bundle, 1 in the re-run'],
    ],
    [
      'another score',
      [variant(0), variant(1, { score: 0.25 })],
      ['variant 1: score 0.500 in the bundle, 0.250 in the re-run'],
    ],
    [
      'another task answer',
      [
        variant(0),
        variant(1, {
          tasks: new Map([
            ['arithmetic val t1', task('correct', 1)],
            ['arithmetic val t2', task('correct', 1, '4')],
          ]),
        }),
      ],
      [
        'variant 1: task arithmetic val t2: wrong (0.00, answer 5) in the bundle, correct (1.00, answer 4) in the re-run',
      ],
    ],
    [
      'a task missing',
      [variant(0), variant(1, { tasks: new Map([['arithmetic val t1', task('correct', 1)]]) })],
      ['variant 1: task arithmetic val t2 only in the bundle'],
    ],
  ])('names %s', (_what, other, expected) => {
    expect(compareRuns(base, other, names)).toEqual(expected);
  });
});
