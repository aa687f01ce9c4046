import { describe, expect, it } from 'vitest';
import type { CallContext, Message, ToolSpec } from '../../llm/index.ts';
import { google, providerSettings, resolveModel } from '../../llm/index.ts';
import { createGoogleProvider } from '../../llm/providers/google.ts';

/**
 * The real Gemini API (or GOOGLE_GEMINI_BASE_URL), with a cheap current model; a fraction of a cent.
 * GEMINI_LIVE_MODEL picks another, e.g. `google/gemini-3-pro-preview` to check thought signatures.
 */
const MODEL_ID = process.env.GEMINI_LIVE_MODEL ?? 'google/gemini-2.5-flash';
const CTX: CallContext = { runId: 'live', variantId: null, role: 'task' };

const WEATHER: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function liveProvider(stream = false) {
  const resolved = resolveModel(MODEL_ID);
  if (!resolved.ok) throw new Error(resolved.error.message);
  const settings = providerSettings(resolved.model, process.env);
  if (!settings.ok) throw new Error(settings.message);
  return createGoogleProvider(resolved.model, { ...settings.options, stream }, google);
}

describe.skipIf(!process.env.GEMINI_API_KEY)('Google Gemini live API (needs GEMINI_API_KEY)', () => {
  it('answers a short prompt with text and usage, streamed and not', async () => {
    for (const stream of [false, true]) {
      const result = await liveProvider(stream).complete(
        { messages: [{ role: 'user', content: 'Reply with the single word: pong' }], maxTokens: 1000 },
        CTX,
      );
      if (!result.ok) throw new Error(result.error.message);
      expect(result.response.message.content.toLowerCase()).toContain('pong');
      expect(result.response.stopReason).toBe('end');
      expect(result.response.usage.input).toBeGreaterThan(0);
      expect(result.response.usage.output).toBeGreaterThan(0);
    }
  });

  it('calls a tool, then answers from its result (sending any thought signature back)', async () => {
    const provider = liveProvider();
    const messages: Message[] = [
      { role: 'system', content: 'Use the tools you are given; do not guess.' },
      { role: 'user', content: 'What is the weather in Paris right now?' },
    ];
    const first = await provider.complete({ messages, tools: [WEATHER], maxTokens: 2000 }, CTX);
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
        maxTokens: 2000,
      },
      CTX,
    );
    if (!second.ok) throw new Error(second.error.message);
    expect(second.response.message.content).toMatch(/21/);
  });
});
