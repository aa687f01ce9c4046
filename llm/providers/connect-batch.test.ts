import { afterEach, describe, expect, it } from 'vitest';
import { textReply } from '../testing/fake-openai.ts';
import { type FakeOpenAIBatchServer, startFakeOpenAIBatchServer } from '../testing/fake-openai-batch.ts';
import { registeredModel } from '../testing/models.ts';
import { connectBatch } from './index.ts';

let server: FakeOpenAIBatchServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('connectBatch', () => {
  it('connects a model to its provider’s batch endpoint, with the key and API root of the environment', async () => {
    server = await startFakeOpenAIBatchServer({ respond: () => textReply('4'), endAfterPolls: 1 });
    const env = { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: `${server.url}/v1` };
    const connected = await connectBatch(registeredModel('openai/gpt-4o-mini'), env);
    if (!connected.ok) throw new Error(connected.message);
    const submitted = await connected.batch.submit([
      { customId: 'a', request: { messages: [{ role: 'user', content: '2 + 2?' }] } },
    ]);
    expect(submitted).toEqual({ ok: true, value: { batchId: 'batch_fake0001' } });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-env');
  });

  it('names the variable to set when the key is missing', async () => {
    const connected = await connectBatch(registeredModel('anthropic/claude-haiku-4-5'), {});
    expect(connected).toEqual({ ok: false, message: expect.stringMatching(/set ANTHROPIC_API_KEY/) });
  });

  it('says which providers take batches when the model’s provider has no batch endpoint', async () => {
    for (const id of ['local/qwen2.5-coder:7b']) {
      const connected = await connectBatch(registeredModel(id), { GEMINI_API_KEY: 'k' });
      expect(connected).toEqual({
        ok: false,
        message: expect.stringMatching(
          /cannot be answered in batches: .* has no batch endpoint here\. Batches go to OpenAI \(openai\/\.\.\.\), Anthropic \(anthropic\/\.\.\.\)/,
        ),
      });
    }
  });
});
