import { describe, expect, it } from 'vitest';
import { DEFAULT_MODELS, defaultModel } from '../cli/models/default-model.ts';
import { resolveModel } from '../llm/index.ts';

describe('the model a run uses without --model', () => {
  it('is the first provider whose key is set: Anthropic, then OpenAI, then Google', () => {
    const all = { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', GEMINI_API_KEY: 'g' };
    expect(defaultModel(all)).toEqual({ model: 'anthropic/claude-sonnet-4-6', key: 'ANTHROPIC_API_KEY' });
    expect(defaultModel({ OPENAI_API_KEY: 'o', GEMINI_API_KEY: 'g' }).model).toBe('openai/gpt-5-mini');
    expect(defaultModel({ GEMINI_API_KEY: 'g' }).model).toBe('google/gemini-2.5-flash');
  });

  it('is the simulated model when no key is set (empty counts as unset)', () => {
    expect(defaultModel({})).toEqual({ model: 'sim' });
    expect(defaultModel({ ANTHROPIC_API_KEY: '' })).toEqual({ model: 'sim' });
  });

  it('names only models the registry knows', () => {
    for (const { model } of DEFAULT_MODELS) expect(resolveModel(model).ok, model).toBe(true);
  });
});
