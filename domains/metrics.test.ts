import { describe, expect, it } from 'vitest';
import { choiceScore, chosenLabel, exactScore, f1Score, numericScore } from './metrics.ts';

describe('exactScore', () => {
  it.each<[string, string, number]>([
    ['Paris', 'paris', 1],
    ['  New   York ', 'new york', 1],
    ['Paris.', 'Paris', 0],
    ['Lyon', 'Paris', 0],
  ])('%j against %j → %d', (p, g, s) => expect(exactScore(p, g)).toBe(s));
});

describe('numericScore', () => {
  it.each<[string | number, number, number]>([
    ['1,000', 1000, 1],
    ['$5', 5, 1],
    [5.0000001, 5, 1],
    ['5.1', 5, 0],
    ['about 5', 5, 0],
  ])('%j against %d → %d', (p, g, s) => expect(numericScore(p, g, 1e-6)).toBe(s));
});

describe('chosenLabel and choiceScore', () => {
  const labels = ['A', 'B', 'C', 'D'];
  it.each<[string, string | null]>([
    ['B', 'B'],
    ['(b)', 'B'],
    ['B.', 'B'],
    ['B) Paris', 'B'],
    ['Answer: C', 'C'],
    ['E', null],
    ['Because', null],
  ])('%j names %j', (p, label) => expect(chosenLabel(p, labels)).toBe(label));

  it('scores the named label against the gold one', () => {
    expect(choiceScore('(c)', 'C', labels)).toBe(1);
    expect(choiceScore('D', 'C', labels)).toBe(0);
  });
});

describe('f1Score', () => {
  it.each<[string, string[], number]>([
    ['the Eiffel Tower', ['Eiffel Tower'], 1],
    ['Eiffel', ['Eiffel Tower'], 2 / 3],
    ['Louvre', ['Eiffel Tower'], 0],
    ['tower', ['the Eiffel Tower', 'tower'], 1],
    ['', [''], 1],
  ])('%j against %j → %d', (p, accepted, s) => expect(f1Score(p, accepted)).toBeCloseTo(s, 9));
});
