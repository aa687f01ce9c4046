import { afterEach, describe, expect, it } from 'vitest';
import type { BatchApi, BatchOutcome, BatchRequest, BatchResult } from '../batch-api.ts';
import { batchCostUsd, costUsd } from '../registry.ts';
import {
  type AnthropicUsage,
  errorReply,
  streamedTextReply,
  streamedToolCallReply,
  textReply,
  toolCallReply,
} from '../testing/fake-anthropic.ts';
import {
  type FakeAnthropicBatchServer,
  startFakeAnthropicBatchServer,
} from '../testing/fake-anthropic-batch.ts';
import type { FakeBatchKnobs } from '../testing/fake-batch.ts';
import { registeredModel } from '../testing/models.ts';
import type { CallContext, ChatRequest } from '../types.ts';
import { createAnthropicProvider } from './anthropic.ts';
import { createAnthropicBatch, statusOf } from './anthropic-batch.ts';
import { anthropic } from './anthropic-provider.ts';

const ctx: CallContext = { runId: 'run-1', variantId: 0, role: 'task' };
const sonnet = registeredModel('anthropic/claude-sonnet-4-6');

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

/**
 * The ordinary endpoint's answer, from the request alone: the sum it asks for, or a tool call; streamed when
 * the body asks for a stream (the ordinary client's default), one JSON body otherwise (every batch request).
 */
function respond(body: unknown) {
  const b = body as { messages: { content: { text?: string }[] }[]; tools?: unknown[]; stream?: boolean };
  const question = b.messages.at(-1)?.content.find((c) => c.text)?.text ?? '';
  const [, a, c] = question.match(/(\d+) \+ (\d+)/) ?? [];
  const sum = Number(a) + Number(c);
  const usage: AnthropicUsage = { input_tokens: 20 + sum, output_tokens: 3, cache_read_input_tokens: 7 };
  if (b.tools?.length) {
    const calls = [{ id: 'toolu_01', name: 'lookup', input: { word: question } }];
    return b.stream ? streamedToolCallReply(calls, { usage }) : toolCallReply(calls, { usage });
  }
  return b.stream ? streamedTextReply(String(sum), usage) : textReply(String(sum), usage);
}

let server: FakeAnthropicBatchServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(knobs: Partial<FakeBatchKnobs> = {}) {
  server = await startFakeAnthropicBatchServer({ respond, ...knobs });
  const opts = { apiKey: 'sk-ant-test', baseUrl: server.url };
  return {
    server,
    batch: createAnthropicBatch(sonnet, opts, anthropic),
    ordinary: createAnthropicProvider(sonnet, opts, anthropic),
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

describe('Anthropic batch: a batch round-trips through Message Batches', () => {
  it('sends each request’s params as the ordinary client does and reads back the same parsed replies', async () => {
    const { server, batch, ordinary } = await start();
    const { batchId } = value(await batch.submit(requests));
    const { status, seen } = await pollUntilEnded(batch, batchId);
    expect(seen).toEqual(['in_progress', 'ended']);
    expect(status).toEqual({ state: 'ended', providerState: 'ended', done: 3, failed: 0, total: 3 });
    const outcomes = byId(value(await batch.collect(batchId)));
    for (const r of requests) {
      const direct = await ordinary.complete(r.request, ctx);
      if (!direct.ok) throw new Error(direct.error.message);
      expect(outcomes.get(r.customId)).toEqual({ customId: r.customId, ok: true, response: direct.response });
    }
    // Each params is the ordinary body less the stream flag.
    const ordinaryBodies = server.requests
      .filter((q) => q.path === '/v1/messages')
      .map((q) => {
        const { stream: _stream, ...rest } = q.body as Record<string, unknown>;
        return rest;
      });
    expect(server.batches.batches[0]?.requests.map((q) => q.body)).toEqual(ordinaryBodies);
    expect(server.requests.find((q) => q.path === '/v1/messages/batches')?.body).toMatchObject({
      requests: [{ custom_id: 'task-a-0' }, { custom_id: 'task-b-0' }, { custom_id: 'task-c-0' }],
    });
  });

  it('matches results to requests by custom id, in whatever order the results list them', async () => {
    const { batch } = await start({ order: 'reversed' });
    const { batchId } = value(await batch.submit(requests.slice(0, 2)));
    await pollUntilEnded(batch, batchId);
    const outcomes = value(await batch.collect(batchId));
    expect(outcomes.map((o) => o.customId)).toEqual(['task-b-0', 'task-a-0']);
    const text = (id: string) => {
      const o = byId(outcomes).get(id);
      return o?.ok ? o.response.message.content : undefined;
    };
    expect([text('task-a-0'), text('task-b-0')]).toEqual(['3', '34']);
  });

  it('reports progress from request_counts while the batch is pending', async () => {
    const { batch } = await start({ endAfterPolls: 4 });
    const { batchId } = value(await batch.submit(requests));
    expect(value(await batch.poll(batchId))).toEqual({
      state: 'pending',
      providerState: 'in_progress',
      done: 0,
      failed: 0,
      total: 3,
    });
    expect(value(await batch.poll(batchId))).toMatchObject({ state: 'pending', done: 1, total: 3 });
  });
});

describe('Anthropic batch: requests a batch does not answer', () => {
  it('reports expired requests as expired, with the answered ones kept', async () => {
    const { batch } = await start({ expire: { answered: 2 }, order: 'submitted' });
    const { batchId } = value(await batch.submit(requests));
    const { status } = await pollUntilEnded(batch, batchId);
    expect(status).toMatchObject({ done: 2, failed: 1, total: 3 });
    const outcomes = value(await batch.collect(batchId));
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['ok', 'ok', 'expired']);
    expect(outcomes[2]).toMatchObject({
      error: {
        type: 'timeout',
        retryable: true,
        message: expect.stringMatching(/within the batch's 24 hours/),
      },
    });
  });

  it('reports errored requests with the error each got', async () => {
    const { batch } = await start({
      errored: (id) => id === 'task-a-0',
      respond: (body) =>
        JSON.stringify(body).includes('30 + 4') ? errorReply('context_overflow') : respond(body),
    });
    const { batchId } = value(await batch.submit(requests));
    await pollUntilEnded(batch, batchId);
    const outcomes = byId(value(await batch.collect(batchId)));
    expect(outcomes.get('task-a-0')).toMatchObject({
      ok: false,
      reason: 'errored',
      error: { type: 'provider_error', retryable: true },
    });
    expect(outcomes.get('task-b-0')).toMatchObject({
      ok: false,
      reason: 'errored',
      error: { type: 'context_overflow', retryable: false },
    });
    expect(outcomes.get('task-c-0')).toMatchObject({ ok: true });
  });

  it('cancels a pending batch: it ends with every request canceled', async () => {
    const { batch, server } = await start({ endAfterPolls: Number.POSITIVE_INFINITY });
    const { batchId } = value(await batch.submit(requests));
    expect(value(await batch.poll(batchId)).state).toBe('pending');
    expect(await batch.cancel(batchId)).toEqual({ ok: true, value: undefined });
    const { status } = await pollUntilEnded(batch, batchId);
    expect(status).toMatchObject({ providerState: 'ended', failed: 3 });
    const outcomes = value(await batch.collect(batchId));
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['canceled', 'canceled', 'canceled']);
    expect(server.batches.cancels).toBe(1);
  });
});

describe('Anthropic batch: refusals', () => {
  it('says clearly that the API refused a malformed batch', async () => {
    const { batch, server } = await start({ failValidation: true });
    const submitted = await batch.submit(requests);
    expect(!submitted.ok && submitted.error).toMatchObject({
      type: 'bad_request',
      status: 400,
      retryable: false,
    });
    expect(!submitted.ok && submitted.error.message).toMatch(/max_tokens/);
    expect(server.batches.batches).toHaveLength(0);
  });

  it('refuses a request of system messages only before calling', async () => {
    const { batch, server } = await start();
    const refused = await batch.submit([
      { customId: 'x', request: { messages: [{ role: 'system', content: 'hi' }] } },
    ]);
    expect(!refused.ok && refused.error.message).toMatch(/request x: .*at least one user message/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses to collect a batch still in progress, saying to poll first', async () => {
    const { batch } = await start({ endAfterPolls: 5 });
    const { batchId } = value(await batch.submit(requests));
    const collected = await batch.collect(batchId);
    expect(!collected.ok && collected.error.message).toMatch(
      /still in_progress: collect it once a poll says it has ended/,
    );
    expect(batch.limits).toEqual({ maxRequests: 100_000, maxBytes: 256 * 1024 * 1024 });
  });
});

describe('Anthropic batch: states and price', () => {
  it.each([
    ['in_progress', 'pending'],
    ['canceling', 'pending'],
    ['ended', 'ended'],
  ] as const)('%s is %s', (processing_status, state) => {
    const request_counts = { processing: 1, succeeded: 2, errored: 1, canceled: 1, expired: 1 };
    expect(statusOf({ processing_status, request_counts })).toEqual({
      state,
      providerState: processing_status,
      done: 2,
      failed: 3,
      total: 6,
    });
  });

  it('prices a batch call at half the listed price', () => {
    const usage = { input: 1_000_000, output: 1_000_000, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    expect(costUsd(sonnet, usage)).toBeCloseTo(18, 10);
    expect(batchCostUsd(sonnet, usage)).toBeCloseTo(9, 10);
  });
});
