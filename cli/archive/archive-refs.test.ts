import { describe, expect, it } from 'vitest';
import type { VariantView } from '../../archive/index.ts';
import { renderTable } from '../shared/text-table.ts';
import { scoreColumns } from './archive.ts';
import { csvField } from './archive-export.ts';
import { parseVariantRef } from './archive-refs.ts';
import { rankScore } from './archive-runs.ts';

describe('parseVariantRef', () => {
  it.each([
    ['run1:3', { run: 'run1', variant: 3 }],
    ['runs/a:b/run1:12', { run: 'runs/a:b/run1', variant: 12 }],
    ['run1', null],
    [':3', null],
    ['run1:', null],
    ['run1:x', null],
    ['run1:-1', null],
  ])('%j → %j', (ref, expected) => expect(parseVariantRef(ref)).toEqual(expected));
});

describe('csvField', () => {
  it.each([
    [null, ''],
    [0.5, '0.5'],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['=HYPERLINK("x")', '"\'=HYPERLINK(""x"")"'],
    ['line\nbreak', '"line\nbreak"'],
  ])('%j → %j', (value, expected) => expect(csvField(value)).toBe(expected));
});

const score = (n: number) => ({
  score: n,
  stage: 'full' as const,
  nTasks: 1,
  nTotal: 1,
  correct: 0,
  wrong: 0,
  parseFailures: 0,
  errors: 0,
});
const variant = {
  score: 0.6,
  scores: { a: { train: score(0.5), val: score(0.6) }, 'dataset:b.csv': { train: score(0.9) } },
} as unknown as VariantView;

describe('rankScore', () => {
  it.each([
    [{}, 0.6],
    [{ domain: 'a' }, 0.6],
    [{ domain: 'a', split: 'train' }, 0.5],
    [{ domain: 'dataset:b.csv' }, 0.9],
    [{ domain: 'missing' }, null],
    [{ split: 'train' }, 0.7],
    [{ split: 'val' }, null],
  ])('%j → %j', (by, expected) => {
    const got = rankScore(variant, ['a', 'dataset:b.csv'], by);
    if (expected === null) expect(got).toBeNull();
    else expect(got).toBeCloseTo(expected, 12);
  });

  it('ranks nothing for a variant without a stored score', () => {
    expect(rankScore({ ...variant, score: null }, ['a'], { domain: 'a' })).toBeNull();
  });
});

describe('scoreColumns and renderTable', () => {
  it('lists each domain and split once, sorted, and aligns the columns', () => {
    expect(scoreColumns([variant, variant])).toEqual([
      { domain: 'a', split: 'train' },
      { domain: 'a', split: 'val' },
      { domain: 'dataset:b.csv', split: 'train' },
    ]);
    expect(renderTable(['id', 'score'], [['10', '0.5']])).toBe('id  score\n--  -----\n10  0.5');
  });
});
