import { afterEach, describe, expect, it } from 'vitest';
import type { BatchApi, BatchOutcome, BatchRequest, BatchResult } from '../batch-api.ts';
import { batchCostUsd, costUsd } from '../registry.ts';
import type { FakeBatchKnobs } from '../testing/fake-batch.ts';
import { errorReply, textReply, toolCallReply } from '../testing/fake-google.ts';
import { type FakeGoogleBatchServer, startFakeGoogleBatchServer } from '../testing/fake-google-batch.ts';
import { registeredModel } from '../testing/models.ts';
import type { CallContext, ChatRequest } from '../types.ts';
import { createGoogleProvider } from './google.ts';
import { createGoogleBatch, statusOf } from './google-batch.ts';
import { google } from './google-provider.ts';

const ctx: CallContext = { runId: 'run-1', variantId: 0, role: 'task' };
const flash = registeredModel('google/gemini-2.5-flash');

const lookup = {
  name: 'lookup',
  description: 'Look a word up.',
  inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
};

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
  const b = body as { contents: { parts: { text?: string }[] }[]; tools?: unknown[] };
  const question = b.contents.at(-1)?.parts.find((p) => p.text)?.text ?? '';
  const [, a, c] = question.match(/(\d+) \+ (\d+)/) ?? [];
  const sum = Number(a) + Number(c);
  const usage = { prompt: 20 + sum, candidates: 3, cached: 4 };
  if (b.tools?.length) return toolCallReply([{ name: 'lookup', args: { word: question } }], usage);
  return textReply(String(sum), usage, { responseId: `resp-${sum}` });
}

let server: FakeGoogleBatchServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(knobs: Partial<FakeBatchKnobs> = {}) {
  server = await startFakeGoogleBatchServer({ respond, ...knobs });
  const opts = { apiKey: 'gem-test', baseUrl: server.url };
  return {
    server,
    batch: createGoogleBatch(flash, opts, google),
    ordinary: createGoogleProvider(flash, opts, google),
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

describe('Gemini batch: a batch of inlined requests round-trips', () => {
  it('sends each request as the ordinary client does and reads back the same parsed replies', async () => {
    const { server, batch, ordinary } = await start({ endAfterPolls: 3 });
    const { batchId } = value(await batch.submit(requests));
    expect(batchId).toBe('batches/fake0001');
    const { status, seen } = await pollUntilEnded(batch, batchId);
    expect(seen).toEqual(['JOB_STATE_PENDING', 'JOB_STATE_RUNNING', 'JOB_STATE_SUCCEEDED']);
    expect(status).toEqual({
      state: 'ended',
      providerState: 'JOB_STATE_SUCCEEDED',
      done: 3,
      failed: 0,
      total: 3,
    });
    const outcomes = byId(value(await batch.collect(batchId)));
    for (const r of requests) {
      const direct = await ordinary.complete(r.request, ctx);
      if (!direct.ok) throw new Error(direct.error.message);
      expect(outcomes.get(r.customId)).toEqual({ customId: r.customId, ok: true, response: direct.response });
    }
    const ordinaryBodies = server.requests
      .filter((q) => q.path.endsWith(':generateContent'))
      .map((q) => q.body);
    expect(server.batches.batches[0]?.requests.map((q) => q.body)).toEqual(ordinaryBodies);
    expect(server.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:batchGenerateContent');
  });

  it('matches results by the custom id in each response’s metadata, in whatever order they come', async () => {
    const { batch } = await start({ order: 'reversed' });
    const { batchId } = value(await batch.submit(requests.slice(0, 2)));
    await pollUntilEnded(batch, batchId);
    const outcomes = value(await batch.collect(batchId));
    expect(outcomes.map((o) => [o.customId, o.ok && o.response.message.content])).toEqual([
      ['task-b-0', '34'],
      ['task-a-0', '3'],
    ]);
  });

  it('reports progress from the batch’s stats while it runs', async () => {
    const { batch } = await start({ endAfterPolls: 4 });
    const { batchId } = value(await batch.submit(requests));
    expect(value(await batch.poll(batchId))).toEqual({
      state: 'pending',
      providerState: 'JOB_STATE_PENDING',
      done: 0,
      failed: 0,
      total: 3,
    });
    expect(value(await batch.poll(batchId))).toMatchObject({ state: 'pending', done: 1, total: 3 });
  });
});

describe('Gemini batch: requests a batch does not answer', () => {
  it('keeps the answered requests of an expired batch and leaves out the ones it did not run', async () => {
    const { batch } = await start({ expire: { answered: 1 } });
    const { batchId } = value(await batch.submit(requests));
    const { status } = await pollUntilEnded(batch, batchId);
    expect(status).toMatchObject({ state: 'ended', providerState: 'JOB_STATE_EXPIRED', done: 1 });
    expect(value(await batch.collect(batchId)).map((o) => [o.customId, o.ok])).toEqual([['task-a-0', true]]);
  });

  it('reports errored requests with the error each got', async () => {
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
      error: { type: 'provider_error', status: 500 },
    });
    expect(outcomes.get('task-b-0')).toMatchObject({
      ok: false,
      reason: 'errored',
      error: { type: 'context_overflow' },
    });
    expect(outcomes.get('task-c-0')).toMatchObject({ ok: true });
  });

  it('cancels a pending batch: it ends cancelled with nothing answered', async () => {
    const { batch, server } = await start({ endAfterPolls: Number.POSITIVE_INFINITY });
    const { batchId } = value(await batch.submit(requests));
    expect(value(await batch.poll(batchId)).state).toBe('pending');
    expect(await batch.cancel(batchId)).toEqual({ ok: true, value: undefined });
    const { status } = await pollUntilEnded(batch, batchId);
    expect(status.providerState).toBe('JOB_STATE_CANCELLED');
    expect(value(await batch.collect(batchId))).toEqual([]);
    expect(server.batches.cancels).toBe(1);
  });
});

describe('Gemini batch: refusals, states and price', () => {
  it('says clearly that the API refused a malformed batch', async () => {
    const { batch, server } = await start({ failValidation: true });
    const submitted = await batch.submit(requests);
    expect(!submitted.ok && submitted.error).toMatchObject({
      type: 'bad_request',
      status: 400,
      retryable: false,
    });
    expect(!submitted.ok && submitted.error.message).toMatch(/max_output_tokens/);
    expect(server.batches.batches).toHaveLength(0);
  });

  it('refuses to collect a batch still running, and an empty batch before calling', async () => {
    const { batch } = await start({ endAfterPolls: 5 });
    const { batchId } = value(await batch.submit(requests));
    const collected = await batch.collect(batchId);
    expect(!collected.ok && collected.error.message).toMatch(/still JOB_STATE_PENDING: collect it once/);
    const empty = await batch.submit([]);
    expect(!empty.ok && empty.error.message).toMatch(/holds no requests/);
  });

  it.each([
    ['JOB_STATE_PENDING', 'pending'],
    ['JOB_STATE_RUNNING', 'pending'],
    ['JOB_STATE_CANCELLING', 'pending'],
    ['JOB_STATE_SUCCEEDED', 'ended'],
    ['JOB_STATE_FAILED', 'ended'],
    ['JOB_STATE_CANCELLED', 'ended'],
    ['JOB_STATE_EXPIRED', 'ended'],
  ] as const)('%s is %s', (state, expected) => {
    expect(statusOf({ state } as Parameters<typeof statusOf>[0]).state).toBe(expected);
  });

  it('prices a batch call at half the listed price', () => {
    const usage = { input: 1_000_000, output: 1_000_000, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    expect(batchCostUsd(flash, usage)).toBeCloseTo(costUsd(flash, usage) / 2, 10);
  });
});
