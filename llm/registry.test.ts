import { describe, expect, it } from 'vitest';
import {
  batchCostUsd,
  costUsd,
  knownModelIds,
  listModels,
  type ModelRecord,
  resolveModel,
  resultCacheIdentity,
  wireModelName,
} from './registry.ts';

function model(id: string): ModelRecord {
  const resolved = resolveModel(id);
  if (!resolved.ok) throw new Error(resolved.error.message);
  return resolved.model;
}

function unknown(id: string) {
  const resolved = resolveModel(id);
  if (resolved.ok) throw new Error(`${id} resolved`);
  return resolved.error;
}

/** The models HyperAgents routes (docs/architecture.md, 'Model calls'). */
const ROUTED = [
  'openai/gpt-4o',
  'openai/gpt-4o-mini',
  'openai/o3',
  'openai/o3-mini',
  'openai/o4-mini',
  'openai/gpt-5',
  'openai/gpt-5-mini',
  'openai/gpt-5.2',
  'anthropic/claude-sonnet-4-5',
  'anthropic/claude-3-5-sonnet',
  'anthropic/claude-3-haiku',
  'google/gemini-3-pro-preview',
  'google/gemini-2.5-pro',
  'google/gemini-2.5-flash',
];
const OPENAI_REASONING = listModels().filter((m) => /^openai\/(o\d|gpt-5)/.test(m.id));
const hosted = listModels().filter((m) => !m.simulated);

describe('the model table', () => {
  it('holds every routed model and sim, each id once', () => {
    expect(knownModelIds()).toEqual(expect.arrayContaining([...ROUTED, 'sim']));
    expect(new Set(knownModelIds()).size).toBe(listModels().length);
  });

  it.each(hosted.map((m) => [m.id, m] as const))('%s: provider, wire API and limits agree', (id, m) => {
    expect(id.startsWith(`${m.provider}/`)).toBe(true);
    const api = { openai: 'openai-chat', anthropic: 'anthropic-messages', google: 'google-genai' };
    expect(m.api).toBe(api[m.provider as keyof typeof api]);
    expect(m.maxOutput).toBeLessThanOrEqual(m.contextWindow);
    expect(m.price.input).toBeGreaterThan(0);
    expect(m.price.output).toBeGreaterThan(m.price.input);
    expect(m.price.cacheRead).toBeLessThan(m.price.input);
  });

  it('sends o-series and GPT-5 models max_completion_tokens and a developer prompt, without temperature', () => {
    expect(OPENAI_REASONING.map((m) => m.id)).toEqual(
      expect.arrayContaining([
        'openai/o3',
        'openai/o3-mini',
        'openai/o4-mini',
        'openai/gpt-5',
        'openai/gpt-5.2',
      ]),
    );
    for (const m of OPENAI_REASONING)
      expect(m, m.id).toMatchObject({
        temperature: false,
        reasoning: true,
        maxTokensField: 'max_completion_tokens',
        systemRole: 'developer',
      });
    for (const id of ['openai/gpt-4o', 'openai/gpt-4o-mini'])
      expect(model(id)).toMatchObject({
        temperature: true,
        reasoning: false,
        maxTokensField: 'max_tokens',
        systemRole: 'system',
      });
  });

  it('knows how each provider caches prompts', () => {
    for (const m of hosted) {
      const caching = { openai: 'auto', anthropic: 'explicit', google: 'implicit' };
      expect(m.caching, m.id).toBe(caching[m.provider as keyof typeof caching]);
    }
  });

  it('prices Anthropic cache writes at 1.25x input and reads at 0.1x, as Anthropic lists them', () => {
    for (const m of hosted.filter((m) => m.provider === 'anthropic')) {
      expect(m.price.cacheWrite, m.id).toBeCloseTo(m.price.input * 1.25, 1);
      expect(m.price.cacheRead, m.id).toBeCloseTo(m.price.input * 0.1, 2);
    }
    expect(model('anthropic/claude-sonnet-4-5').price).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
  });

  it('charges no extra for cache writes where the provider caches on its own', () => {
    for (const m of hosted.filter((m) => m.provider !== 'anthropic'))
      expect(m.price.cacheWrite, m.id).toBe(m.price.input);
  });

  it('caps claude-3-haiku at 4096 output tokens and names the dated Claude 3 snapshots', () => {
    expect(model('anthropic/claude-3-haiku')).toMatchObject({ maxOutput: 4096, contextWindow: 200_000 });
    expect(wireModelName(model('anthropic/claude-3-haiku'))).toBe('claude-3-haiku-20240307');
    expect(wireModelName(model('anthropic/claude-3-5-sonnet'))).toBe('claude-3-5-sonnet-20241022');
    expect(wireModelName(model('openai/gpt-5.2'))).toBe('gpt-5.2');
    expect(wireModelName(model('google/gemini-2.5-pro'))).toBe('gemini-2.5-pro');
  });

  it('points each superseded model at a newer one of the same provider, which itself is current', () => {
    const withSuccessor = listModels().filter((m) => m.successor !== undefined);
    expect(withSuccessor.map((m) => m.id)).toEqual(
      expect.arrayContaining(['anthropic/claude-3-haiku', 'anthropic/claude-3-5-sonnet', 'openai/o3']),
    );
    for (const m of withSuccessor) {
      const next = model(m.successor!);
      expect(next.provider, m.id).toBe(m.provider);
      expect(next.successor, `${m.id} -> ${next.id}`).toBeUndefined();
    }
  });

  it('lists the reasoning efforts a model takes only among the known ones, on reasoning models', () => {
    for (const m of listModels().filter((m) => m.reasoningEfforts !== undefined)) {
      expect(m.reasoning, m.id).toBe(true);
      expect(m.reasoningEfforts!.length).toBeGreaterThan(0);
    }
    expect(model('openai/o3').reasoningEfforts).not.toContain('minimal');
  });
});

describe('resolveModel', () => {
  it('resolves sim', () => {
    expect(resolveModel('sim')).toMatchObject({
      ok: true,
      model: { id: 'sim', simulated: true, nativeTools: true },
    });
  });

  it('builds a free record for a model on a local server, with the <json> text protocol for tools', () => {
    expect(model('local/qwen2.5-coder')).toEqual({
      id: 'local/qwen2.5-coder',
      provider: 'local',
      api: 'openai-chat',
      contextWindow: 32_768,
      maxOutput: 8192,
      price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      nativeTools: false,
      temperature: true,
      reasoning: false,
      simulated: false,
      maxTokensField: 'max_tokens',
      systemRole: 'system',
      caching: 'none',
    });
    expect(wireModelName(model('local/hf.co/bartowski/Qwen2.5-7B:Q4_K_M'))).toBe(
      'hf.co/bartowski/Qwen2.5-7B:Q4_K_M',
    );
    expect(
      costUsd(model('local/llama3'), {
        input: 10 ** 6,
        output: 10 ** 6,
        cacheRead: 0,
        cacheWrite: 0,
        reasoning: 0,
      }),
    ).toBe(0);
  });

  it('takes the limits, tool support and address of a local server', () => {
    const m = resolveModel('local/llama3.1:8b', {
      contextWindow: 4096,
      nativeTools: true,
      baseUrl: 'http://127.0.0.1:8080/v1',
    });
    expect(m).toMatchObject({
      ok: true,
      model: { contextWindow: 4096, maxOutput: 4096, nativeTools: true, baseUrl: 'http://127.0.0.1:8080/v1' },
    });
    expect(resolveModel('local/x', { maxOutput: 1000 })).toMatchObject({ model: { maxOutput: 1000 } });
    expect(() => resolveModel('local/x', { contextWindow: 0 })).toThrow(
      /contextWindow .* positive whole number/,
    );
  });

  it('ignores local options for hosted models, whose limits are the table’s', () => {
    expect(resolveModel('openai/gpt-4o', { contextWindow: 10 })).toMatchObject({
      model: { contextWindow: 128_000 },
    });
  });

  it.each(['local/', 'local/  '])('refuses "%s", which names no model, saying what to write', (id) => {
    const error = unknown(id);
    expect(error.type).toBe('unknown_model');
    expect(error.message).toMatch(/local\/<name>/);
    expect(error.message).toMatch(/ollama list/);
  });

  it('names close matches, every known id, local/<name> and hyperagents models for an unknown id', () => {
    const error = unknown('sym');
    expect(error.type).toBe('unknown_model');
    expect(error.suggestions).toEqual(['sim']);
    expect(error.message).toMatch(
      /^Unknown model "sym"\. Did you mean sim\? Known models: sim, openai\/gpt-4o, /,
    );
    expect(error.message).toContain('google/gemini-2.5-flash-lite.');
    expect(error.message).toContain('local/<name>');
    expect(error.message).toContain('hyperagents models');
    expect(unknown('openai/gpt-9000').suggestions).toEqual([]);
  });

  it.each([
    ['gpt-4o', ['openai/gpt-4o']],
    ['GPT-5.2', ['openai/gpt-5.2']],
    ['claude-3-haiku-20240307', ['anthropic/claude-3-haiku']],
    ['anthropic/claude-3-5-sonnet-20241022', ['anthropic/claude-3-5-sonnet']],
    ['gemini-2.5-pro', ['google/gemini-2.5-pro']],
    ['ollama/qwen2.5-coder:7b', ['local/qwen2.5-coder:7b']],
    ['vllm/meta-llama/Llama-3.1-8B', ['local/meta-llama/Llama-3.1-8B']],
    ['anthropic/claude-haku-4-5', ['anthropic/claude-haiku-4-5']],
  ])('does not take "%s" for another id, but suggests %j', (id, suggestions) => {
    const error = unknown(id);
    expect(error.suggestions).toEqual(suggestions);
    expect(error.message).toContain(`Did you mean ${suggestions[0]}?`);
  });
});

describe('costUsd', () => {
  it('prices the four token kinds per million at the model’s prices', () => {
    const usage = {
      input: 1_000_000,
      output: 100_000,
      cacheRead: 2_000_000,
      cacheWrite: 0,
      reasoning: 50_000,
    };
    expect(costUsd(model('anthropic/claude-sonnet-4-5'), usage)).toBeCloseTo(3 + 1.5 + 0.6, 10);
    const writes = { input: 0, output: 0, cacheRead: 0, cacheWrite: 1_000_000, reasoning: 0 };
    expect(costUsd(model('anthropic/claude-sonnet-4-5'), writes)).toBeCloseTo(3.75, 10);
    expect(costUsd(model('openai/gpt-4o-mini'), { ...usage, cacheRead: 1_000_000 })).toBeCloseTo(
      0.15 + 0.06 + 0.075,
      10,
    );
  });
});

describe('batchCostUsd', () => {
  it('takes the provider’s batch discount off the listed price, and prices no batch where there is none', () => {
    const usage = { input: 1_000_000, output: 100_000, cacheRead: 1_000_000, cacheWrite: 0, reasoning: 0 };
    const listed = costUsd(model('anthropic/claude-sonnet-4-5'), usage);
    expect(batchCostUsd(model('anthropic/claude-sonnet-4-5'), usage)).toBeCloseTo(listed / 2, 10);
    // The sim's batch endpoint imitates the providers' half price.
    expect(batchCostUsd(model('sim'), usage)).toBeCloseTo(costUsd(model('sim'), usage) / 2, 10);
    expect(batchCostUsd(model('local/qwen2.5-coder:7b'), usage)).toBeUndefined();
  });
});

describe('resultCacheIdentity', () => {
  it('names the sim with its revision, so results of an older sim are not reused', () => {
    expect(resultCacheIdentity('sim')).toBe('sim@3');
    expect(resultCacheIdentity('local/unknown')).toBe('local/unknown');
    expect(resultCacheIdentity('openai/gpt-4o')).toBe('openai/gpt-4o');
  });
});
