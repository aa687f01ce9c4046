import { describe, expect, it } from 'vitest';
import type { CallContext, Message, ToolSpec } from '../../llm/index.ts';
import { anthropic, providerSettings, resolveModel } from '../../llm/index.ts';
import { createAnthropicProvider } from '../../llm/providers/anthropic.ts';

/** The real Anthropic API (or ANTHROPIC_BASE_URL), with the cheapest current Claude; a few cents at most. */
const MODEL_ID = 'anthropic/claude-haiku-4-5';
const CTX: CallContext = { runId: 'live', variantId: null, role: 'task' };

const WEATHER: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function liveProvider() {
  const resolved = resolveModel(MODEL_ID);
  if (!resolved.ok) throw new Error(resolved.error.message);
  const settings = providerSettings(resolved.model, process.env);
  if (!settings.ok) throw new Error(settings.message);
  return createAnthropicProvider(resolved.model, settings.options, anthropic);
}

describe.skipIf(!process.env.ANTHROPIC_API_KEY)('Anthropic live API (needs ANTHROPIC_API_KEY)', () => {
  it('answers a short prompt with text and usage', async () => {
    const result = await liveProvider().complete(
      { messages: [{ role: 'user', content: 'Reply with the single word: pong' }], maxTokens: 20 },
      CTX,
    );
    if (!result.ok) throw new Error(result.error.message);
    expect(result.response.message.content.toLowerCase()).toContain('pong');
    expect(result.response.stopReason).toBe('end');
    expect(result.response.usage.input).toBeGreaterThan(0);
    expect(result.response.usage.output).toBeGreaterThan(0);
  });

  it('calls a tool, then answers from its result', async () => {
    const provider = liveProvider();
    const messages: Message[] = [
      { role: 'system', content: 'Use the tools you are given; do not guess.' },
      { role: 'user', content: 'What is the weather in Paris right now?' },
    ];
    const first = await provider.complete({ messages, tools: [WEATHER], maxTokens: 300 }, CTX);
    if (!first.ok) throw new Error(first.error.message);
    expect(first.response.stopReason).toBe('tool_use');
    const call = first.response.message.toolCalls?.[0];
    expect(call?.name).toBe('get_weather');
    expect(String(call?.input.city)).toMatch(/paris/i);

    const second = await provider.complete(
      {
        messages: [
          ...messages,
          { role: 'assistant', ...first.response.message },
          { role: 'tool', toolCallId: call!.id, name: 'get_weather', content: 'Sunny, 21 °C' },
        ],
        tools: [WEATHER],
        maxTokens: 300,
      },
      CTX,
    );
    if (!second.ok) throw new Error(second.error.message);
    expect(second.response.message.content).toMatch(/21/);
  });
});
