import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adaptRequest, DEFAULT_MAX_TOKENS } from './adapt.ts';
import { listModels, type ModelRecord, resolveModel } from './registry.ts';
import type { ChatRequest, ReasoningEffort, ToolSpec } from './types.ts';

function model(id: string): ModelRecord {
  const resolved = resolveModel(id);
  if (!resolved.ok) throw new Error(resolved.error.message);
  return resolved.model;
}

const user: ChatRequest['messages'] = [{ role: 'user', content: 'What is 2 + 2?' }];
const withSystem: ChatRequest['messages'] = [{ role: 'system', content: 'Answer briefly.' }, ...user];
const tool = { name: 'bash', description: 'Run a shell command', inputSchema: { type: 'object' } };

describe('adaptRequest', () => {
  it('passes a request a model fully takes through unchanged, with no notes', () => {
    const req: ChatRequest = { messages: withSystem, temperature: 0.2, maxTokens: 1000, tools: [tool] };
    expect(adaptRequest(model('openai/gpt-4o'), req)).toEqual({
      model: model('openai/gpt-4o'),
      messages: withSystem,
      tools: [tool],
      temperature: 0.2,
      maxTokens: 1000,
      adapted: [],
    });
  });

  it.each(['openai/o3', 'openai/o4-mini', 'openai/gpt-5', 'openai/gpt-5.2'])(
    'drops temperature on %s and says so',
    (id) => {
      const out = adaptRequest(model(id), { messages: user, temperature: 0 });
      expect(out.temperature).toBeUndefined();
      expect(out.adapted).toContain(`temperature dropped: ${id} does not accept it`);
    },
  );

  it.each(['openai/gpt-4o', 'anthropic/claude-3-5-sonnet', 'local/qwen2.5-coder'])(
    'drops a reasoning effort on %s, which does not reason',
    (id) => {
      const out = adaptRequest(model(id), { messages: user, reasoning: 'high' });
      expect(out.reasoning).toBeUndefined();
      expect(out.adapted).toContain(`reasoning dropped: ${id} is not a reasoning model`);
    },
  );

  it.each([
    ['openai/gpt-5', 'minimal', 'minimal', undefined],
    ['openai/o3', 'high', 'high', undefined],
    ['openai/o3', 'minimal', 'low', 'reasoning minimal sent as low: openai/o3 takes low, medium, high'],
    [
      'openai/gpt-5.2',
      'minimal',
      'low',
      'reasoning minimal sent as low: openai/gpt-5.2 takes low, medium, high',
    ],
    [
      'google/gemini-3-pro-preview',
      'medium',
      'high',
      'reasoning medium sent as high: google/gemini-3-pro-preview takes low, high',
    ],
    ['google/gemini-2.5-flash', 'minimal', 'minimal', undefined],
  ] as const)('sends %s effort %s as %s', (id, asked, sent, note) => {
    const out = adaptRequest(model(id), { messages: user, reasoning: asked as ReasoningEffort });
    expect(out.reasoning).toBe(sent);
    expect(out.adapted.filter((n) => n.startsWith('reasoning'))).toEqual(note ? [note] : []);
  });

  it('clamps maxTokens to claude-3-haiku’s 4096 output tokens and says so', () => {
    const out = adaptRequest(model('anthropic/claude-3-haiku'), { messages: user, maxTokens: 8000 });
    expect(out.maxTokens).toBe(4096);
    expect(out.adapted).toEqual([
      "maxTokens clamped from 8000 to 4096, anthropic/claude-3-haiku's output limit",
    ]);
  });

  it('caps an unset maxTokens at the default or the model’s limit, whichever is lower, silently', () => {
    expect(adaptRequest(model('openai/gpt-4o'), { messages: user })).toMatchObject({
      maxTokens: DEFAULT_MAX_TOKENS,
      adapted: [],
    });
    expect(adaptRequest(model('anthropic/claude-3-haiku'), { messages: user })).toMatchObject({
      maxTokens: 4096,
      adapted: [],
    });
  });

  it('notes the OpenAI chat renames for reasoning models: max_completion_tokens and the developer role', () => {
    expect(adaptRequest(model('openai/gpt-5'), { messages: withSystem }).adapted).toEqual([
      'maxTokens sent as max_completion_tokens',
      'system prompt sent with role developer',
    ]);
    expect(adaptRequest(model('openai/o3-mini'), { messages: user }).adapted).toEqual([
      'maxTokens sent as max_completion_tokens',
    ]);
    expect(adaptRequest(model('anthropic/claude-sonnet-4-5'), { messages: withSystem }).adapted).toEqual([]);
  });

  it('drops tools for a model without native tool calling, pointing at the text protocol', () => {
    const out = adaptRequest(model('local/qwen2.5-coder'), { messages: user, tools: [tool] });
    expect(out.tools).toBeUndefined();
    expect(out.adapted).toEqual([
      'tools dropped: local/qwen2.5-coder has no native tool calling (agents use the <json> text protocol for it)',
    ]);
    const native = resolveModel('local/qwen2.5-coder', { nativeTools: true });
    if (!native.ok) throw new Error(native.error.message);
    expect(adaptRequest(native.model, { messages: user, tools: [tool] }).tools).toEqual([tool]);
  });

  it('keeps Anthropic temperatures within 0..1, and drops the temperature while Claude thinks', () => {
    const clamped = adaptRequest(model('anthropic/claude-3-haiku'), { messages: user, temperature: 1.5 });
    expect(clamped.temperature).toBe(1);
    expect(clamped.adapted).toEqual([
      "temperature clamped from 1.5 to 1, anthropic/claude-3-haiku's maximum",
    ]);
    expect(
      adaptRequest(model('google/gemini-2.5-pro'), { messages: user, temperature: 1.5 }).temperature,
    ).toBe(1.5);
    const thinking = adaptRequest(model('anthropic/claude-sonnet-4-5'), {
      messages: user,
      temperature: 0.3,
      reasoning: 'medium',
    });
    expect(thinking).toMatchObject({
      reasoning: 'medium',
      adapted: [expect.stringMatching(/^temperature dropped/)],
    });
    expect(thinking.temperature).toBeUndefined();
  });

  it('drops reasoning on Claude when maxTokens leaves no room for the smallest thinking budget', () => {
    const out = adaptRequest(model('anthropic/claude-sonnet-4-5'), {
      messages: user,
      maxTokens: 1024,
      reasoning: 'low',
      temperature: 0.3,
    });
    expect(out.reasoning).toBeUndefined();
    expect(out.temperature).toBe(0.3);
    expect(out.adapted).toEqual([
      'reasoning dropped: anthropic/claude-sonnet-4-5 thinks with a budget of at least 1024 tokens below maxTokens, and maxTokens is 1024',
    ]);
  });

  it('does not change the request it is given', () => {
    const req: ChatRequest = {
      messages: withSystem,
      temperature: 1.8,
      maxTokens: 99_999,
      reasoning: 'minimal',
    };
    const copy = structuredClone(req);
    adaptRequest(model('anthropic/claude-3-haiku'), req);
    adaptRequest(model('openai/o3'), req);
    expect(req).toEqual(copy);
  });

  it('for every model and request: sends only what the model takes, within its limits, noting each change', () => {
    const models = [...listModels(), model('local/llama3')];
    const request = fc.record(
      {
        temperature: fc.double({ min: 0, max: 2, noNaN: true }),
        maxTokens: fc.integer({ min: 1, max: 300_000 }),
        reasoning: fc.constantFrom<ReasoningEffort>('minimal', 'low', 'medium', 'high'),
        tools: fc.constant<ToolSpec[]>([tool]),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.constantFrom(...models), request, (m, partial) => {
        const out = adaptRequest(m, { messages: withSystem, ...partial });
        expect(out.maxTokens).toBeLessThanOrEqual(m.maxOutput);
        expect(out.maxTokens).toBe(Math.min(partial.maxTokens ?? DEFAULT_MAX_TOKENS, m.maxOutput));
        if (out.temperature !== undefined) expect(m.temperature).toBe(true);
        if (out.reasoning !== undefined) {
          expect(m.reasoning).toBe(true);
          if (m.reasoningEfforts) expect(m.reasoningEfforts).toContain(out.reasoning);
        }
        if (out.tools !== undefined) expect(m.nativeTools).toBe(true);
        const changed =
          (partial.temperature !== undefined && out.temperature !== partial.temperature) ||
          (partial.reasoning !== undefined && out.reasoning !== partial.reasoning) ||
          (partial.tools !== undefined && out.tools === undefined) ||
          (partial.maxTokens !== undefined && out.maxTokens !== partial.maxTokens);
        const wireNotes = out.adapted.filter(
          (n) => n.includes(' sent as max_completion_tokens') || n.includes('role developer'),
        );
        if (changed) expect(out.adapted.length).toBeGreaterThan(wireNotes.length);
        else expect(out.adapted).toEqual(wireNotes);
      }),
    );
  });
});
