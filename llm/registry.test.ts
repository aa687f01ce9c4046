import { describe, expect, it } from 'vitest';
import { closeMatches, costUsd, levenshtein, resolveModel, resultCacheIdentity } from './registry.ts';

describe('registry', () => {
  it('resolves sim', () => {
    expect(resolveModel('sim')).toMatchObject({
      ok: true,
      model: { id: 'sim', simulated: true, nativeTools: true },
    });
  });

  it('names close matches and every known id for an unknown model', () => {
    const result = resolveModel('sym');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.type).toBe('unknown_model');
    expect(result.error.suggestions).toEqual(['sim']);
    expect(result.error.message).toBe('Unknown model "sym". Did you mean sim? Known models: sim.');
    expect(resolveModel('openai/gpt-9000')).toMatchObject({ ok: false, error: { suggestions: [] } });
  });

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

  it('prices the four token kinds per million', () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    const usage = {
      input: 1_000_000,
      output: 100_000,
      cacheRead: 2_000_000,
      cacheWrite: 0,
      reasoning: 50_000,
    };
    expect(costUsd({ price }, usage)).toBeCloseTo(3 + 1.5 + 0.6, 10);
  });
});

describe('resultCacheIdentity', () => {
  it('names the sim with its revision, so results of an older sim are not reused', () => {
    expect(resultCacheIdentity('sim')).toBe('sim@1');
    expect(resultCacheIdentity('local/unknown')).toBe('local/unknown');
  });
});
