import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderError, ProviderResponse, ProviderResult } from '../provider.ts';
import { costUsd, type ModelRecord } from '../registry.ts';
import { withRetries } from '../retry.ts';
import {
  errorReply,
  messageBody,
  streamEvents,
  streamedErrorEvent,
  streamedTextReply,
  streamedToolCallReply,
  textReply,
  toolCallReply,
} from '../testing/fake-anthropic.ts';
import { type FakeServer, startFakeServer } from '../testing/fake-server.ts';
import { registeredModel } from '../testing/models.ts';
import type { CallContext, ChatRequest, Message, ToolSpec } from '../types.ts';
import { createAnthropicProvider } from './anthropic.ts';
import { anthropic } from './anthropic-provider.ts';
import { planThinking } from './anthropic-request.ts';
import type { ProviderOptions } from './options.ts';

const CTX: CallContext = { runId: 'run-1', variantId: 3, role: 'task' };
const KEY = 'sk-ant-test-key';

/** A Claude Sonnet record (prices per million tokens); tests override what they exercise. */
function testModel(overrides: Partial<ModelRecord> = {}): ModelRecord {
  return registeredModel('anthropic/claude-sonnet-4-6', { caching: 'none', ...overrides });
}

const HAIKU_3 = testModel({
  id: 'anthropic/claude-3-haiku',
  apiName: 'claude-3-haiku-20240307',
  maxOutput: 4096,
  reasoning: false,
  price: { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
});

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

function provider(model: Partial<ModelRecord> | ModelRecord = {}, opts: Partial<ProviderOptions> = {}) {
  const record = 'id' in model && 'price' in model ? (model as ModelRecord) : testModel(model);
  return createAnthropicProvider(
    record,
    { apiKey: KEY, baseUrl: server.url, timeoutMs: 10_000, ...opts },
    anthropic,
  );
}

async function succeeds(result: Promise<ProviderResult>): Promise<ProviderResponse> {
  const r = await result;
  if (!r.ok) throw new Error(`expected a reply, got ${r.error.type}: ${r.error.message}`);
  return r.response;
}

async function fails(result: Promise<ProviderResult>): Promise<ProviderError> {
  const r = await result;
  if (r.ok) throw new Error(`expected an error, got a reply: ${JSON.stringify(r.response)}`);
  return r.error;
}

/** The JSON body of the `n`th request the fake server received. */
function sent(n = 0): Record<string, unknown> {
  const request = server.requests[n];
  if (!request) throw new Error(`the server received ${server.requests.length} requests, not ${n + 1}`);
  return request.body as Record<string, unknown>;
}

const HELLO: ChatRequest = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello.' },
  ],
};

const READ_FILE: ToolSpec = {
  name: 'read_file',
  description: 'Read a text file from the workspace.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
};

describe('replies through the real SDK client', () => {
  it('streams by default: text deltas joined, model name, key and system prompt on the wire', async () => {
    server.enqueue(streamedTextReply('Hello there, friend.', { input_tokens: 30, output_tokens: 6 }));
    const response = await succeeds(provider().complete(HELLO, CTX));

    expect(response.message).toEqual({ content: 'Hello there, friend.' });
    expect(response.stopReason).toBe('end');
    expect(response.usage).toEqual({ input: 30, output: 6, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    const request = server.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/messages');
    // API version 2026-10-21 sends the key as a bearer token.
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers['anthropic-version']).toBeTruthy();
    expect(request.headers['x-stainless-retry-count']).toBe('0');
    expect(sent()).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 8192,
      stream: true,
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }],
    });
  });

  it('keeps the model the API said answered, from message_start or from the one body', async () => {
    server.enqueue(streamedTextReply('a', undefined, { model: 'claude-sonnet-4-6-20260101' }));
    server.enqueue(textReply('b', undefined, { model: 'claude-sonnet-4-5-20250929' }));
    const streamed = await succeeds(provider().complete(HELLO, CTX));
    expect(streamed.reportedModel).toBe('claude-sonnet-4-6-20260101');
    const single = await succeeds(provider({}, { stream: false }).complete(HELLO, CTX));
    expect(single.reportedModel).toBe('claude-sonnet-4-5-20250929');
  });

  it('asks for one JSON body when streaming is off', async () => {
    server.enqueue(textReply('Hello.'));
    const response = await succeeds(provider({}, { stream: false }).complete(HELLO, CTX));
    expect(response.message.content).toBe('Hello.');
    expect(sent().stream).toBe(false);
  });

  it.each([
    ['streamed', true, streamedTextReply],
    ['single body', false, textReply],
  ] as const)(
    'calls a model the SDK lists as deprecated without a warning, and leaves console.warn alone (%s)',
    async (_, stream, reply) => {
      const own = console.warn;
      const warned: unknown[] = [];
      const assigned: unknown[] = [];
      const recorder = (...args: unknown[]) => warned.push(args);
      Object.defineProperty(console, 'warn', {
        configurable: true,
        get: () => recorder,
        set: (value: unknown) => assigned.push(value),
      });
      try {
        server.enqueue(reply('Hello.'));
        const deprecated = testModel({ id: 'anthropic/claude-sonnet-4-5', apiName: 'claude-sonnet-4-5' });
        const response = await succeeds(provider(deprecated, { stream }).complete(HELLO, CTX));
        expect(response.message.content).toBe('Hello.');
        expect(sent().model).toBe('claude-sonnet-4-5');
      } finally {
        Object.defineProperty(console, 'warn', { configurable: true, writable: true, value: own });
      }
      expect(warned).toEqual([]);
      expect(assigned).toEqual([]);
    },
  );

  it.each([
    ['streamed', true, streamedToolCallReply],
    ['single body', false, toolCallReply],
  ] as const)('returns tool calls with their ids and parsed input (%s)', async (_, stream, reply) => {
    server.enqueue(
      reply(
        [
          { id: 'toolu_01A', name: 'read_file', input: { path: 'notes/a.txt' } },
          { id: 'toolu_01B', name: 'read_file', input: { path: 'b.txt', range: [1, 20], raw: true } },
        ],
        { text: 'Reading both files.' },
      ),
    );
    const response = await succeeds(provider({}, { stream }).complete({ ...HELLO, tools: [READ_FILE] }, CTX));
    expect(response.stopReason).toBe('tool_use');
    expect(response.message).toEqual({
      content: 'Reading both files.',
      toolCalls: [
        { id: 'toolu_01A', name: 'read_file', input: { path: 'notes/a.txt' } },
        { id: 'toolu_01B', name: 'read_file', input: { path: 'b.txt', range: [1, 20], raw: true } },
      ],
    });
  });

  it('sends a tool round trip as tool_use blocks and one user turn of tool_result blocks', async () => {
    server.enqueue(streamedTextReply('a.txt says alpha; b.txt is empty.'));
    const messages: Message[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'What is in a.txt and b.txt?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'toolu_01A', name: 'read_file', input: { path: 'a.txt' } },
          { id: 'toolu_01B', name: 'read_file', input: { path: 'b.txt' } },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_01A', name: 'read_file', content: 'alpha' },
      { role: 'tool', toolCallId: 'toolu_01B', name: 'read_file', content: '' },
    ];
    const response = await succeeds(
      provider().complete({ messages, tools: [READ_FILE], maxTokens: 1000 }, CTX),
    );

    expect(response.message.content).toBe('a.txt says alpha; b.txt is empty.');
    expect(sent()).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 1000,
      stream: true,
      system: [{ type: 'text', text: 'You are terse.' }],
      tools: [
        {
          name: 'read_file',
          description: 'Read a text file from the workspace.',
          input_schema: READ_FILE.inputSchema,
        },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What is in a.txt and b.txt?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_01A', name: 'read_file', input: { path: 'a.txt' } },
            { type: 'tool_use', id: 'toolu_01B', name: 'read_file', input: { path: 'b.txt' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'alpha' },
            { type: 'tool_result', tool_use_id: 'toolu_01B' },
          ],
        },
      ],
    });
  });

  it('keeps turns alternating: user texts and tool results merge (results first), empty messages are not sent', async () => {
    server.enqueue(streamedTextReply('ok'));
    const messages: Message[] = [
      { role: 'system', content: '   ' },
      { role: 'user', content: 'First part.' },
      { role: 'user', content: 'Second part.' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'Third part.' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [{ id: 'toolu_01A', name: 'read_file', input: {} }],
      },
      { role: 'user', content: 'Hurry up.' },
      { role: 'tool', toolCallId: 'toolu_01A', name: 'read_file', content: 'alpha' },
    ];
    await succeeds(provider().complete({ messages }, CTX));
    expect(sent().system).toBeUndefined();
    expect(sent().messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'First part.' },
          { type: 'text', text: 'Second part.' },
          { type: 'text', text: 'Third part.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'read_file', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'alpha' },
          { type: 'text', text: 'Hurry up.' },
        ],
      },
    ]);
  });

  it('refuses a request with only system messages without calling the API', async () => {
    const error = await fails(provider().complete({ messages: [{ role: 'system', content: 'Hi' }] }, CTX));
    expect(error).toMatchObject({ type: 'bad_request', retryable: false });
    expect(error.message).toMatch(/at least one user message/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('usage and cost', () => {
  const usage = {
    input_tokens: 1000,
    output_tokens: 500,
    cache_read_input_tokens: 20_000,
    cache_creation_input_tokens: 5000,
  };

  it.each([
    ['streamed', true, streamedTextReply('cached answer', usage)],
    ['single body', false, textReply('cached answer', usage)],
  ] as const)(
    'keeps cache reads and writes apart from input and prices them (%s)',
    async (_, stream, step) => {
      server.enqueue(step);
      const model = testModel();
      const response = await succeeds(provider(model, { stream }).complete(HELLO, CTX));
      expect(response.usage).toEqual({
        input: 1000,
        output: 500,
        cacheRead: 20_000,
        cacheWrite: 5000,
        reasoning: 0,
      });
      // 1000 × $3 + 500 × $15 + 20 000 × $0.30 + 5000 × $3.75, per million tokens.
      expect(costUsd(model, response.usage)).toBeCloseTo(0.03525, 10);
    },
  );

  it('keeps the input counts of message_start when message_delta reports only output tokens', async () => {
    const events = streamEvents([{ type: 'text', text: 'short' }], {
      usage: { input_tokens: 50, output_tokens: 9, cache_read_input_tokens: 10 },
    }).map((e) =>
      e.event === 'message_delta'
        ? {
            ...e,
            data: {
              type: 'message_delta',
              delta: { stop_reason: 'end_turn', stop_sequence: null },
              usage: { output_tokens: 9 },
            },
          }
        : e,
    );
    server.enqueue({ kind: 'sse', events });
    const response = await succeeds(provider().complete(HELLO, CTX));
    expect(response.usage).toEqual({ input: 50, output: 9, cacheRead: 10, cacheWrite: 0, reasoning: 0 });
  });

  it.each([true, false])(
    'reports thinking tokens as reasoning and leaves thinking out of the content (stream %s)',
    async (stream) => {
      const content = [
        { type: 'thinking' as const, thinking: 'The user wants a greeting.', signature: 'sig-abc' },
        { type: 'text' as const, text: 'Hello!' },
      ];
      const usage = { input_tokens: 40, output_tokens: 400, thinking_tokens: 300 };
      server.enqueue(
        stream
          ? { kind: 'sse', events: streamEvents(content, { usage }) }
          : { kind: 'json', body: messageBody(content, { usage }) },
      );
      const response = await succeeds(provider({}, { stream }).complete(HELLO, CTX));
      expect(response.message).toEqual({ content: 'Hello!' });
      expect(response.usage).toEqual({ input: 40, output: 400, cacheRead: 0, cacheWrite: 0, reasoning: 300 });
    },
  );
});

describe('stop reasons', () => {
  it.each([
    ['end_turn', 'end'],
    ['stop_sequence', 'end'],
    ['refusal', 'end'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
  ] as const)('maps %s to %s', async (wire, expected) => {
    server.enqueue(streamedTextReply('partial', undefined, { stopReason: wire }));
    const response = await succeeds(provider().complete(HELLO, CTX));
    expect(response.stopReason).toBe(expected);
  });

  it('drops a tool call whose input max_tokens cut short, and reports length', async () => {
    const step = streamedToolCallReply(
      [{ id: 'toolu_01A', name: 'read_file', input: { path: 'a-long-name.txt' } }],
      {
        stopReason: 'max_tokens',
      },
    );
    const lastFragment = step.events.findLastIndex((e) => e.event === 'content_block_delta');
    server.enqueue({ ...step, events: step.events.filter((_, i) => i !== lastFragment) });
    const response = await succeeds(provider().complete(HELLO, CTX));
    expect(response.stopReason).toBe('length');
    expect(response.message.toolCalls).toBeUndefined();
  });

  it('treats a tool call with broken input JSON as a retryable malformed reply', async () => {
    const step = streamedToolCallReply([
      { id: 'toolu_01A', name: 'read_file', input: { path: 'a-long-name.txt' } },
    ]);
    const lastFragment = step.events.findLastIndex((e) => e.event === 'content_block_delta');
    server.enqueue({ ...step, events: step.events.filter((_, i) => i !== lastFragment) });
    const error = await fails(provider().complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
    expect(error.message).toMatch(/malformed tool call read_file/);
  });
});

describe('adaptation, as the request body shows it', () => {
  it('clamps max_tokens to claude-3-haiku’s 4096 and says so', async () => {
    server.enqueue(streamedTextReply('ok'));
    const response = await succeeds(provider(HAIKU_3).complete({ ...HELLO, maxTokens: 8000 }, CTX));
    expect(sent().max_tokens).toBe(4096);
    expect(sent().model).toBe('claude-3-haiku-20240307');
    expect(response.adapted).toContain(
      "maxTokens clamped from 8000 to 4096, anthropic/claude-3-haiku's output limit",
    );
  });

  it('marks the last system block, the last tool and the last user block for caching', async () => {
    server.enqueue(streamedTextReply('ok'));
    const messages: Message[] = [
      { role: 'system', content: 'Rules part one.' },
      { role: 'system', content: 'Rules part two.' },
      { role: 'user', content: 'Read a.txt' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'toolu_01A', name: 'read_file', input: { path: 'a.txt' } }],
      },
      { role: 'tool', toolCallId: 'toolu_01A', name: 'read_file', content: 'alpha' },
    ];
    const second: ToolSpec = { ...READ_FILE, name: 'list_files', description: 'List files.' };
    await succeeds(provider({ caching: 'explicit' }).complete({ messages, tools: [READ_FILE, second] }, CTX));

    const ephemeral = { type: 'ephemeral' };
    expect(sent().system).toEqual([
      { type: 'text', text: 'Rules part one.' },
      { type: 'text', text: 'Rules part two.', cache_control: ephemeral },
    ]);
    const tools = sent().tools as Record<string, unknown>[];
    expect(tools[0]?.cache_control).toBeUndefined();
    expect(tools[1]?.cache_control).toEqual(ephemeral);
    expect((sent().messages as unknown[]).at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'alpha', cache_control: ephemeral },
      ],
    });
    expect(JSON.stringify(sent()).match(/cache_control/g)).toHaveLength(3);
  });

  it('sends no cache marks for a model without explicit caching', async () => {
    server.enqueue(streamedTextReply('ok'));
    await succeeds(provider({ caching: 'none' }).complete({ ...HELLO, tools: [READ_FILE] }, CTX));
    expect(JSON.stringify(sent())).not.toContain('cache_control');
  });

  it('turns a reasoning effort into a thinking budget, raising max_tokens and dropping temperature', async () => {
    server.enqueue(streamedTextReply('thought it through'));
    const response = await succeeds(
      provider().complete({ ...HELLO, reasoning: 'high', maxTokens: 4000, temperature: 0.5 }, CTX),
    );
    expect(sent().thinking).toEqual({ type: 'enabled', budget_tokens: 16_384 });
    expect(sent().max_tokens).toBe(20_384);
    expect(sent()).not.toHaveProperty('temperature');
    expect(response.adapted).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^temperature dropped/),
        'maxTokens raised from 4000 to 20384 to hold a 16384-token thinking budget',
      ]),
    );
  });

  it('sends no thinking when the call continues a tool call (its thinking blocks are not kept)', async () => {
    server.enqueue(streamedTextReply('done'));
    const messages: Message[] = [
      { role: 'user', content: 'Read a.txt' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'toolu_01A', name: 'read_file', input: { path: 'a.txt' } }],
      },
      { role: 'tool', toolCallId: 'toolu_01A', name: 'read_file', content: 'alpha' },
    ];
    const response = await succeeds(provider().complete({ messages, reasoning: 'low' }, CTX));
    expect(sent()).not.toHaveProperty('thinking');
    expect(response.adapted?.join('\n')).toMatch(/reasoning not sent: this call continues a tool call/);
  });

  it('drops reasoning for a model that does not reason', async () => {
    server.enqueue(streamedTextReply('ok'));
    const response = await succeeds(provider(HAIKU_3).complete({ ...HELLO, reasoning: 'medium' }, CTX));
    expect(sent()).not.toHaveProperty('thinking');
    expect(response.adapted?.join('\n')).toMatch(/reasoning dropped/);
  });

  it('keeps temperature within Anthropic’s 0 to 1', async () => {
    server.enqueue(streamedTextReply('ok'));
    const response = await succeeds(provider().complete({ ...HELLO, temperature: 1.5 }, CTX));
    expect(sent().temperature).toBe(1);
    expect(response.adapted?.join('\n')).toMatch(/temperature clamped from 1.5 to 1/);
  });

  it.each([
    ['minimal', 8192, 64_000, { budget: 1024, maxTokens: 8192 }],
    ['medium', 8192, 64_000, { budget: 8192, maxTokens: 16_384 }],
    ['high', 4096, 8192, { budget: 4096, maxTokens: 8192 }],
    ['high', 1500, 1500, { budget: undefined, maxTokens: 1500 }],
  ] as const)(
    'plans thinking for %s with max_tokens %i and a %i output limit',
    (effort, max, limit, expected) => {
      const plan = planThinking(effort, max, limit);
      expect({ budget: plan.budget, maxTokens: plan.maxTokens }).toEqual(expected);
      if (plan.budget !== undefined) expect(plan.budget).toBeLessThan(plan.maxTokens);
    },
  );
});

describe('faults, classified', () => {
  it('429 with retry-after: rate_limit, retryable, with the wait', async () => {
    server.enqueue(errorReply('rate_limit', { retryAfterSeconds: 7 }));
    const error = await fails(provider().complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'rate_limit', retryable: true, status: 429, retryAfterMs: 7000 });
    expect(error.message).toMatch(/rate limit for your organization/);
  });

  it('500: a retryable provider error, left to the layer to retry (the SDK does not)', async () => {
    server.enqueue(errorReply('server'), streamedTextReply('not reached'));
    const error = await fails(provider().complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true, status: 500 });
    expect(error.message).toMatch(/Internal server error/);
    expect(server.requests).toHaveLength(1);
  });

  it.each([529, 503])('%i overloaded: a retryable provider error', async (status) => {
    server.enqueue(errorReply('overloaded', { status }));
    const error = await fails(provider().complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true, status });
    expect(error.message).toMatch(/Overloaded/);
  });

  it.each([true, false])('no answer within the timeout: timeout, retryable (stream %s)', async (stream) => {
    server.enqueue({ kind: 'hang' });
    const error = await fails(provider({}, { stream, timeoutMs: 300 }).complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'timeout', retryable: true });
    expect(error.message).toMatch(/within 300 ms/);
  });

  it('a stream that stalls after it started also times out', async () => {
    const first = streamEvents([{ type: 'text', text: 'never finished' }])[0]!;
    const stall = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: ${first.event}\ndata: ${JSON.stringify(first.data)}\n\n`);
    });
    await new Promise<void>((resolve) => stall.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(stall.address() as AddressInfo).port}`;
      const error = await fails(provider({}, { baseUrl, timeoutMs: 300 }).complete(HELLO, CTX));
      expect(error).toMatchObject({ type: 'timeout', retryable: true });
    } finally {
      stall.closeAllConnections();
      await new Promise((resolve) => stall.close(resolve));
    }
  });

  it('a stream cut off before message_stop: a retryable provider error', async () => {
    server.enqueue({ ...streamedTextReply('This answer will not arrive whole.'), cutAfter: 4 });
    const error = await fails(provider().complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
    expect(error.message).toMatch(/cut-off/);
  });

  it('an overloaded_error event mid-stream: a retryable provider error', async () => {
    server.enqueue(streamedErrorEvent());
    const error = await fails(provider().complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
    expect(error.message).toMatch(/overloaded_error/);
  });

  it.each([true, false])('malformed JSON: a retryable provider error (stream %s)', async (stream) => {
    server.enqueue({ kind: 'raw', status: 200, body: '{"type":"message","content":[{"type":"te' });
    const error = await fails(provider({}, { stream }).complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
  });

  it('401: auth, not retryable, naming the key variable', async () => {
    server.enqueue(errorReply('auth'));
    const error = await fails(provider().complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'auth', retryable: false, status: 401 });
    expect(error.message).toMatch(/invalid x-api-key/);
    expect(error.message).toMatch(/ANTHROPIC_API_KEY/);
  });

  it('prompt too long: context_overflow, not retryable', async () => {
    server.enqueue(errorReply('context_overflow'));
    const error = await fails(provider().complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'context_overflow', retryable: false, status: 400 });
    expect(error.message).toMatch(/prompt is too long: 208310 tokens > 200000 maximum/);
  });

  it('another 400: bad_request, not retryable', async () => {
    server.enqueue(errorReply('bad_request'));
    const error = await fails(provider().complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'bad_request', retryable: false, status: 400 });
  });

  it('connection refused: unreachable, retryable, naming the base URL', async () => {
    const closed = await startFakeServer();
    await closed.close();
    const error = await fails(provider({}, { baseUrl: closed.url }).complete(HELLO, CTX));
    expect(error).toMatchObject({ type: 'unreachable', retryable: true });
    expect(error.message).toContain(closed.url);
  });

  it('a call the caller cancels ends at once and is not retried', async () => {
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const pending = provider().complete(HELLO, CTX, controller.signal);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await fails(pending);
    expect(error).toMatchObject({ retryable: false });
    expect(error.message).toMatch(/cancelled/);
  });
});

describe('through withRetries', () => {
  const policy = { baseMs: 5, maxWaitMs: 50, totalMs: 5000 };

  it('retries a 429 and a 500, then returns the reply', async () => {
    server.enqueue(
      errorReply('rate_limit', { retryAfterSeconds: 0 }),
      errorReply('server'),
      streamedTextReply('third time lucky'),
    );
    const response = await succeeds(withRetries(provider(), { policy }).complete(HELLO, CTX));
    expect(response.message.content).toBe('third time lucky');
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a refused key', async () => {
    server.enqueue(errorReply('auth'), streamedTextReply('never sent'));
    const error = await fails(withRetries(provider(), { policy }).complete(HELLO, CTX));
    expect(error.type).toBe('auth');
    expect(server.requests).toHaveLength(1);
  });
});
