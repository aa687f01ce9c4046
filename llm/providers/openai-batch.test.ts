import { afterEach, describe, expect, it } from 'vitest';
import type { BatchApi, BatchOutcome, BatchRequest, BatchResult } from '../batch-api.ts';
import { batchCostUsd, costUsd } from '../registry.ts';
import type { FakeBatchKnobs } from '../testing/fake-batch.ts';
import { errorReply, textReply, toolCallReply } from '../testing/fake-openai.ts';
import { type FakeOpenAIBatchServer, startFakeOpenAIBatchServer } from '../testing/fake-openai-batch.ts';
import { registeredModel } from '../testing/models.ts';
import type { CallContext, ChatRequest } from '../types.ts';
import { createOpenAIProvider } from './openai.ts';
import { createOpenAIBatch, statusOf } from './openai-batch.ts';
import { openai } from './openai-provider.ts';

const ctx: CallContext = { runId: 'run-1', variantId: 0, role: 'task' };
const mini = registeredModel('openai/gpt-4o-mini');
const o3 = registeredModel('openai/o3');

const lookup = {
  name: 'lookup',
  description: 'Look a word up.',
  inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
};

/** Asks for the sum of two numbers; `tools` makes the fake answer with a tool call instead. */
function ask(a: number, b: number, extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    messages: [
      { role: 'system', content: 'Answer with a number.' },
      { role: 'user', content: `What is ${a} + ${b}?` },
    ],
    ...extra,
  };
}

/** The ordinary endpoint's answer, from the request alone: the sum it asks for, or a tool call. */
function respond(body: unknown) {
  const b = body as { messages: { content: string }[]; tools?: unknown[] };
  const question = b.messages.at(-1)?.content ?? '';
  const [, a, c] = question.match(/(\d+) \+ (\d+)/) ?? [];
  if (b.tools?.length) return toolCallReply([{ id: 'call_1', name: 'lookup', input: { word: question } }]);
  const sum = Number(a) + Number(c);
  return textReply(String(sum), {
    usage: { prompt: 20 + sum, completion: 2, cached: 4 },
    model: 'gpt-4o-mini-2024-07-18',
  });
}

let server: FakeOpenAIBatchServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(knobs: Partial<FakeBatchKnobs> = {}) {
  server = await startFakeOpenAIBatchServer({ respond, ...knobs });
  const opts = { apiKey: 'sk-test', baseUrl: `${server.url}/v1` };
  return {
    server,
    batch: createOpenAIBatch(mini, opts, openai),
    ordinary: createOpenAIProvider(mini, opts, openai),
  };
}

function value<T>(result: BatchResult<T>): T {
  if (!result.ok) throw new Error(`expected a value, got ${result.error.type}: ${result.error.message}`);
  return result.value;
}

async function pollUntilEnded(batch: BatchApi, id: string, most = 10) {
  const seen: string[] = [];
  for (let i = 0; i < most; i++) {
    const status = value(await batch.poll(id));
    seen.push(status.providerState);
    if (status.state === 'ended') return { status, seen };
  }
  throw new Error(`the batch did not end within ${most} polls: ${seen.join(', ')}`);
}

const byId = (outcomes: BatchOutcome[]) => new Map(outcomes.map((o) => [o.customId, o]));
const requests: BatchRequest[] = [
  { customId: 'task-a-0', request: ask(1, 2) },
  { customId: 'task-b-0', request: ask(30, 4, { temperature: 0.5, maxTokens: 100 }) },
  { customId: 'task-c-0', request: ask(5, 5, { tools: [lookup] }) },
];

describe('OpenAI batch: a batch round-trips through the Batch API', () => {
  it('uploads each request as the ordinary client sends it and reads back the same parsed replies', async () => {
    const { server, batch, ordinary } = await start();
    const { batchId } = value(await batch.submit(requests));
    const { status, seen } = await pollUntilEnded(batch, batchId);
    expect(seen).toEqual(['validating', 'completed']);
    expect(status).toEqual({ state: 'ended', providerState: 'completed', done: 3, failed: 0, total: 3 });
    const outcomes = byId(value(await batch.collect(batchId)));

    for (const r of requests) {
      const direct = await ordinary.complete(r.request, ctx);
      if (!direct.ok) throw new Error(direct.error.message);
      expect(outcomes.get(r.customId)).toEqual({ customId: r.customId, ok: true, response: direct.response });
    }
    // The JSONL lines carry exactly the bodies of the ordinary calls, in the wire format of a batch line.
    const chats = server.requests.filter((q) => q.path === '/v1/chat/completions').map((q) => q.body);
    const sentBodies = server.batches.batches[0]?.requests.map((q) => q.body);
    expect(sentBodies).toEqual(chats);
    const upload = server.requests.find((q) => q.path === '/v1/files');
    expect(upload?.headers['content-type']).toMatch(/^multipart\/form-data/);
    expect(String(upload?.body)).toContain('"method":"POST","url":"/v1/chat/completions"');
    const create = server.requests.find((q) => q.path === '/v1/batches');
    expect(create?.body).toEqual({
      input_file_id: 'file-fake0001',
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    expect(server.batches.requestsPerBatch).toEqual([3]);
  });

  it('matches results to requests by custom id, in whatever order the output file lists them', async () => {
    const { batch, server } = await start({ order: 'reversed' });
    const { batchId } = value(await batch.submit(requests.slice(0, 2)));
    await pollUntilEnded(batch, batchId);
    const outcomes = value(await batch.collect(batchId));
    expect(outcomes.map((o) => o.customId)).toEqual(['task-b-0', 'task-a-0']);
    const text = (id: string) => {
      const o = byId(outcomes).get(id);
      return o?.ok ? o.response.message.content : undefined;
    };
    expect([text('task-a-0'), text('task-b-0')]).toEqual(['3', '34']);
    expect(server.batches.resultReads).toBe(1);
  });

  it('sends a reasoning model’s body as its ordinary client does (developer role, max_completion_tokens)', async () => {
    const { server } = await start();
    const batch = createOpenAIBatch(o3, { apiKey: 'sk-test', baseUrl: `${server.url}/v1` }, openai);
    value(await batch.submit([{ customId: 'r', request: ask(1, 1, { reasoning: 'high', maxTokens: 500 }) }]));
    expect(server.batches.batches[0]?.requests[0]?.body).toEqual({
      model: 'o3',
      messages: [
        { role: 'developer', content: 'Answer with a number.' },
        { role: 'user', content: 'What is 1 + 1?' },
      ],
      max_completion_tokens: 500,
      reasoning_effort: 'high',
    });
  });
});

describe('OpenAI batch: a pending batch outlives its client', () => {
  it('is polled and collected by a new client from its id alone, without a second batch', async () => {
    const { batch, server } = await start({ endAfterPolls: Number.POSITIVE_INFINITY });
    const { batchId } = value(await batch.submit(requests));
    expect(value(await batch.poll(batchId)).state).toBe('pending');
    server.set({ endAfterPolls: 2 });
    const again = createOpenAIBatch(mini, { apiKey: 'sk-test', baseUrl: `${server.url}/v1` }, openai);
    await pollUntilEnded(again, batchId);
    expect(value(await again.collect(batchId)).filter((o) => o.ok)).toHaveLength(3);
    expect(server.batches.batches).toHaveLength(1);
    // Two polls, and the collect's own read of the batch.
    expect(server.batches.polls).toBe(3);
  });
});

describe('OpenAI batch: requests a batch does not answer', () => {
  it('reports requests an expired batch did not run as expired, and keeps the answered ones', async () => {
    const { batch } = await start({ expire: { answered: 1 }, order: 'submitted' });
    const { batchId } = value(await batch.submit(requests));
    const { status } = await pollUntilEnded(batch, batchId);
    expect(status).toMatchObject({ state: 'ended', providerState: 'expired', done: 1, failed: 2 });
    const outcomes = value(await batch.collect(batchId));
    expect(outcomes.map((o) => [o.customId, o.ok ? 'ok' : o.reason])).toEqual([
      ['task-a-0', 'ok'],
      ['task-b-0', 'expired'],
      ['task-c-0', 'expired'],
    ]);
    const expired = outcomes[1];
    expect(expired?.ok === false && expired.error).toMatchObject({ type: 'timeout', retryable: true });
    expect(expired?.ok === false && expired.error.message).toMatch(
      /did not run it within the batch window.*batch_expired/,
    );
  });

  it('finds requests missing from every file in the input file, as expired with their batch', async () => {
    const { batch } = await start({
      expire: { answered: 2 },
      dropUnanswered: true,
    } as Partial<FakeBatchKnobs>);
    const { batchId } = value(await batch.submit(requests));
    await pollUntilEnded(batch, batchId);
    const outcomes = byId(value(await batch.collect(batchId)));
    expect(outcomes.size).toBe(3);
    expect(outcomes.get('task-c-0')).toMatchObject({ ok: false, reason: 'expired' });
  });

  it('reports errored requests with the error each got, the others answered', async () => {
    const { batch } = await start({
      errored: (id) => id === 'task-a-0',
      respond: (body) =>
        JSON.stringify(body).includes('30 + 4') ? errorReply('context_overflow') : respond(body),
    });
    const { batchId } = value(await batch.submit(requests));
    const { status } = await pollUntilEnded(batch, batchId);
    expect(status).toMatchObject({ done: 1, failed: 2, total: 3 });
    const outcomes = byId(value(await batch.collect(batchId)));
    expect(outcomes.get('task-a-0')).toMatchObject({
      ok: false,
      reason: 'errored',
      error: { type: 'provider_error', status: 500, retryable: true },
    });
    expect(outcomes.get('task-b-0')).toMatchObject({
      ok: false,
      reason: 'errored',
      error: { type: 'context_overflow', retryable: false },
    });
    expect(outcomes.get('task-c-0')).toMatchObject({ ok: true });
  });

  it('cancels a pending batch: it ends cancelled and none of its requests is answered', async () => {
    const { batch, server } = await start({ endAfterPolls: Number.POSITIVE_INFINITY });
    const { batchId } = value(await batch.submit(requests));
    expect(value(await batch.poll(batchId))).toMatchObject({ state: 'pending', providerState: 'validating' });
    expect(value(await batch.poll(batchId))).toMatchObject({
      state: 'pending',
      providerState: 'in_progress',
    });
    expect(await batch.cancel(batchId)).toEqual({ ok: true, value: undefined });
    expect(value(await batch.poll(batchId))).toMatchObject({ state: 'ended', providerState: 'cancelled' });
    const outcomes = value(await batch.collect(batchId));
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['canceled', 'canceled', 'canceled']);
    expect(server.batches.cancels).toBe(1);
  });
});

describe('OpenAI batch: refusals', () => {
  it('says clearly that a batch failed validation and ran none of its requests', async () => {
    const { batch } = await start({ failValidation: true });
    const { batchId } = value(await batch.submit(requests));
    expect(value(await batch.poll(batchId))).toMatchObject({ state: 'ended', providerState: 'failed' });
    const collected = await batch.collect(batchId);
    expect(collected.ok).toBe(false);
    if (collected.ok) return;
    expect(collected.error).toMatchObject({ type: 'bad_request', retryable: false });
    expect(collected.error.message).toMatch(
      /refused the batch batch_fake0001 and ran none of its requests: line 1: .*messages/,
    );
  });

  it('refuses to collect a batch that is still running, saying to poll first', async () => {
    const { batch } = await start({ endAfterPolls: 5 });
    const { batchId } = value(await batch.submit(requests));
    const collected = await batch.collect(batchId);
    expect(!collected.ok && collected.error.message).toMatch(
      /still .*collect it once a poll says it has ended/,
    );
  });

  it('refuses an empty batch before calling, and names the key to set when there is none', async () => {
    const { batch, server } = await start();
    const empty = await batch.submit([]);
    expect(!empty.ok && empty.error.message).toMatch(/holds no requests/);
    const keyless = createOpenAIBatch(mini, { apiKey: '' }, openai);
    const refused = await keyless.submit(requests);
    expect(!refused.ok && refused.error).toMatchObject({
      type: 'auth',
      message: expect.stringMatching(/OPENAI_API_KEY/),
    });
    expect(server.requests).toHaveLength(0);
    expect(batch.limits).toEqual({ maxRequests: 50_000, maxBytes: 200 * 1024 * 1024 });
  });

  it('reports an unknown batch id as the API’s not-found error', async () => {
    const { batch } = await start();
    const polled = await batch.poll('batch_nope');
    expect(!polled.ok && polled.error).toMatchObject({ status: 404 });
  });
});

describe('OpenAI batch: states and price', () => {
  it.each([
    ['validating', 'pending'],
    ['in_progress', 'pending'],
    ['finalizing', 'pending'],
    ['cancelling', 'pending'],
    ['completed', 'ended'],
    ['failed', 'ended'],
    ['expired', 'ended'],
    ['cancelled', 'ended'],
  ] as const)('%s is %s', (status, state) => {
    const counts = { total: 4, completed: 2, failed: 1 };
    expect(statusOf({ status, request_counts: counts })).toEqual({
      state,
      providerState: status,
      done: 2,
      failed: 1,
      total: 4,
    });
  });

  it('prices a batch call at half the listed price', () => {
    const usage = { input: 1_000_000, output: 100_000, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    expect(costUsd(mini, usage)).toBeCloseTo(0.21, 10);
    expect(batchCostUsd(mini, usage)).toBeCloseTo(0.105, 10);
  });
});
