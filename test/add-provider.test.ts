import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatUsage } from '../cli/models/chat.ts';
import { defaultModel } from '../cli/models/default-model.ts';
import { modelsListing } from '../cli/models/models.ts';
import type { ProviderSpec } from '../llm/index.ts';
import { connectModel, providerSettings, registerProvider, resolveModel } from '../llm/index.ts';
import { echo } from '../llm/testing/echo-provider.ts';
import { errorReply, textReply } from '../llm/testing/fake-openai.ts';
import { type FakeServer, startFakeServer } from '../llm/testing/fake-server.ts';

/**
 * A provider added as a contributor adds one: a single file (`llm/testing/echo-provider.ts`), registered
 * once. Everything else (the model table, the default model, chat's help, the key check, the client) must
 * come from the registry without another edit.
 */
describe('a provider added in one file', () => {
  let unregister: () => void;
  let server: FakeServer;
  beforeAll(async () => {
    unregister = registerProvider(echo);
    server = await startFakeServer({
      fallback: (req) => {
        const { model, prompt } = req.body as { model: string; prompt: string };
        if (req.headers.authorization !== 'Bearer echo-key-123')
          return { kind: 'json', status: 401, body: { error: 'unknown key' } };
        return { kind: 'json', body: { text: `echo: ${prompt}`, model, tokens: 3 } };
      },
    });
  });
  afterAll(async () => {
    unregister();
    await server.close();
  });

  it('is listed by hyperagents models, with its prices, and resolves', () => {
    expect(modelsListing(false)).toMatch(/^echo\/parrot-1 +echo +8,192 +1,024 +1\.00\/2\.00 +text/m);
    const listed = JSON.parse(modelsListing(true)) as { id: string }[];
    expect(listed.map((m) => m.id)).toContain('echo/parrot-1');
    expect(resolveModel('echo/parrot-1')).toMatchObject({ ok: true, model: { provider: 'echo' } });
    expect(resolveModel('parrot-1-2026')).toMatchObject({ error: { suggestions: ['echo/parrot-1'] } });
  });

  it('is the model a run uses without --model when its key is set, by its rank', () => {
    expect(defaultModel({ ECHO_API_KEY: 'k', ANTHROPIC_API_KEY: 'a' })).toEqual({
      model: 'echo/parrot-1',
      key: 'ECHO_API_KEY',
    });
    expect(defaultModel({ ANTHROPIC_API_KEY: 'a' }).model).toBe('anthropic/claude-sonnet-4-6');
  });

  it('names its key variable when the key is missing or refused, and in chat --help', async () => {
    const model = registered('echo/parrot-1');
    expect(providerSettings(model, {})).toEqual({
      ok: false,
      message:
        'echo/parrot-1 needs an API key: set ECHO_API_KEY in the environment or in a .env file in the current folder.',
    });
    const refused = connectModel(model, { ECHO_API_KEY: 'wrong', ECHO_BASE_URL: server.url });
    if (!refused.ok) throw new Error(refused.message);
    const result = await refused.provider.complete(hello, ctx);
    expect(result).toMatchObject({ ok: false, error: { type: 'auth', retryable: false } });
    expect(!result.ok && result.error.message).toMatch(/Echo refused the API key .*Check ECHO_API_KEY/);
    expect(chatUsage()).toMatch(/Keys: .*ECHO_API_KEY\./s);
    expect(chatUsage()).toMatch(/ECHO_BASE_URL/);
  });

  it('is called with the key and base URL from the environment, on its own wire', async () => {
    const connected = connectModel(registered('echo/parrot-1'), {
      ECHO_API_KEY: 'echo-key-123',
      ECHO_BASE_URL: server.url,
    });
    if (!connected.ok) throw new Error(connected.message);
    const result = await connected.provider.complete(hello, ctx);
    expect(result).toMatchObject({
      ok: true,
      response: { message: { content: 'echo: hello' }, reportedModel: 'parrot-1-2026' },
    });
    expect(server.requests.at(-1)).toMatchObject({ method: 'POST', path: '/echo' });
  });

  it('is refused when it contradicts a registered provider, and is gone once removed', () => {
    expect(() => registerProvider(echo)).toThrow(/"echo": a provider of that name is registered/);
    const stray = { ...echo, name: 'stray', defaultModel: undefined };
    expect(() => registerProvider(stray)).toThrow(/echo\/parrot-1 must have an id starting with "stray\/"/);
    const discounted = { ...echo, name: 'echo3', models: [], defaultModel: undefined, batchDiscount: 0.5 };
    expect(() => registerProvider(discounted)).toThrow(
      /batch discount .* for a provider with a batch endpoint/,
    );
    const again = registerProvider({ ...echo, name: 'echo2', models: [], defaultModel: undefined });
    again();
    expect(chatUsage().match(/ECHO_API_KEY/g)).toHaveLength(1);
  });
});

describe('an OpenAI-compatible API added in one file', () => {
  it("reuses the OpenAI client, whose messages name the provider's own label and key variable", async () => {
    const server = await startFakeServer();
    const compat: ProviderSpec = {
      name: 'compat',
      label: 'Compat AI',
      keyVariables: ['COMPAT_API_KEY'],
      baseUrlVariable: 'COMPAT_BASE_URL',
      models: [{ ...registered('openai/gpt-4o-mini'), id: 'compat/chat-1', provider: 'compat' }],
      client: async (model, opts, spec) =>
        (await import('../llm/providers/openai.ts')).createOpenAIProvider(model, opts, spec),
    };
    const unregister = registerProvider(compat);
    try {
      const env = { COMPAT_API_KEY: 'compat-key', COMPAT_BASE_URL: `${server.url}/v1` };
      const connected = connectModel(registered('compat/chat-1'), env);
      if (!connected.ok) throw new Error(connected.message);
      server.enqueue(textReply('hi from compat'), errorReply('auth'));
      expect(await connected.provider.complete(hello, ctx)).toMatchObject({
        ok: true,
        response: { message: { content: 'hi from compat' } },
      });
      expect(server.requests[0]).toMatchObject({
        path: '/v1/chat/completions',
        headers: { authorization: 'Bearer compat-key' },
        body: { model: 'chat-1' },
      });
      const refused = await connected.provider.complete(hello, ctx);
      expect(!refused.ok && refused.error.message).toMatch(
        /^Compat AI refused the API key .*Check COMPAT_API_KEY/,
      );
    } finally {
      unregister();
      await server.close();
    }
  });
});

const hello = { messages: [{ role: 'user' as const, content: 'hello' }] };
const ctx = { runId: 'r', variantId: 0, role: 'task' as const };

function registered(id: string) {
  const resolved = resolveModel(id);
  if (!resolved.ok) throw new Error(resolved.error.message);
  return resolved.model;
}
