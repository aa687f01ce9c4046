import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../llm/index.ts';
import { connectModel, costUsd, openai, providerSettings, resolveModel } from '../../llm/index.ts';
import { createOpenAIProvider } from '../../llm/providers/openai.ts';

const ctx: CallContext = { runId: 'live', variantId: null, role: 'task' };

function model() {
  const found = resolveModel('openai/gpt-4o-mini');
  if (!found.ok) throw new Error(found.error.message);
  return found.model;
}

describe.skipIf(!process.env.OPENAI_API_KEY)('OpenAI live API (needs OPENAI_API_KEY)', () => {
  it('answers a short prompt with text and usage', async () => {
    const connected = connectModel(model(), process.env);
    if (!connected.ok) throw new Error(connected.message);
    const result = await connected.provider.complete(
      { messages: [{ role: 'user', content: 'Reply with the single word: pong' }], maxTokens: 20 },
      ctx,
    );
    if (!result.ok) throw new Error(result.error.message);
    expect(result.response.message.content.toLowerCase()).toContain('pong');
    expect(result.response.stopReason).toBe('end');
    expect(result.response.usage.input).toBeGreaterThan(0);
    expect(result.response.usage.output).toBeGreaterThan(0);
    expect(costUsd(model(), result.response.usage)).toBeGreaterThan(0);
  });

  it('calls a tool, streamed', async () => {
    const settings = providerSettings(model(), process.env);
    if (!settings.ok) throw new Error(settings.message);
    const provider = createOpenAIProvider(model(), { ...settings.options, stream: true }, openai);
    const result = await provider.complete(
      {
        messages: [{ role: 'user', content: 'What is the weather in Paris? Use the get_weather tool.' }],
        tools: [
          {
            name: 'get_weather',
            description: 'Current weather for a city.',
            inputSchema: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
              additionalProperties: false,
            },
          },
        ],
        maxTokens: 100,
      },
      ctx,
    );
    if (!result.ok) throw new Error(result.error.message);
    expect(result.response.stopReason).toBe('tool_use');
    const call = result.response.message.toolCalls?.[0];
    expect(call?.name).toBe('get_weather');
    expect(String(call?.input.city)).toMatch(/paris/i);
    expect(call?.id).toMatch(/\S/);
  });
});
