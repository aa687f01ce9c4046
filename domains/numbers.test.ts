import { describe, expect, it } from 'vitest';
import { numbersMatch, parseNumber } from './numbers.ts';

describe('parseNumber', () => {
  it.each<[unknown, number | null]>([
    [42, 42],
    [0, 0],
    [-7, -7],
    [2.5, 2.5],
    ['42', 42],
    ['42.0', 42],
    [' 42 ', 42],
    [' -3 ', -3],
    ['$42', 42],
    ['1,200', 1200],
    ['$1,200', 1200],
    ['1,200,000', 1200000],
    ['3.75', 3.75],
    ['12,00', null],
    ['1,2', null],
    ['42 apples', null],
    ['about 42', null],
    ['forty-two', null],
    ['1e3', null],
    ['$', null],
    ['', null],
    [Number.NaN, null],
    [Number.POSITIVE_INFINITY, null],
    [null, null],
    [undefined, null],
    [true, null],
    [[42], null],
    [{ value: 42 }, null],
  ])('%j → %j', (value, expected) => {
    expect(parseNumber(value)).toBe(expected);
  });
});

describe('numbersMatch', () => {
  it.each<[unknown, number, boolean]>([
    ['1,000', 1000, true],
    ['$5', 5, true],
    ['-$5', -5, true],
    [0.1 + 0.2, 0.3, true],
    ['5.01', 5, false],
    ['five', 5, false],
  ])('%j against %d → %j', (prediction, gold, expected) => {
    expect(numbersMatch(prediction, gold)).toBe(expected);
  });
});
