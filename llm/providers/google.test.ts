import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ProviderResponse, ProviderResult } from '../provider.ts';
import { costUsd, type ModelRecord } from '../registry.ts';
import { withRetries } from '../retry.ts';
import {
  errorReply,
  streamedTextReply,
  streamedToolCallReply,
  textReply,
  toolCallReply,
} from '../testing/fake-google.ts';
import { type FakeServer, startFakeServer } from '../testing/fake-server.ts';
import { registeredModel } from '../testing/models.ts';
import type { CallContext, ChatRequest, Message } from '../types.ts';
import { createGoogleProvider } from './google.ts';
import { google } from './google-provider.ts';
import { PLACEHOLDER_THOUGHT_SIGNATURE } from './google-request.ts';
import type { ProviderOptions } from './options.ts';

const CTX: CallContext = { runId: 'run-1', variantId: 3, role: 'task' };

function testModel(overrides: Partial<ModelRecord> = {}): ModelRecord {
  return registeredModel('google/gemini-2.5-flash', overrides);
}

/** The parts of a generateContent request body the tests look at. */
interface GeminiBody {
  contents: { role: string; parts: Record<string, unknown>[] }[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: Record<string, unknown>[] }[];
  generationConfig: Record<string, unknown>;
}

let server: FakeServer;

beforeEach(async () => {
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

function provider(model = testModel(), opts: Partial<ProviderOptions> = {}) {
  return createGoogleProvider(
    model,
    { apiKey: 'test-key', baseUrl: server.url, timeoutMs: 5000, ...opts },
    google,
  );
}

function expectOk(result: ProviderResult): ProviderResponse {
  if (!result.ok) throw new Error(`expected a reply, got ${JSON.stringify(result.error)}`);
  return result.response;
}

function expectError(result: ProviderResult) {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.response)}`);
  return result.error;
}

function body(index: number): GeminiBody {
  return server.requests[index]!.body as GeminiBody;
}

const READ_FILE = {
  name: 'read_file',
  description: 'Reads a file of the task folder.',
  inputSchema: z.toJSONSchema(z.object({ path: z.string() })) as Record<string, unknown>,
};
const LIST_DIR = {
  name: 'list_dir',
  description: 'Lists a folder.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

describe('google provider: replies', () => {
  it('sends the system prompt, conversation, temperature and output cap, and returns the text', async () => {
    server.enqueue(textReply('Hello there.', { prompt: 20, candidates: 4 }));
    const res = expectOk(
      await provider().complete(
        {
          messages: [
            { role: 'system', content: 'Be terse.' },
            { role: 'user', content: 'Hi' },
          ],
          temperature: 0.2,
          maxTokens: 100,
        },
        CTX,
      ),
    );
    expect(res.message).toEqual({ content: 'Hello there.' });
    expect(res.stopReason).toBe('end');
    expect(res.usage).toEqual({ input: 20, output: 4, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    expect(res.adapted).toBeUndefined();
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(req?.headers['x-goog-api-key']).toBe('test-key');
    expect(req?.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      systemInstruction: { parts: [{ text: 'Be terse.' }] },
      generationConfig: { maxOutputTokens: 100, temperature: 0.2 },
    });
  });

  it('returns parallel tool calls with ids that pair with the results, and sends the tool schemas', async () => {
    server.enqueue(
      toolCallReply(
        [
          { name: 'read_file', args: { path: 'a.txt' } },
          { name: 'list_dir', args: { path: '.' } },
        ],
        { prompt: 50, candidates: 12 },
        { responseId: 'resp-1', text: 'Let me look.' },
      ),
    );
    const res = expectOk(
      await provider().complete(
        { messages: [{ role: 'user', content: 'What is in a.txt?' }], tools: [READ_FILE, LIST_DIR] },
        CTX,
      ),
    );
    expect(res.stopReason).toBe('tool_use');
    expect(res.message).toEqual({
      content: 'Let me look.',
      toolCalls: [
        { id: 'call_resp-1_1', name: 'read_file', input: { path: 'a.txt' } },
        { id: 'call_resp-1_2', name: 'list_dir', input: { path: '.' } },
      ],
    });
    const { $schema, ...readFileSchema } = READ_FILE.inputSchema;
    expect($schema).toBeDefined();
    expect(body(0).tools).toEqual([
      {
        functionDeclarations: [
          { name: 'read_file', description: READ_FILE.description, parametersJsonSchema: readFileSchema },
          { name: 'list_dir', description: LIST_DIR.description, parametersJsonSchema: LIST_DIR.inputSchema },
        ],
      },
    ]);
  });

  it('keeps an id Gemini gives a function call', async () => {
    server.enqueue(toolCallReply([{ id: 'fc-9', name: 'read_file', args: { path: 'b' } }]));
    const res = expectOk(await provider().complete({ messages: [{ role: 'user', content: 'go' }] }, CTX));
    expect(res.message.toolCalls?.[0]?.id).toBe('fc-9');
  });

  it('sends tool results back in one user turn of function responses, after the calls', async () => {
    server.enqueue(
      toolCallReply(
        [
          { name: 'read_file', args: { path: 'a.txt' } },
          { name: 'list_dir', args: { path: '.' } },
        ],
        undefined,
        { responseId: 'resp-1', text: 'Let me look.' },
      ),
      textReply('a.txt says hello.'),
    );
    const gemini = provider(testModel({ id: 'google/gemini-2.5-pro' }));
    const first: ChatRequest = {
      messages: [{ role: 'user', content: 'What is in a.txt?' }],
      tools: [READ_FILE, LIST_DIR],
    };
    const call = expectOk(await gemini.complete(first, CTX));
    const [read, list] = call.message.toolCalls!;
    const messages: Message[] = [
      ...first.messages,
      { role: 'assistant', content: call.message.content, toolCalls: call.message.toolCalls! },
      { role: 'tool', toolCallId: read!.id, name: read!.name, content: 'hello world' },
      { role: 'tool', toolCallId: list!.id, name: list!.name, content: '{"entries":["a.txt"]}' },
    ];
    const res = expectOk(await gemini.complete({ ...first, messages }, CTX));
    expect(res.message.content).toBe('a.txt says hello.');
    expect(server.requests[1]?.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    expect(body(1).contents).toEqual([
      { role: 'user', parts: [{ text: 'What is in a.txt?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me look.' },
          { functionCall: { name: 'read_file', args: { path: 'a.txt' } } },
          { functionCall: { name: 'list_dir', args: { path: '.' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'read_file', response: { result: 'hello world' } } },
          { functionResponse: { name: 'list_dir', response: { entries: ['a.txt'] } } },
        ],
      },
    ]);
    expect(body(1).tools?.[0]?.functionDeclarations).toHaveLength(2);
  });

  it("sends Gemini 3's thought signature back with the call it came with, through the tool-call id", async () => {
    const signature = 'CiQBjz1rX2tlc3Qtc2lnbmF0dXJlLW9uZQ==';
    server.enqueue(
      toolCallReply(
        [
          { name: 'read_file', args: { path: 'a.txt' }, thoughtSignature: signature },
          { name: 'list_dir', args: { path: '.' } },
        ],
        undefined,
        { model: 'gemini-3-pro-preview' },
      ),
      textReply('done'),
    );
    const gemini = provider(testModel({ id: 'google/gemini-3-pro-preview' }));
    const first: ChatRequest = {
      messages: [{ role: 'user', content: 'look' }],
      tools: [READ_FILE, LIST_DIR],
    };
    const call = expectOk(await gemini.complete(first, CTX));
    const [read, list] = call.message.toolCalls!;
    // A caller that keeps only the normalized messages (as JSON, over the gateway) still round-trips it.
    const messages = JSON.parse(
      JSON.stringify([
        ...first.messages,
        { role: 'assistant', content: '', toolCalls: call.message.toolCalls },
        { role: 'tool', toolCallId: read!.id, name: 'read_file', content: 'hello' },
        { role: 'tool', toolCallId: list!.id, name: 'list_dir', content: 'a.txt' },
      ]),
    ) as Message[];
    expectOk(await gemini.complete({ ...first, messages }, CTX));
    expect(server.requests[1]?.path).toBe('/v1beta/models/gemini-3-pro-preview:generateContent');
    expect(body(1).contents[1]).toEqual({
      role: 'model',
      parts: [
        { functionCall: { name: 'read_file', args: { path: 'a.txt' } }, thoughtSignature: signature },
        { functionCall: { name: 'list_dir', args: { path: '.' } } },
      ],
    });
  });

  it('gives Gemini 3 the placeholder signature for tool calls another model made, and says so', async () => {
    const messages: Message[] = [
      { role: 'user', content: 'look' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'toolu_01', name: 'read_file', input: { path: 'a' } }],
      },
      { role: 'tool', toolCallId: 'toolu_01', name: 'read_file', content: 'hello' },
    ];
    server.enqueue(textReply('ok'), textReply('ok'));
    const three = expectOk(
      await provider(testModel({ id: 'google/gemini-3-flash-preview' })).complete({ messages }, CTX),
    );
    expect(body(0).contents[1]?.parts).toEqual([
      {
        functionCall: { name: 'read_file', args: { path: 'a' } },
        thoughtSignature: PLACEHOLDER_THOUGHT_SIGNATURE,
      },
    ]);
    expect(three.adapted).toEqual([expect.stringMatching(/without a Gemini thought signature/)]);
    expectOk(await provider().complete({ messages }, CTX));
    expect(body(1).contents[1]?.parts).toEqual([
      { functionCall: { name: 'read_file', args: { path: 'a' } } },
    ]);
  });

  it('keeps the modelVersion Gemini said answered, streamed or not', async () => {
    const ask = { messages: [{ role: 'user' as const, content: 'Q?' }] };
    server.enqueue(textReply('a', undefined, { model: 'gemini-2.5-flash-preview-05-20' }));
    server.enqueue(streamedTextReply('b', undefined, { model: 'gemini-2.0-flash-001' }));
    expect(expectOk(await provider().complete(ask, CTX)).reportedModel).toBe(
      'gemini-2.5-flash-preview-05-20',
    );
    const streamed = expectOk(await provider(testModel(), { stream: true }).complete(ask, CTX));
    expect(streamed.reportedModel).toBe('gemini-2.0-flash-001');
  });

  it('streams a text reply from streamGenerateContent over SSE', async () => {
    server.enqueue(
      streamedTextReply('The answer is 42.', { prompt: 30, candidates: 6, thoughts: 10 }, { pieces: 4 }),
    );
    const res = expectOk(
      await provider(testModel(), { stream: true }).complete(
        { messages: [{ role: 'user', content: 'Q?' }] },
        CTX,
      ),
    );
    expect(server.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(server.requests[0]?.headers['x-goog-api-key']).toBe('test-key');
    expect(res.message).toEqual({ content: 'The answer is 42.' });
    expect(res.stopReason).toBe('end');
    expect(res.usage).toEqual({ input: 30, output: 16, cacheRead: 0, cacheWrite: 0, reasoning: 10 });
  });

  it('streams tool calls', async () => {
    server.enqueue(
      streamedToolCallReply(
        [
          { name: 'read_file', args: { path: 'a.txt' } },
          { name: 'list_dir', args: { path: '.' } },
        ],
        { prompt: 40, candidates: 9 },
        { text: 'Checking.', responseId: 'r7' },
      ),
    );
    const res = expectOk(
      await provider(testModel(), { stream: true }).complete(
        { messages: [{ role: 'user', content: 'look' }], tools: [READ_FILE, LIST_DIR] },
        CTX,
      ),
    );
    expect(res.stopReason).toBe('tool_use');
    expect(res.message).toEqual({
      content: 'Checking.',
      toolCalls: [
        { id: 'call_r7_1', name: 'read_file', input: { path: 'a.txt' } },
        { id: 'call_r7_2', name: 'list_dir', input: { path: '.' } },
      ],
    });
    expect(res.usage.output).toBe(9);
  });

  it('goes through an injected fetch, and takes a base URL that ends in the API version', async () => {
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    server.enqueue(textReply('hi'));
    const gemini = provider(testModel(), { fetch: counting, baseUrl: `${server.url}/v1beta` });
    expectOk(await gemini.complete({ messages: [{ role: 'user', content: 'hi' }] }, CTX));
    expect(calls).toBe(1);
    expect(server.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
  });
});

describe('google provider: usage, stop reasons and adaptation', () => {
  it('counts cached prompt tokens apart from input, and thoughts as output, so cost is a plain sum', async () => {
    server.enqueue(
      textReply('ok', {
        prompt: 10_000,
        cached: 6_000,
        candidates: 500,
        thoughts: 1_500,
        toolUsePrompt: 200,
      }),
    );
    const model = testModel();
    const res = expectOk(
      await provider(model).complete({ messages: [{ role: 'user', content: 'hi' }] }, CTX),
    );
    expect(res.usage).toEqual({
      input: 4_200,
      output: 2_000,
      cacheRead: 6_000,
      cacheWrite: 0,
      reasoning: 1_500,
    });
    // 4 200 × $0.30 + 2 000 × $2.50 + 6 000 × $0.03 per million tokens.
    expect(costUsd(model, res.usage)).toBeCloseTo(0.00644, 10);
  });

  it('maps MAX_TOKENS to length, and other stops to end with a note', async () => {
    server.enqueue(
      textReply('Once upon a', undefined, { finishReason: 'MAX_TOKENS' }),
      textReply('', undefined, { finishReason: 'SAFETY' }),
    );
    const gemini = provider();
    const cut = expectOk(await gemini.complete({ messages: [{ role: 'user', content: 'story' }] }, CTX));
    expect(cut.stopReason).toBe('length');
    expect(cut.message.content).toBe('Once upon a');
    const blocked = expectOk(await gemini.complete({ messages: [{ role: 'user', content: 'story' }] }, CTX));
    expect(blocked.stopReason).toBe('end');
    expect(blocked.adapted).toEqual([expect.stringMatching(/finishReason SAFETY: .*safety filter/)]);
  });

  it('drops what the model does not take, clamps the output cap, and sends effort as a thinking budget', async () => {
    server.enqueue(textReply('ok'));
    const model = testModel({ id: 'google/gemini-2.5-pro', temperature: false, maxOutput: 1000 });
    const res = expectOk(
      await provider(model).complete(
        { messages: [{ role: 'user', content: 'hi' }], temperature: 0.7, maxTokens: 4000, reasoning: 'high' },
        CTX,
      ),
    );
    expect(body(0).generationConfig).toEqual({
      maxOutputTokens: 1000,
      thinkingConfig: { thinkingBudget: 500 },
    });
    expect(res.adapted).toEqual([
      "maxTokens clamped from 4000 to 1000, google/gemini-2.5-pro's output limit",
      'temperature dropped: google/gemini-2.5-pro does not accept it',
      'reasoning high sent as thinkingBudget 500 (half of maxTokens 1000, leaving room for the answer)',
    ]);
  });

  it('sends effort as a thinking level to Gemini 3, within the levels the model has', async () => {
    server.enqueue(textReply('ok'), textReply('ok'));
    const pro = expectOk(
      await provider(
        testModel({ id: 'google/gemini-3-pro-preview', reasoningEfforts: ['low', 'high'] }),
      ).complete({ messages: [{ role: 'user', content: 'hi' }], reasoning: 'medium' }, CTX),
    );
    expect(body(0).generationConfig.thinkingConfig).toEqual({ thinkingLevel: 'HIGH' });
    expect(pro.adapted).toEqual([
      'reasoning medium sent as high: google/gemini-3-pro-preview takes low, high',
      'reasoning high sent as thinkingLevel HIGH',
    ]);
    expectOk(
      await provider(testModel({ id: 'google/gemini-3-flash-preview' })).complete(
        { messages: [{ role: 'user', content: 'hi' }], reasoning: 'minimal' },
        CTX,
      ),
    );
    expect(body(1).generationConfig.thinkingConfig).toEqual({ thinkingLevel: 'MINIMAL' });
  });

  it('sends no thinking config or tools to a model without reasoning or native tools', async () => {
    server.enqueue(textReply('ok'));
    const model = testModel({ id: 'google/gemini-2.0-flash', reasoning: false, nativeTools: false });
    const res = expectOk(
      await provider(model).complete(
        { messages: [{ role: 'user', content: 'hi' }], reasoning: 'low', tools: [READ_FILE] },
        CTX,
      ),
    );
    expect(body(0).generationConfig).toEqual({ maxOutputTokens: 8192 });
    expect(body(0).tools).toBeUndefined();
    expect(res.adapted).toEqual([
      'reasoning dropped: google/gemini-2.0-flash is not a reasoning model',
      expect.stringMatching(/^tools dropped: google\/gemini-2.0-flash has no native tool calling/),
    ]);
  });
});

const HI: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };

describe('google provider: faults', () => {
  it('429 RESOURCE_EXHAUSTED: rate_limit, retryable, waiting the retry delay from the body', async () => {
    server.enqueue(errorReply('rate_limit', { retryDelaySeconds: 7 }));
    const error = expectError(await provider().complete(HI, CTX));
    expect(error).toMatchObject({ type: 'rate_limit', retryable: true, status: 429, retryAfterMs: 7000 });
    expect(error.message).toMatch(/You exceeded your current quota.*RESOURCE_EXHAUSTED/);
  });

  it('500 INTERNAL and 503 UNAVAILABLE: provider_error, retryable', async () => {
    server.enqueue(errorReply('internal'), errorReply('overloaded'));
    const internal = expectError(await provider().complete(HI, CTX));
    expect(internal).toMatchObject({ type: 'provider_error', retryable: true, status: 500 });
    const overloaded = expectError(await provider().complete(HI, CTX));
    expect(overloaded).toMatchObject({ type: 'provider_error', retryable: true, status: 503 });
    expect(overloaded.message).toMatch(/The model is overloaded/);
  });

  it('a bad key (Google answers 400 API_KEY_INVALID) and 403: auth, not retryable, naming the variable', async () => {
    server.enqueue(errorReply('invalid_key'), errorReply('permission_denied'));
    const invalid = expectError(await provider().complete(HI, CTX));
    expect(invalid).toMatchObject({ type: 'auth', retryable: false, status: 400 });
    expect(invalid.message).toMatch(/API key not valid.*Check GEMINI_API_KEY/);
    const denied = expectError(await provider().complete(HI, CTX));
    expect(denied).toMatchObject({ type: 'auth', retryable: false, status: 403 });
    expect(denied.message).toMatch(/GEMINI_API_KEY/);
  });

  it('input token count over the limit: context_overflow, not retryable', async () => {
    server.enqueue(errorReply('context_overflow'));
    const error = expectError(await provider().complete(HI, CTX));
    expect(error).toMatchObject({ type: 'context_overflow', retryable: false, status: 400 });
    expect(error.message).toMatch(/input token count \(1200345\) exceeds the maximum/);
  });

  it('a server that does not answer in time: timeout, retryable', async () => {
    server.enqueue({ kind: 'hang' });
    const error = expectError(await provider(testModel(), { timeoutMs: 300 }).complete(HI, CTX));
    expect(error).toMatchObject({ type: 'timeout', retryable: true });
    expect(error.message).toMatch(/did not answer within 300 ms/);
  });

  it('malformed JSON: provider_error, retryable', async () => {
    server.enqueue({ kind: 'raw', status: 200, body: 'not json at all' });
    const error = expectError(await provider().complete(HI, CTX));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
    expect(error.message).toMatch(/malformed/);
  });

  it('a stream cut off mid-answer, or ending without a finish reason: provider_error, retryable', async () => {
    const full = streamedTextReply('A fairly long answer that never ends.', undefined, { pieces: 4 });
    server.enqueue({ ...full, cutAfter: 2 }, { ...full, events: full.events.slice(0, 2) });
    const streaming = provider(testModel(), { stream: true });
    const cut = expectError(await streaming.complete(HI, CTX));
    expect(cut).toMatchObject({ type: 'provider_error', retryable: true });
    expect(cut.message).toMatch(/cut its response short/);
    const unfinished = expectError(await streaming.complete(HI, CTX));
    expect(unfinished).toMatchObject({ type: 'provider_error', retryable: true });
    expect(unfinished.message).toMatch(/cut its response short/);
  });

  it('a broken stream is left to the layer to retry: the SDK does not resume it on its own', async () => {
    // A long answer's checkpoint: the SDK's automatic continuation would re-request from this token.
    const checkpoint = {
      candidates: [
        { content: { parts: [{ text: 'Part one' }], role: 'model' }, continuationToken: 'tok-1', index: 0 },
      ],
    };
    server.enqueue(
      { kind: 'sse', events: [{ data: checkpoint }, { data: checkpoint }], cutAfter: 1 },
      textReply('x'),
    );
    const error = expectError(await provider(testModel(), { stream: true }).complete(HI, CTX));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
    expect(error.message).toMatch(/cut its response short/);
    expect(server.requests).toHaveLength(1);
  });

  it('an error sent inside the stream is classified by its code', async () => {
    const full = streamedTextReply('Partial', undefined, { pieces: 1 });
    const overloaded = { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } };
    server.enqueue({ ...full, events: [{ data: overloaded }] });
    const error = expectError(await provider(testModel(), { stream: true }).complete(HI, CTX));
    expect(error).toMatchObject({ type: 'provider_error', retryable: true, status: 503 });
    expect(error.message).toMatch(/UNAVAILABLE.*The model is overloaded/);
  });

  it('a prompt Gemini blocks: bad_request, not retryable', async () => {
    server.enqueue({
      kind: 'json',
      body: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9 } },
    });
    const error = expectError(await provider().complete(HI, CTX));
    expect(error).toMatchObject({ type: 'bad_request', retryable: false });
    expect(error.message).toMatch(/blockReason PROHIBITED_CONTENT/);
  });

  it('a request of system messages only: bad_request, without calling Gemini', async () => {
    const error = expectError(
      await provider().complete({ messages: [{ role: 'system', content: 'x' }] }, CTX),
    );
    expect(error).toMatchObject({ type: 'bad_request', retryable: false });
    expect(error.message).toMatch(/at least one user message/);
    expect(server.requests).toHaveLength(0);
  });

  it('connection refused: unreachable, retryable, naming the base URL', async () => {
    const closed = await startFakeServer();
    await closed.close();
    const error = expectError(
      await createGoogleProvider(testModel(), { apiKey: 'k', baseUrl: closed.url }, google).complete(HI, CTX),
    );
    expect(error).toMatchObject({ type: 'unreachable', retryable: true });
    expect(error.message).toContain(closed.url);
  });

  it("stops when the caller's signal aborts", async () => {
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const pending = provider().complete(HI, CTX, controller.signal);
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const error = expectError(await pending);
    expect(error).toMatchObject({ type: 'internal', retryable: false });
    expect(error.message).toMatch(/cancelled/);
  });
});

describe('google provider: with the layer retries', () => {
  const policy = { baseMs: 5, maxWaitMs: 50, totalMs: 5000 };

  it('retries 429 and 500, then returns the reply', async () => {
    server.enqueue(
      errorReply('rate_limit', { retryDelaySeconds: 0 }),
      errorReply('internal'),
      textReply('third time'),
    );
    const res = expectOk(await withRetries(provider(), { policy }).complete(HI, CTX));
    expect(res.message.content).toBe('third time');
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a bad key', async () => {
    server.enqueue(errorReply('invalid_key'), textReply('never sent'));
    const error = expectError(await withRetries(provider(), { policy }).complete(HI, CTX));
    expect(error.type).toBe('auth');
    expect(server.requests).toHaveLength(1);
  });
});
