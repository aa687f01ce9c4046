import { describe, expect, it } from 'vitest';
import { UsageError } from '../shared/usage-error.ts';
import { parseConfig } from './experiment-args.ts';
import { attemptArgs, attemptSeed, baselineOf } from './experiment-baseline.ts';

describe('baselineOf', () => {
  it.each([
    ['full=', null],
    ['frozen=--freeze-meta', null],
    ['baseline=best-of-k', 'best-of-k'],
    ['bok= best-of-k ', 'best-of-k'],
  ])('%s → %s', (text, expected) => {
    expect(baselineOf(parseConfig(text))).toBe(expected);
  });

  it.each([['b=best-of-x'], ['b=best-of-k --freeze-meta'], ['b=parallel']])(
    'refuses %s, naming the known baselines',
    (text) => {
      expect(() => parseConfig(text)).toThrow(UsageError);
      expect(() => parseConfig(text)).toThrow(/Known baselines: best-of-k/);
    },
  );
});

describe('attempts', () => {
  it.each([
    [
      ['--domains', 'arithmetic', '--generations', '30'],
      ['--domains', 'arithmetic'],
    ],
    [
      ['--generations=30', '--parallel', '2', '--eval-test', '--model', 'sim'],
      ['--model', 'sim'],
    ],
  ])('%j → evaluates variant 0 only, with the test split', (loop, kept) => {
    expect(attemptArgs(loop)).toEqual([...kept, '--generations', '0', '--eval-test']);
  });

  it('gives the first attempt the run seed and each later one its own', () => {
    expect(attemptSeed(3, 1)).toBe(3);
    expect(new Set([1, 2, 3, 4].map((n) => attemptSeed(3, n))).size).toBe(4);
  });
});
