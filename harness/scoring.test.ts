import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EvaluationRow } from '../archive/archive.ts';
import { defineDomain, type Split } from '../domains/define-domain.ts';
import { scoresBySplit, selectionScore } from './scoring.ts';

const domain = (name: string, splits: Split[]) =>
  defineDomain({ name, description: name, splits, load: () => [], answerSchema: z.string(), score: () => 0 });

/** `withVal` ranks on val; `trainOnly` has no val and ranks on train. */
const withVal = domain('with-val', ['train', 'val', 'test']);
const trainOnly = domain('train-only', ['train']);

const ev = (
  name: string,
  split: Split,
  stage: 'staged' | 'full',
  score: number,
  nTasks = 40,
  nTotal = 40,
): EvaluationRow => ({
  variant_id: 1,
  domain: name,
  split,
  stage,
  score,
  n_tasks: nTasks,
  n_total: nTotal,
  correct: Math.round(score * nTasks),
  wrong: nTasks - Math.round(score * nTasks),
  parse_failures: 0,
  errors: 0,
  created_at: '2025-01-01T00:00:00.000Z',
});

describe('selectionScore', () => {
  it.each([
    [
      'val is preferred over train',
      [ev('with-val', 'train', 'full', 0.9), ev('with-val', 'val', 'full', 0.4)],
      [withVal],
      0.4,
    ],
    ['train counts when the domain has no val', [ev('train-only', 'train', 'full', 0.7)], [trainOnly], 0.7],
    ['train does not stand in for a missing val', [ev('with-val', 'train', 'full', 0.9)], [withVal], null],
    ['test never counts', [ev('with-val', 'test', 'full', 1)], [withVal], null],
    [
      'full is preferred over staged',
      [ev('with-val', 'val', 'staged', 1, 10), ev('with-val', 'val', 'full', 0.5)],
      [withVal],
      0.5,
    ],
    [
      'full is preferred whatever the order',
      [ev('with-val', 'val', 'full', 0.5), ev('with-val', 'val', 'staged', 1, 10)],
      [withVal],
      0.5,
    ],
    [
      'staged is scaled by its share of the full set',
      [ev('with-val', 'val', 'staged', 0.8, 10, 40)],
      [withVal],
      0.2,
    ],
    [
      'a staged run of the whole set is not scaled',
      [ev('train-only', 'train', 'staged', 0.6, 5, 5)],
      [trainOnly],
      0.6,
    ],
    [
      'a staged run of an empty set counts zero',
      [ev('train-only', 'train', 'staged', 1, 0, 0)],
      [trainOnly],
      0,
    ],
    [
      'the mean over domains',
      [ev('with-val', 'val', 'full', 0.4), ev('train-only', 'train', 'full', 0.8)],
      [withVal, trainOnly],
      0.6,
    ],
    [
      'staged and full mix across domains',
      [ev('with-val', 'val', 'staged', 1, 10), ev('train-only', 'train', 'full', 0.5)],
      [withVal, trainOnly],
      0.375,
    ],
    ['null when one domain lacks a score', [ev('with-val', 'val', 'full', 0.4)], [withVal, trainOnly], null],
    [
      'rows of other domains are ignored',
      [ev('other', 'val', 'full', 1), ev('with-val', 'val', 'full', 0.3)],
      [withVal],
      0.3,
    ],
    ['null without domains', [ev('with-val', 'val', 'full', 0.4)], [], null],
    ['null without evaluations', [], [withVal], null],
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
