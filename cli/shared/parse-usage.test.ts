import { describe, expect, it } from 'vitest';
import { blankNumberOption, repeatedOption } from './parse-usage.ts';

describe('repeatedOption', () => {
  it.each([
    [{ _: [], out: 'a' }, [], null],
    [{ _: [], out: ['a', 'b'] }, [], { name: 'out', values: ['a', 'b'] }],
    [{ _: [], domains: ['a', 'b'] }, ['domains'], null],
    [
      { _: [], 'eval-workers': [1, 2], evalWorkers: [1, 2] },
      [],
      { name: 'eval-workers', values: ['1', '2'] },
    ],
  ])('%j (arrays %j) → %j', (parsed, arrays, expected) => {
    expect(repeatedOption(parsed, arrays)).toEqual(expected);
  });
});

describe('blankNumberOption', () => {
  it.each([
    [['--generations', ''], 'generations'],
    [['--generations='], 'generations'],
    [['--generations', '3'], null],
    [['--', '--generations', ''], null],
  ])('%j → %s', (argv, expected) => {
    expect(blankNumberOption(argv, ['generations'])).toBe(expected);
  });
});
