import { describe, expect, it } from 'vitest';
import { defaultModel } from '../cli/models/default-model.ts';
import { registeredProviders, resolveModel } from '../llm/index.ts';

describe('the model a run uses without --model', () => {
  it('is the first provider whose key is set: Anthropic, then OpenAI, then Google', () => {
    const all = { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', GEMINI_API_KEY: 'g' };
    expect(defaultModel(all)).toEqual({ model: 'anthropic/claude-sonnet-4-6', key: 'ANTHROPIC_API_KEY' });
    expect(defaultModel({ OPENAI_API_KEY: 'o', GEMINI_API_KEY: 'g' }).model).toBe('openai/gpt-5-mini');
    expect(defaultModel({ GEMINI_API_KEY: 'g' }).model).toBe('google/gemini-2.5-flash');
  });

  it("names the variable that chose it, Google's second name for its key included", () => {
    expect(defaultModel({ GOOGLE_API_KEY: 'g' })).toEqual({
      model: 'google/gemini-2.5-flash',
      key: 'GOOGLE_API_KEY',
    });
  });

  it('is the simulated model when no key is set (empty counts as unset)', () => {
    expect(defaultModel({})).toEqual({ model: 'sim' });
    expect(defaultModel({ ANTHROPIC_API_KEY: '' })).toEqual({ model: 'sim' });
    expect(defaultModel({ ANTHROPIC_API_KEY: '  ' })).toEqual({ model: 'sim' });
  });

  it('names only models the registry knows', () => {
    const defaults = registeredProviders().flatMap((p) => (p.defaultModel ? [p.defaultModel.id] : []));
    expect(defaults).toHaveLength(3);
    for (const model of defaults) expect(resolveModel(model).ok, model).toBe(true);
  });
});
