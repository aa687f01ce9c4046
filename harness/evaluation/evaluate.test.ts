import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineDomain, type Split } from '../../domains/index.ts';
import { type DomainTasks, stageSize } from './evaluate.ts';

const tasks = (split: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `${split}-${i}`, input: i, answer: i }));

const domain = (name: string, splits: Split[], sizes: Partial<Record<Split, number>>, staged: number) => ({
  domain: defineDomain({
    name,
    description: name,
    splits,
    load: () => [],
    answerSchema: z.number(),
    score: () => 0,
    stagedSamples: staged,
  }),
  splits: Object.fromEntries(Object.entries(sizes).map(([split, n]) => [split, tasks(split, n)])),
});

describe('stageSize', () => {
  // `a` ranks on val; `b` has no val, so its staged sample is taken twice from train (counted once).
  const domains: DomainTasks[] = [
    domain('a', ['train', 'val', 'test'], { train: 5, val: 3, test: 4 }, 2),
    domain('b', ['train'], { train: 7 }, 10),
  ];

  it.each([
    ['staged', false, 2 + 2 + 7],
    ['full', false, 5 + 3 + 7],
    ['full', true, 5 + 3 + 4 + 7],
  ] as const)('%s (test split: %s) holds %i tasks', (stage, evalTest, expected) => {
    expect(stageSize(domains, stage, evalTest)).toBe(expected);
  });
});
