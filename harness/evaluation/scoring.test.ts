import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EvaluationRow } from '../../archive/index.ts';
import { defineDomain, type Split } from '../../domains/index.ts';
import { scoresBySplit, selectionScore } from './scoring.ts';

const domain = (name: string, splits: Split[]) =>
  defineDomain({ name, description: name, splits, load: () => [], answerSchema: z.string(), score: () => 0 });

/** `a` ranks on val; `b` has no val and ranks on train. */
const a = domain('a', ['train', 'val', 'test']);
const b = domain('b', ['train']);

const ev = (
  name: string,
  split: Split,
  stage: 'staged' | 'full',
  score: number,
  nTasks = 40,
  nTotal = 40,
): EvaluationRow => ({
  variantId: 1,
  domain: name,
  split,
  stage,
  score,
  nTasks: nTasks,
  nTotal: nTotal,
  correct: Math.round(score * nTasks),
  wrong: nTasks - Math.round(score * nTasks),
  parseFailures: 0,
  errors: 0,
  createdAt: '2025-01-01T00:00:00.000Z',
});

describe('selectionScore', () => {
  it.each([
    ['val is preferred over train', [ev('a', 'train', 'full', 0.9), ev('a', 'val', 'full', 0.4)], [a], 0.4],
    ['train counts when the domain has no val', [ev('b', 'train', 'full', 0.7)], [b], 0.7],
    ['train does not stand in for a missing val', [ev('a', 'train', 'full', 0.9)], [a], null],
    ['test never counts', [ev('a', 'test', 'full', 1)], [a], null],
    ['full over staged', [ev('a', 'val', 'staged', 1, 10), ev('a', 'val', 'full', 0.5)], [a], 0.5],
    ['full over staged, any order', [ev('a', 'val', 'full', 0.5), ev('a', 'val', 'staged', 1, 10)], [a], 0.5],
    ['staged is scaled by its share of the full set', [ev('a', 'val', 'staged', 0.8, 10, 40)], [a], 0.2],
    ['a staged run of the whole set is not scaled', [ev('b', 'train', 'staged', 0.6, 5, 5)], [b], 0.6],
    ['a staged run of an empty set counts zero', [ev('b', 'train', 'staged', 1, 0, 0)], [b], 0],
    ['the mean over domains', [ev('a', 'val', 'full', 0.4), ev('b', 'train', 'full', 0.8)], [a, b], 0.6],
    ['staged and full mix', [ev('a', 'val', 'staged', 1, 10), ev('b', 'train', 'full', 0.5)], [a, b], 0.375],
    ['null when one domain lacks a score', [ev('a', 'val', 'full', 0.4)], [a, b], null],
    ['other domains ignored', [ev('other', 'val', 'full', 1), ev('a', 'val', 'full', 0.3)], [a], 0.3],
    ['null without domains', [ev('a', 'val', 'full', 0.4)], [], null],
    ['null without evaluations', [], [a], null],
  ])('%s', (_name, evaluations, domains, expected) => {
    const score = selectionScore(evaluations, domains);
    if (expected === null) expect(score).toBeNull();
    else expect(score).toBeCloseTo(expected, 12);
  });
});

describe('scoresBySplit', () => {
  it.each([
    ['nothing', [], {}],
    ['one full evaluation', [ev('a', 'train', 'full', 0.5)], { a: { train: 0.5 } }],
    ['staged when there is no full', [ev('a', 'val', 'staged', 0.8, 10)], { a: { val: 0.8 } }],
    [
      'full over staged',
      [ev('a', 'val', 'staged', 0.8, 10), ev('a', 'val', 'full', 0.6)],
      { a: { val: 0.6 } },
    ],
    [
      'full over staged in any order',
      [ev('a', 'val', 'full', 0.6), ev('a', 'val', 'staged', 0.8, 10)],
      { a: { val: 0.6 } },
    ],
    ['staged scores are not scaled', [ev('a', 'train', 'staged', 1, 10, 40)], { a: { train: 1 } }],
    [
      'splits and domains apart',
      [
        ev('a', 'train', 'full', 0.1),
        ev('a', 'val', 'staged', 0.2, 10),
        ev('a', 'test', 'full', 0.3),
        ev('b', 'train', 'full', 0.4),
      ],
      { a: { train: 0.1, val: 0.2, test: 0.3 }, b: { train: 0.4 } },
    ],
  ])('%s', (_name, evaluations, expected) => {
    expect(scoresBySplit(evaluations)).toEqual(expected);
  });
});
