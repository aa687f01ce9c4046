import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderError, ProviderResponse, ProviderResult } from '../provider.ts';
import { providerNamed } from '../provider-registry.ts';
import { costUsd, type ModelRecord } from '../registry.ts';
import { withRetries } from '../retry.ts';
import {
  errorReply,
  streamedError,
  streamedTextReply,
  streamedToolCallReply,
  textReply,
  toolCallReply,
} from '../testing/fake-openai.ts';
import { type FakeServer, startFakeServer } from '../testing/fake-server.ts';
import { registeredModel } from '../testing/models.ts';
import type { CallContext, ChatRequest } from '../types.ts';
import { createOpenAIProvider, RAW_ARGUMENTS_KEY } from './openai.ts';
import { openai } from './openai-provider.ts';
import type { ProviderOptions } from './options.ts';

const ctx: CallContext = { runId: 'run-1', variantId: 0, role: 'task' };

function testModel(overrides: Partial<ModelRecord> = {}): ModelRecord {
  return registeredModel('openai/gpt-4o', overrides);
}

const gpt4o = testModel();
const o3 = testModel({
  id: 'openai/o3',
  maxOutput: 100_000,
  price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
  temperature: false,
  reasoning: true,
  maxTokensField: 'max_completion_tokens',
  systemRole: 'developer',
});
const ollama = testModel({
  id: 'local/llama3.2',
  provider: 'local',
  price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
});

const hello: ChatRequest = { messages: [{ role: 'user', content: 'Say hello.' }] };

const readFile = {
  name: 'read_file',
  description: 'Read a file in the repository.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
};

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

function provider(model: ModelRecord = gpt4o, opts: Partial<ProviderOptions> = {}) {
  // The client of the provider the model is of (a local server's model names its own hints).
  const spec = providerNamed(model.provider) ?? openai;
  return createOpenAIProvider(model, { apiKey: 'sk-test', baseUrl: `${server.url}/v1`, ...opts }, spec);
}

function expectOk(result: ProviderResult): ProviderResponse {
  if (!result.ok) throw new Error(`expected a reply, got ${result.error.type}: ${result.error.message}`);
  return result.response;
}

function expectError(result: ProviderResult): ProviderError {
  if (result.ok) throw new Error(`expected an error, got the reply ${JSON.stringify(result.response)}`);
  return result.error;
}

/** The JSON body of the `n`th request the fake server received. */
function sent(n = 0): Record<string, unknown> {
  return server.requests[n]?.body as Record<string, unknown>;
}

describe('OpenAI provider: replies', () => {
  it('returns a text reply, with the request sent to /chat/completions with the key', async () => {
    server.enqueue(textReply('Hello there.', { usage: { prompt: 12, completion: 4 } }));
    const response = expectOk(await provider().complete(hello, ctx));
    expect(response).toEqual({
      message: { content: 'Hello there.' },
      stopReason: 'end',
      usage: { input: 12, output: 4, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      reportedModel: 'gpt-4o-2024-08-06',
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.method).toBe('POST');
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(sent()).toEqual({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 8192,
    });
  });

  it('returns tool calls with their ids and parsed arguments', async () => {
    server.enqueue(
      toolCallReply([
        { id: 'call_abc', name: 'read_file', input: { path: 'README.md' } },
        { id: 'call_def', name: 'read_file', input: { path: 'src/index.ts' } },
      ]),
    );
    const response = expectOk(await provider().complete({ ...hello, tools: [readFile] }, ctx));
    expect(response.stopReason).toBe('tool_use');
    expect(response.message).toEqual({
      content: '',
      toolCalls: [
        { id: 'call_abc', name: 'read_file', input: { path: 'README.md' } },
        { id: 'call_def', name: 'read_file', input: { path: 'src/index.ts' } },
      ],
    });
  });

  it('sends a conversation with tool calls and tool results in the OpenAI wire format', async () => {
    server.enqueue(textReply('The README says hi.'));
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What does the README say?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_abc', name: 'read_file', input: { path: 'README.md' } }],
        },
        { role: 'tool', toolCallId: 'call_abc', name: 'read_file', content: '# hi' },
      ],
      tools: [readFile],
      temperature: 0.2,
      maxTokens: 500,
    };
    const response = expectOk(await provider().complete(request, ctx));
    expect(response.message.content).toBe('The README says hi.');
    expect(sent()).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What does the README say?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_abc',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"README.md"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_abc', content: '# hi' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'read_file',
            description: readFile.description,
            parameters: readFile.inputSchema,
          },
        },
      ],
      temperature: 0.2,
      max_tokens: 500,
    });
  });

  it('keeps unparseable tool arguments under a key, and sends them back unchanged', async () => {
    server.enqueue(toolCallReply([{ id: 'call_bad', name: 'read_file', input: '{"path": "READ' }]));
    const first = expectOk(await provider().complete({ ...hello, tools: [readFile] }, ctx));
    const call = first.message.toolCalls?.[0];
    expect(call).toEqual({
      id: 'call_bad',
      name: 'read_file',
      input: { [RAW_ARGUMENTS_KEY]: '{"path": "READ' },
    });
    expect(first.adapted).toEqual([
      `tool call read_file (call_bad): arguments were not a JSON object; kept as ${RAW_ARGUMENTS_KEY}`,
    ]);

    server.enqueue(textReply('ok'));
    const messages: ChatRequest['messages'] = [
      ...hello.messages,
      { role: 'assistant', content: '', toolCalls: call ? [call] : [] },
      { role: 'tool', toolCallId: 'call_bad', name: 'read_file', content: 'Error: invalid input' },
    ];
    expectOk(await provider().complete({ messages, tools: [readFile] }, ctx));
    const replayed = (sent(1).messages as { tool_calls?: { function: { arguments: string } }[] }[])[1];
    expect(replayed?.tool_calls?.[0]?.function.arguments).toBe('{"path": "READ');
  });

  it('reads empty and double-encoded tool arguments as objects', async () => {
    server.enqueue(
      toolCallReply([
        { id: 'call_1', name: 'list_files', input: '' },
        { id: 'call_2', name: 'read_file', input: JSON.stringify(JSON.stringify({ path: 'a.txt' })) },
      ]),
    );
    const response = expectOk(await provider().complete(hello, ctx));
    expect(response.message.toolCalls?.map((c) => c.input)).toEqual([{}, { path: 'a.txt' }]);
    expect(response.adapted).toBeUndefined();
  });

  it('reports tool_use when a local server answers tool calls with finish_reason stop', async () => {
    server.enqueue(
      toolCallReply([{ id: 'call_x', name: 'read_file', input: { path: 'a' } }], { finishReason: 'stop' }),
    );
    const response = expectOk(await provider(ollama).complete({ ...hello, tools: [readFile] }, ctx));
    expect(response.stopReason).toBe('tool_use');
  });

  it('maps finish_reason length to length, and notes a content filter stop', async () => {
    server.enqueue(textReply('Once upon a', { finishReason: 'length' }));
    expect(expectOk(await provider().complete(hello, ctx)).stopReason).toBe('length');

    server.enqueue(textReply('', { finishReason: 'content_filter' }));
    const filtered = expectOk(await provider().complete(hello, ctx));
    expect(filtered.stopReason).toBe('end');
    expect(filtered.adapted).toEqual([
      'OpenAI stopped the reply with its content filter (finish_reason content_filter)',
    ]);
  });
});

describe('OpenAI provider: streaming', () => {
  it('streams a text reply with include_usage and assembles text and usage', async () => {
    server.enqueue(
      streamedTextReply('Hello from a stream.', { usage: { prompt: 30, completion: 6, cached: 10 } }),
    );
    const response = expectOk(await provider(gpt4o, { stream: true }).complete(hello, ctx));
    expect(response).toEqual({
      message: { content: 'Hello from a stream.' },
      stopReason: 'end',
      usage: { input: 20, output: 6, cacheRead: 10, cacheWrite: 0, reasoning: 0 },
      reportedModel: 'gpt-4o-2024-08-06',
    });
    expect(sent()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('keeps the model the server said answered, streamed or not, and none when it names none', async () => {
    server.enqueue(textReply('a', { model: 'gpt-4o-2024-11-20' }));
    server.enqueue(streamedTextReply('b', { model: 'gpt-4o-2024-05-13' }));
    server.enqueue(textReply('c', { model: '' }));
    expect(expectOk(await provider().complete(hello, ctx)).reportedModel).toBe('gpt-4o-2024-11-20');
    const streamed = expectOk(await provider(gpt4o, { stream: true }).complete(hello, ctx));
    expect(streamed.reportedModel).toBe('gpt-4o-2024-05-13');
    expect(expectOk(await provider().complete(hello, ctx))).not.toHaveProperty('reportedModel');
  });

  it('assembles parallel tool calls from interleaved argument deltas', async () => {
    server.enqueue(
      streamedToolCallReply([
        { id: 'call_1', name: 'read_file', input: { path: 'docs/a-long-file-name.md' } },
        { id: 'call_2', name: 'read_file', input: { path: 'b.md' } },
      ]),
    );
    const response = expectOk(
      await provider(gpt4o, { stream: true }).complete({ ...hello, tools: [readFile] }, ctx),
    );
    expect(response.stopReason).toBe('tool_use');
    expect(response.message.toolCalls).toEqual([
      { id: 'call_1', name: 'read_file', input: { path: 'docs/a-long-file-name.md' } },
      { id: 'call_2', name: 'read_file', input: { path: 'b.md' } },
    ]);
  });

  it('does not stream unless asked', async () => {
    server.enqueue(textReply('plain'));
    expectOk(await provider().complete(hello, ctx));
    expect(sent()).not.toHaveProperty('stream');
    expect(sent()).not.toHaveProperty('stream_options');
  });
});

describe('OpenAI provider: usage and cost', () => {
  const usage = { prompt: 10_000, completion: 2_000, cached: 6_000, cacheWrite: 1_000, reasoning: 1_500 };
  const expected = { input: 3_000, output: 2_000, cacheRead: 6_000, cacheWrite: 1_000, reasoning: 1_500 };

  it('takes cached tokens and cache writes out of input, and keeps reasoning inside output', async () => {
    server.enqueue(textReply('x', { usage }), streamedTextReply('x', { usage }));
    const single = expectOk(await provider(o3).complete(hello, ctx));
    const streamed = expectOk(await provider(o3, { stream: true }).complete(hello, ctx));
    expect(single.usage).toEqual(expected);
    expect(streamed.usage).toEqual(expected);
    // o3 at $2 in, $8 out, $0.50 cache read: 3000*2 + 2000*8 + 6000*0.5 = 25000 micro-dollars.
    expect(costUsd(o3, single.usage)).toBeCloseTo(0.025, 10);
  });

  it('reports zero usage when a local server sends none', async () => {
    server.enqueue(textReply('hi', { usage: null }), streamedTextReply('hi', { usage: null }));
    const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    expect(expectOk(await provider(ollama).complete(hello, ctx)).usage).toEqual(zero);
    expect(expectOk(await provider(ollama, { stream: true }).complete(hello, ctx)).usage).toEqual(zero);
  });
});

describe('OpenAI provider: adapted parameters', () => {
  const request: ChatRequest = {
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
    temperature: 0.7,
    maxTokens: 1000,
    reasoning: 'low',
  };

  it('sends an o3-like model no temperature, max_completion_tokens, a developer message and reasoning_effort', async () => {
    server.enqueue(textReply('hi'));
    const response = expectOk(await provider(o3).complete(request, ctx));
    expect(sent()).toEqual({
      model: 'o3',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_completion_tokens: 1000,
      reasoning_effort: 'low',
    });
    expect(response.adapted).toEqual([
      'temperature dropped: openai/o3 does not accept it',
      'maxTokens sent as max_completion_tokens',
      'system prompt sent with role developer',
    ]);
  });

  it('sends a gpt-4o-like model temperature, max_tokens and a system message', async () => {
    server.enqueue(textReply('hi'));
    const response = expectOk(await provider(gpt4o).complete(request, ctx));
    expect(sent()).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_tokens: 1000,
      temperature: 0.7,
    });
    expect(response.adapted).toEqual(['reasoning dropped: openai/gpt-4o is not a reasoning model']);
  });

  it('sends the registry apiName as the model', async () => {
    server.enqueue(textReply('hi'));
    expectOk(
      await provider(testModel({ id: 'openai/gpt-5.2', apiName: 'gpt-5.2-2025-12-11' })).complete(hello, ctx),
    );
    expect(sent().model).toBe('gpt-5.2-2025-12-11');
  });
});

describe('OpenAI provider: faults', () => {
  it('429 with retry-after is a retryable rate limit with the wait', async () => {
    server.enqueue(errorReply('rate_limit', { retryAfterSeconds: 2 }));
    const error = expectError(await provider().complete(hello, ctx));
    expect(error).toMatchObject({ type: 'rate_limit', retryable: true, status: 429, retryAfterMs: 2000 });
    expect(error.message).toContain('Rate limit reached for gpt-4o');
  });

  it('429 for an exhausted quota is not retried and says so', async () => {
    server.enqueue(errorReply('insufficient_quota'));
    const error = expectError(await provider().complete(hello, ctx));
    expect(error).toMatchObject({ type: 'rate_limit', retryable: false, status: 429 });
    expect(error.message).toMatch(/quota is used up.*waiting will not help/);
  });

  it('500 and 503 overloaded are retryable provider errors', async () => {
    server.enqueue(errorReply('server_error'), errorReply('overloaded'));
    const e500 = expectError(await provider().complete(hello, ctx));
    expect(e500).toMatchObject({ type: 'provider_error', retryable: true, status: 500 });
    expect(e500.message).toContain('The server had an error');
    const e503 = expectError(await provider().complete(hello, ctx));
    expect(e503).toMatchObject({ type: 'provider_error', retryable: true, status: 503 });
    expect(e503.message).toContain('currently overloaded');
  });

  it('a server that does not answer in time is a retryable timeout', async () => {
    server.enqueue({ kind: 'hang' }, { kind: 'hang' });
    const single = expectError(await provider(gpt4o, { timeoutMs: 300 }).complete(hello, ctx));
    expect(single).toMatchObject({ type: 'timeout', retryable: true });
    expect(single.message).toContain('0.3 s');
    const streamed = expectError(
      await provider(gpt4o, { timeoutMs: 300, stream: true }).complete(hello, ctx),
    );
    expect(streamed).toMatchObject({ type: 'timeout', retryable: true });
  });

  it('a stream cut off before it finished is a retryable provider error', async () => {
    server.enqueue(streamedTextReply('This reply will never finish.', { cutAfter: 3 }));
    const error = expectError(await provider(gpt4o, { stream: true }).complete(hello, ctx));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
    expect(error.message).toContain('closed the connection before the reply was complete');
  });

  it('a stream that ends without a finish_reason is a retryable provider error', async () => {
    const full = streamedTextReply('Never finished.');
    if (full.kind !== 'sse') throw new Error('expected an SSE step');
    server.enqueue({ kind: 'sse', events: full.events.slice(0, 3) });
    const error = expectError(await provider(gpt4o, { stream: true }).complete(hello, ctx));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
    expect(error.message).toContain('no finish_reason');
  });

  it('the per-attempt timeout also covers a stream that stalls midway', async () => {
    const first = streamedTextReply('Hello');
    if (first.kind !== 'sse') throw new Error('expected an SSE step');
    const stalled = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(first.events[1]?.data)}\n\n`);
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const { port } = stalled.address() as AddressInfo;
    try {
      const baseUrl = `http://127.0.0.1:${port}/v1`;
      const error = expectError(
        await provider(gpt4o, { baseUrl, stream: true, timeoutMs: 300 }).complete(hello, ctx),
      );
      expect(error).toMatchObject({ type: 'timeout', retryable: true });
    } finally {
      stalled.closeAllConnections();
      await new Promise<void>((resolve) => stalled.close(() => resolve()));
    }
  });

  it('an error event inside a stream is a retryable provider error', async () => {
    server.enqueue(streamedError('The server had an error while processing your request.'));
    const error = expectError(await provider(gpt4o, { stream: true }).complete(hello, ctx));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
    expect(error.message).toContain('The server had an error');
  });

  it('malformed JSON, or a body that is not a completion, is a retryable provider error', async () => {
    server.enqueue(
      { kind: 'raw', status: 200, body: '{"id": "chatcmpl-1", "choices": [' },
      {
        kind: 'raw',
        status: 200,
        body: '<html>Bad gateway</html>',
        headers: { 'content-type': 'text/html' },
      },
    );
    const truncated = expectError(await provider().complete(hello, ctx));
    expect(truncated).toMatchObject({ type: 'provider_error', retryable: true });
    expect(truncated.message).toContain('invalid JSON');
    const html = expectError(await provider().complete(hello, ctx));
    expect(html).toMatchObject({ type: 'provider_error', retryable: true });
    expect(html.message).toContain('<html>Bad gateway</html>');
  });

  it('401 is an auth error, not retryable, naming OPENAI_API_KEY', async () => {
    server.enqueue(errorReply('auth'));
    const error = expectError(await provider().complete(hello, ctx));
    expect(error).toMatchObject({ type: 'auth', retryable: false, status: 401 });
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).toContain('OPENAI_API_KEY');
  });

  it('an empty API key is an auth error before any request', async () => {
    const error = expectError(await provider(gpt4o, { apiKey: '' }).complete(hello, ctx));
    expect(error).toMatchObject({ type: 'auth', retryable: false });
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(server.requests).toHaveLength(0);
  });

  it('context overflow is classified and not retryable (OpenAI, llama.cpp, vLLM)', async () => {
    server.enqueue(
      errorReply('context_overflow'),
      errorReply('llama_cpp_context_overflow'),
      errorReply('vllm_context_overflow'),
    );
    const openai = expectError(await provider().complete(hello, ctx));
    expect(openai).toMatchObject({ type: 'context_overflow', retryable: false, status: 400 });
    expect(openai.message).toContain('maximum context length is 128000 tokens');
    const llamaCpp = expectError(await provider(ollama).complete(hello, ctx));
    expect(llamaCpp).toMatchObject({ type: 'context_overflow', retryable: false });
    expect(llamaCpp.message).toContain('exceeds the available context size');
    expect(llamaCpp.message).toContain('larger context');
    const vllm = expectError(await provider(ollama).complete(hello, ctx));
    expect(vllm).toMatchObject({ type: 'context_overflow', retryable: false });
    expect(vllm.message).toContain('maximum context length is 32768 tokens');
  });

  it("ollama's model-not-found tells the user to pull the model", async () => {
    server.enqueue(errorReply('ollama_model_not_found', { model: 'llama3.2' }));
    const error = expectError(await provider(ollama).complete(hello, ctx));
    expect(error).toMatchObject({ type: 'bad_request', retryable: false, status: 404 });
    expect(error.message).toContain('model "llama3.2" not found');
    expect(error.message).toContain('ollama pull llama3.2');
  });

  it('an unknown OpenAI model says to check the model name', async () => {
    server.enqueue(errorReply('model_not_found', { model: 'gpt-4o' }));
    const error = expectError(await provider().complete(hello, ctx));
    expect(error).toMatchObject({ type: 'bad_request', retryable: false, status: 404 });
    expect(error.message).toMatch(/does not exist.*Check the model name/);
  });

  it('a refused connection is unreachable, naming the base URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    const error = expectError(await provider(ollama, { baseUrl }).complete(hello, ctx));
    expect(error).toMatchObject({ type: 'unreachable', retryable: true });
    expect(error.message).toContain(baseUrl);
    expect(error.message).toContain('ollama serve');
  });

  it('a call cancelled by the caller stops at once and is not retried', async () => {
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const retrying = withRetries(provider(), { policy: { baseMs: 5, maxWaitMs: 50, totalMs: 5000 } });
    const pending = retrying.complete(hello, ctx, controller.signal);
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const error = expectError(await pending);
    expect(error.message).toContain('cancelled');
    expect(server.requests).toHaveLength(1);
  });

  it('a call whose signal has already fired sends nothing', async () => {
    const error = expectError(await provider().complete(hello, ctx, AbortSignal.abort()));
    expect(error).toMatchObject({ type: 'internal', retryable: false });
    expect(error.message).toContain('cancelled');
    expect(server.requests).toHaveLength(0);
  });
});

describe('OpenAI provider: retries and plumbing', () => {
  const policy = { baseMs: 5, maxWaitMs: 50, totalMs: 5000 };

  it('withRetries gets through a 429 and a 500 to the reply', async () => {
    server.enqueue(
      errorReply('rate_limit', { retryAfterSeconds: 0 }),
      errorReply('server_error'),
      textReply('third time'),
    );
    const response = expectOk(await withRetries(provider(), { policy }).complete(hello, ctx));
    expect(response.message.content).toBe('third time');
    expect(server.requests).toHaveLength(3);
  });

  it('withRetries does not retry a 401', async () => {
    server.enqueue(errorReply('auth'), textReply('never sent'));
    const error = expectError(await withRetries(provider(), { policy }).complete(hello, ctx));
    expect(error.type).toBe('auth');
    expect(server.requests).toHaveLength(1);
  });

  it('uses the injected fetch', async () => {
    const seen: string[] = [];
    const recording: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    server.enqueue(textReply('via injected fetch'));
    const response = expectOk(await provider(gpt4o, { fetch: recording }).complete(hello, ctx));
    expect(response.message.content).toBe('via injected fetch');
    expect(seen).toEqual([`${server.url}/v1/chat/completions`]);
  });
});
