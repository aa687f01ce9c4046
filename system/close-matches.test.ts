import { describe, expect, it } from 'vitest';
import { closeMatches, levenshtein } from './close-matches.ts';

describe('closeMatches', () => {
  it.each([
    ['gpt-4o', ['openai/gpt-4o']],
    ['openai/gtp-4o', ['openai/gpt-4o']],
    ['claude-sonet-4-5', ['anthropic/claude-sonnet-4-5']],
  ])('matches %s against provider/model ids', (id, expected) => {
    expect(
      closeMatches(id, ['openai/gpt-4o', 'anthropic/claude-sonnet-4-5', 'google/gemini-2.5-pro']),
    ).toEqual(expected);
  });

  it('computes edit distance', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('', 'abc')).toBe(3);
  });
});
