import { afterEach, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../testing/fake-gateway.ts';
import { createGatewayModel, gatewayFromEnv, listModels } from './gateway-client.ts';

let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe('gateway client', () => {
  it('sends a chat request over the unix socket and reads the reply', async () => {
    gateway = await startFakeGateway({ answer: () => ({ content: 'hello' }) });
    const model = createGatewayModel({ url: gateway.url, token: gateway.token });
    const result = await model({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 });
    expect(result).toMatchObject({
      ok: true,
      reply: { message: { content: 'hello' }, stopReason: 'end', costUsd: 0.001 },
    });
    expect(gateway.requests[0]).toEqual({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 });
  });

  it('returns the gateway error as data', async () => {
    gateway = await startFakeGateway({
      answer: () => ({
        status: 402,
        error: { type: 'budget_exceeded', message: 'budget spent', retryable: false },
      }),
    });
    const result = await createGatewayModel({ url: gateway.url, token: gateway.token })({ messages: [] });
    expect(result).toEqual({
      ok: false,
      error: { type: 'budget_exceeded', message: 'budget spent', retryable: false },
    });
  });

  it('reports a wrong token as an auth error', async () => {
    gateway = await startFakeGateway({ answer: () => ({ content: '' }) });
    const result = await createGatewayModel({ url: gateway.url, token: 'wrong' })({ messages: [] });
    expect(result).toMatchObject({ ok: false, error: { type: 'auth' } });
  });

  it('reports an unreachable gateway without throwing', async () => {
    const result = await createGatewayModel({ url: 'unix:/nonexistent/gateway.sock', token: 't' })({
      messages: [],
    });
    expect(result).toMatchObject({ ok: false, error: { type: 'internal', retryable: true } });
    expect(await listModels({ url: 'http://127.0.0.1:1', token: 't' })).toMatchObject({ ok: false });
  });

  it('lists models', async () => {
    gateway = await startFakeGateway({ answer: () => ({ content: '' }) });
    expect(await listModels({ url: gateway.url, token: gateway.token })).toMatchObject({
      ok: true,
      models: [{ id: 'sim', nativeTools: false }],
    });
  });

  it('reads its address from the environment', () => {
    expect(gatewayFromEnv({ HYPERAGENTS_LLM_URL: 'unix:/s', HYPERAGENTS_LLM_TOKEN: 'k' })).toEqual({
      url: 'unix:/s',
      token: 'k',
    });
    expect(() => gatewayFromEnv({})).toThrow('HYPERAGENTS_LLM_URL');
  });
});
