import { describe, expect, it } from 'vitest';
import { createRng } from '../../system/rng.ts';
import { loadText } from './index.ts';
import { drawRules } from './rules.ts';

describe('text puzzles', () => {
  it('apply their rules in order to reach the answer', () => {
    const rng = createRng('fixed');
    const { rules, result } = drawRules(rng, 'lantern', 4);
    expect(rules).toHaveLength(4);
    expect(rules.reduce((w, r) => r.apply(w), 'lantern')).toBe(result);
  });

  it.each([
    ['Reverse the string.', 'abc', 'cba'],
    ['Move the first character to the end.', 'abc', 'bca'],
    ['Swap the first and the last character.', 'abcd', 'dbca'],
    ['Write every vowel (a, e, i, o, u) twice.', 'tone', 'toonee'],
    ['Upper-case the characters in odd positions (the 1st, 3rd, 5th, ...).', 'abcde', 'AbCdE'],
    ['Replace every vowel with the next vowel in a, e, i, o, u (u becomes a).', 'ubi', 'abo'],
    ["Append the string's length in digits.", 'abc', 'abc3'],
  ])('"%s" turns %s into %s', (text, word, expected) => {
    for (let seed = 0; seed < 400; seed++) {
      const rule = drawRules(createRng(`r${seed}`), word, 1).rules[0]!;
      if (rule.text === text) {
        expect(rule.apply(word)).toBe(expected);
        return;
      }
    }
    throw new Error(`rule "${text}" was never drawn`);
  });

  it('give each split its own puzzles, with answers that differ from the word', () => {
    const train = loadText('train');
    const val = loadText('val');
    expect(train).toHaveLength(30);
    expect(train.filter((t) => val.some((v) => JSON.stringify(v.input) === JSON.stringify(t.input)))).toEqual(
      [],
    );
    for (const t of train) expect(t.answer).not.toBe(t.input.word);
  });
});
