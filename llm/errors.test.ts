import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  classifyStatus,
  classifyThrown,
  type ErrorSource,
  isContextOverflow,
  parseRetryAfter,
  retryDelayFromBody,
} from './errors.ts';

const OPENAI: ErrorSource = {
  label: 'OpenAI',
  baseUrl: 'https://api.openai.com/v1',
  keyVariable: 'OPENAI_API_KEY',
};
const ANTHROPIC: ErrorSource = {
  label: 'Anthropic',
  baseUrl: 'https://api.anthropic.com',
  keyVariable: 'ANTHROPIC_API_KEY',
};
const GOOGLE: ErrorSource = {
  label: 'Google Gemini',
  baseUrl: 'https://generativelanguage.googleapis.com',
  keyVariable: 'GEMINI_API_KEY',
};
const LOCAL: ErrorSource = { label: 'local server', baseUrl: 'http://127.0.0.1:11434/v1' };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real HTTP server on loopback; its address. */
async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An address where nothing listens: a port that was just freed. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): RequestListener {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

async function thrownBy(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('the call did not fail');
}

const chat = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'hi' }] };
const openai = (baseURL: string, timeout?: number) =>
  new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0, ...(timeout ? { timeout } : {}) });
const claude = (baseURL: string) => new Anthropic({ apiKey: 'sk-ant-test', baseURL, maxRetries: 0 });
const claudeCall = (client: Anthropic) =>
  client.messages.create({ model: 'claude-3-haiku-20240307', max_tokens: 100, messages: chat.messages });
const gemini = (baseUrl: string, timeout?: number) =>
  new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl, ...(timeout ? { timeout } : {}) } });
const geminiCall = (client: GoogleGenAI) =>
  client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  it.each([
    [{ 'retry-after-ms': '1500' }, 1500],
    [{ 'retry-after-ms': '1500', 'retry-after': '9' }, 1500],
    [{ 'retry-after': '7' }, 7000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'Retry-After': '3' }, 3000],
    [{ 'retry-after': 'Mon, 30 Nov 2026 12:00:30 GMT' }, 30_000],
    [{ 'retry-after': 'Mon, 30 Nov 2026 11:59:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{ 'retry-after': '-4' }, undefined],
    [{ 'retry-after-ms': '', 'retry-after': '2' }, 2000],
    [{}, undefined],
  ])('reads %j as %s ms', (headers, expected) => {
    expect(parseRetryAfter(headers, now)).toBe(expected);
    expect(parseRetryAfter(new Headers(headers), now)).toBe(expected);
  });

  it('reads nothing from no headers', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('retryDelayFromBody', () => {
  it('reads Gemini’s RetryInfo and its "retry in" sentence', () => {
    expect(
      retryDelayFromBody('{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay": "33s"}'),
    ).toBe(33_000);
    expect(retryDelayFromBody('Quota exceeded for metric ... Please retry in 12.5s.')).toBe(12_500);
    expect(retryDelayFromBody('Rate limit reached')).toBeUndefined();
  });
});

describe('isContextOverflow', () => {
  it.each([
    [
      'OpenAI',
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
    ],
    [
      'OpenAI (older) and vLLM',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
    ],
    [
      'OpenAI Responses',
      'Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300000 tokens.',
    ],
    ['Anthropic', 'prompt is too long: 208310 tokens > 200000 maximum'],
    [
      'Anthropic, with max_tokens',
      'input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000, decrease input length or `max_tokens` and try again',
    ],
    ['Gemini', 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).'],
    ['ollama', 'the input length exceeds the context length'],
    ['llama.cpp', 'the request exceeds the available context size, try increasing it'],
    ['vLLM', 'The decoder prompt (length 5000) is longer than the maximum model length of 4096.'],
    ['LM Studio', 'Input length 6491 exceeds context length 1500'],
  ])('recognises %s', (_who, message) => {
    expect(isContextOverflow(message)).toBe(true);
  });

  it.each([
    'Invalid value for temperature',
    'Rate limit reached for gpt-4o',
    'messages: at least one message is required',
  ])('does not take "%s" for an overflow', (message) => {
    expect(isContextOverflow(message)).toBe(false);
  });
});

describe('classifyStatus', () => {
  it('calls 401 an auth error that is never retried and names the key variable', () => {
    const error = classifyStatus(401, 'Incorrect API key provided: sk-test.', OPENAI);
    expect(error).toMatchObject({ type: 'auth', retryable: false, status: 401 });
    expect(error.message).toBe(
      'OpenAI refused the API key (HTTP 401): Incorrect API key provided: sk-test. Check OPENAI_API_KEY (in the environment or in .env).',
    );
  });

  it('calls 403 an auth error about access', () => {
    const error = classifyStatus(403, 'Project does not have access to model o3', OPENAI);
    expect(error).toMatchObject({ type: 'auth', retryable: false });
    expect(error.message).toMatch(/denied access \(HTTP 403\).*Check OPENAI_API_KEY.*access to this model/);
  });

  it('tells a server without keys to check its configuration', () => {
    expect(classifyStatus(401, 'unauthorized', LOCAL).message).toMatch(/Check the server configuration\.$/);
  });

  it('calls a context overflow by that name, never retried, whatever 4xx it came with', () => {
    for (const status of [400, 413, 422]) {
      const error = classifyStatus(status, 'prompt is too long: 208310 tokens > 200000 maximum', ANTHROPIC);
      expect(error).toMatchObject({ type: 'context_overflow', retryable: false, status });
      expect(error.message).toMatch(
        /too long for the model's context window.*use a model with a larger context/,
      );
    }
  });

  it.each([
    [429, 'rate_limit', true, /is rate limiting \(HTTP 429\)/],
    [408, 'timeout', true, /timed out \(HTTP 408\)/],
    [409, 'provider_error', true, /failed \(HTTP 409\)/],
    [500, 'provider_error', true, /failed \(HTTP 500\)/],
    [502, 'provider_error', true, /failed \(HTTP 502\)/],
    [503, 'provider_error', true, /failed \(HTTP 503\)/],
    [529, 'provider_error', true, /failed \(HTTP 529, overloaded\)/],
    [400, 'bad_request', false, /rejected the request \(HTTP 400\)/],
    [402, 'bad_request', false, /billing reasons.*credit balance/],
    [
      404,
      'bad_request',
      false,
      /404 \(not found\).*Check the model name and the base URL https:\/\/api\.anthropic\.com/,
    ],
  ] as const)('calls HTTP %i %s (retried: %s)', (status, type, retryable, message) => {
    const error = classifyStatus(status, 'details from the provider', ANTHROPIC);
    expect(error).toMatchObject({ type, retryable, status });
    expect(error.message).toMatch(message);
    expect(error.message).toContain('details from the provider');
  });

  it('keeps the wait the provider asked for', () => {
    expect(classifyStatus(429, 'slow down', OPENAI, 2000)).toMatchObject({ retryAfterMs: 2000 });
    expect(classifyStatus(429, 'slow down', OPENAI)).not.toHaveProperty('retryAfterMs');
  });

  it('does not retry a 429 that says the quota is used up', () => {
    const error = classifyStatus(429, 'You exceeded your current quota (insufficient_quota)', OPENAI);
    expect(error).toMatchObject({ type: 'rate_limit', retryable: false });
    expect(error.message).toMatch(/Add credits/);
  });

  it('says "no details" for an empty body and shortens a long one', () => {
    expect(classifyStatus(500, '  ', OPENAI).message).toBe('OpenAI failed (HTTP 500): (no details)');
    expect(classifyStatus(500, 'x'.repeat(5000), OPENAI).message.length).toBeLessThan(600);
  });
});

describe('classifyThrown, with the errors the SDKs throw', () => {
  it('OpenAI: a rejected key', () => {
    const error = new OpenAI.AuthenticationError(
      401,
      {
        message: 'Incorrect API key provided: sk-test.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
      undefined,
      new Headers(),
    );
    expect(classifyThrown(error, OPENAI)).toMatchObject({
      type: 'auth',
      retryable: false,
      message: expect.stringContaining('Check OPENAI_API_KEY'),
    });
  });

  it('OpenAI: a rate limit with retry-after-ms, over real HTTP', async () => {
    const url = await serve(
      json(
        429,
        {
          error: {
            message: 'Rate limit reached for gpt-4o on requests per min (RPM)',
            type: 'requests',
            code: 'rate_limit_exceeded',
          },
        },
        { 'retry-after-ms': '1500' },
      ),
    );
    const thrown = await thrownBy(() => openai(url).chat.completions.create(chat));
    expect(thrown).toBeInstanceOf(OpenAI.RateLimitError);
    expect(classifyThrown(thrown, OPENAI)).toEqual({
      type: 'rate_limit',
      retryable: true,
      status: 429,
      retryAfterMs: 1500,
      message: 'OpenAI is rate limiting (HTTP 429): Rate limit reached for gpt-4o on requests per min (RPM)',
    });
  });

  it('OpenAI: a rate limit with an HTTP-date retry-after', () => {
    const when = new Date(Date.now() + 20_000).toUTCString();
    const error = new OpenAI.RateLimitError(
      429,
      { message: 'slow down' },
      undefined,
      new Headers({ 'retry-after': when }),
    );
    const classified = classifyThrown(error, OPENAI);
    expect(classified.retryAfterMs).toBeGreaterThan(15_000);
    expect(classified.retryAfterMs).toBeLessThanOrEqual(20_000);
  });

  it('OpenAI: a context overflow, over real HTTP', async () => {
    const url = await serve(
      json(400, {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      }),
    );
    const thrown = await thrownBy(() => openai(url).chat.completions.create(chat));
    expect(classifyThrown(thrown, OPENAI)).toMatchObject({
      type: 'context_overflow',
      retryable: false,
      status: 400,
    });
  });

  it('OpenAI: a used-up quota is not retried', () => {
    const error = OpenAI.APIError.generate(
      429,
      {
        error: {
          message: 'You exceeded your current quota, please check your plan and billing details.',
          type: 'insufficient_quota',
          code: 'insufficient_quota',
        },
      },
      undefined,
      new Headers(),
    );
    expect(classifyThrown(error, OPENAI)).toMatchObject({ type: 'rate_limit', retryable: false });
  });

  it('OpenAI: server errors are retried', () => {
    const error = OpenAI.APIError.generate(
      503,
      { error: { message: 'The server is overloaded' } },
      undefined,
      new Headers(),
    );
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(classifyThrown(error, OPENAI)).toMatchObject({
      type: 'provider_error',
      retryable: true,
      status: 503,
    });
  });

  it('OpenAI: a server that is not running, over a real closed port', async () => {
    const url = await closedPort();
    const thrown = await thrownBy(() => openai(url).chat.completions.create(chat));
    expect(thrown).toBeInstanceOf(OpenAI.APIConnectionError);
    const error = classifyThrown(thrown, { label: 'local server', baseUrl: url });
    expect(error).toMatchObject({ type: 'unreachable', retryable: true });
    expect(error.message).toBe(
      `could not reach local server at ${url} (ECONNREFUSED): Connection error. Check the base URL, that the server is running, and your network.`,
    );
  });

  it('OpenAI: a server that does not answer in time', async () => {
    const url = await serve(() => {});
    const thrown = await thrownBy(() => openai(url, 50).chat.completions.create(chat));
    expect(thrown).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(classifyThrown(thrown, OPENAI)).toMatchObject({
      type: 'timeout',
      retryable: true,
      message: expect.stringMatching(/^OpenAI did not answer in time: Request timed out\. It is retried/),
    });
  });

  it('OpenAI: a malformed body is retried', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "chatcmpl-1", "choi');
    });
    const thrown = await thrownBy(() => openai(url).chat.completions.create(chat));
    expect(thrown).toBeInstanceOf(SyntaxError);
    expect(classifyThrown(thrown, OPENAI)).toMatchObject({
      type: 'provider_error',
      retryable: true,
      message: expect.stringMatching(/^OpenAI sent a malformed response: /),
    });
  });

  it('OpenAI: a body cut off mid-way is retried', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"id": "chatcmpl-1",');
      setImmediate(() => res.destroy());
    });
    const thrown = await thrownBy(() => openai(url).chat.completions.create(chat));
    expect(classifyThrown(thrown, OPENAI)).toEqual({
      type: 'provider_error',
      retryable: true,
      message: 'OpenAI cut its response short: terminated',
    });
  });

  it('OpenAI: a call the caller cancelled is not retried', async () => {
    const url = await serve(() => {});
    const controller = new AbortController();
    const pending = thrownBy(() => openai(url).chat.completions.create(chat, { signal: controller.signal }));
    controller.abort();
    const thrown = await pending;
    expect(thrown).toBeInstanceOf(OpenAI.APIUserAbortError);
    expect(classifyThrown(thrown, OPENAI, controller.signal)).toEqual({
      type: 'internal',
      retryable: false,
      message: 'the call to OpenAI was cancelled',
    });
    expect(classifyThrown(thrown, OPENAI)).toMatchObject({ retryable: false });
  });

  it('Anthropic: a rate limit with retry-after in seconds', () => {
    const error = new Anthropic.RateLimitError(
      429,
      {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: 'Number of request tokens has exceeded your per-minute rate limit',
        },
      },
      undefined,
      new Headers({ 'retry-after': '7' }),
    );
    expect(classifyThrown(error, ANTHROPIC)).toEqual({
      type: 'rate_limit',
      retryable: true,
      status: 429,
      retryAfterMs: 7000,
      message:
        'Anthropic is rate limiting (HTTP 429): Number of request tokens has exceeded your per-minute rate limit (rate_limit_error)',
    });
  });

  it('Anthropic: 529 overloaded, over real HTTP, is retried', async () => {
    const url = await serve(
      json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    );
    const thrown = await thrownBy(() => claudeCall(claude(url)));
    expect(thrown).toBeInstanceOf(Anthropic.InternalServerError);
    expect(classifyThrown(thrown, ANTHROPIC)).toEqual({
      type: 'provider_error',
      retryable: true,
      status: 529,
      message: 'Anthropic failed (HTTP 529, overloaded): Overloaded (overloaded_error)',
    });
  });

  it('Anthropic: overloaded in the middle of a stream is retried', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      );
    });
    const thrown = await thrownBy(async () => {
      const stream = await claude(url).messages.create({
        model: 'claude-sonnet-4-5-20250929',
        max_tokens: 100,
        messages: chat.messages,
        stream: true,
      });
      for await (const _event of stream);
    });
    expect(thrown).toBeInstanceOf(Anthropic.APIError);
    expect(classifyThrown(thrown, ANTHROPIC)).toMatchObject({
      type: 'provider_error',
      retryable: true,
      status: 529,
    });
  });

  it('Anthropic: a prompt that is too long, over real HTTP, in Anthropic’s words', async () => {
    const url = await serve(
      json(400, {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 208310 tokens > 200000 maximum',
        },
      }),
    );
    const error = classifyThrown(await thrownBy(() => claudeCall(claude(url))), ANTHROPIC);
    expect(error).toMatchObject({ type: 'context_overflow', retryable: false });
    expect(error.message).toContain(
      '(Anthropic, HTTP 400): prompt is too long: 208310 tokens > 200000 maximum',
    );
    expect(error.message).not.toContain('{');
  });

  it('Anthropic: a rejected key names ANTHROPIC_API_KEY', async () => {
    const url = await serve(
      json(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }),
    );
    const error = classifyThrown(await thrownBy(() => claudeCall(claude(url))), ANTHROPIC);
    expect(error).toMatchObject({ type: 'auth', retryable: false });
    expect(error.message).toContain('Check ANTHROPIC_API_KEY');
  });

  it('Anthropic: a body cut off mid-way is retried', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"id": "msg_1",');
      setImmediate(() => res.destroy());
    });
    const error = classifyThrown(await thrownBy(() => claudeCall(claude(url))), ANTHROPIC);
    expect(error).toMatchObject({ type: 'provider_error', retryable: true });
  });

  it('Google: a rate limit waits as long as the body says, over real HTTP', async () => {
    const url = await serve(
      json(429, {
        error: {
          code: 429,
          message: 'You exceeded your current quota, please check your plan and billing details.',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '33s' }],
        },
      }),
    );
    const thrown = await thrownBy(() => geminiCall(gemini(url)));
    expect(thrown).toBeInstanceOf(ApiError);
    expect(classifyThrown(thrown, GOOGLE)).toEqual({
      type: 'rate_limit',
      retryable: true,
      status: 429,
      retryAfterMs: 33_000,
      message:
        'Google Gemini is rate limiting (HTTP 429): You exceeded your current quota, please check your plan and billing details (RESOURCE_EXHAUSTED)',
    });
  });

  it('Google: an input over the context window', () => {
    const error = new ApiError({
      status: 400,
      message: JSON.stringify({
        error: {
          code: 400,
          message: 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).',
          status: 'INVALID_ARGUMENT',
        },
      }),
    });
    expect(classifyThrown(error, GOOGLE)).toMatchObject({ type: 'context_overflow', retryable: false });
  });

  it('Google: a bad key comes as a 400 and is still an auth error naming GEMINI_API_KEY', async () => {
    const url = await serve(
      json(400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
        },
      }),
    );
    const error = classifyThrown(await thrownBy(() => geminiCall(gemini(url))), GOOGLE);
    expect(error).toMatchObject({ type: 'auth', retryable: false, status: 400 });
    expect(error.message).toContain('Check GEMINI_API_KEY');
  });

  it('Google: the SDK’s own timeout aborts the request, which is a timeout, not a cancel', async () => {
    const url = await serve(() => {});
    const thrown = await thrownBy(() => geminiCall(gemini(url, 50)));
    expect((thrown as Error).name).toBe('AbortError');
    expect(classifyThrown(thrown, GOOGLE)).toMatchObject({ type: 'timeout', retryable: true });
    const caller = new AbortController();
    caller.abort();
    expect(classifyThrown(thrown, GOOGLE, caller.signal)).toMatchObject({
      type: 'internal',
      retryable: false,
    });
  });

  it('Google: 503 unavailable is retried', () => {
    const error = new ApiError({
      status: 503,
      message:
        '{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}',
    });
    expect(classifyThrown(error, GOOGLE)).toMatchObject({
      type: 'provider_error',
      retryable: true,
      message:
        'Google Gemini failed (HTTP 503): The model is overloaded. Please try again later (UNAVAILABLE)',
    });
  });

  it('Node fetch: a refused connection is unreachable and retried', async () => {
    const url = await closedPort();
    const thrown = await thrownBy(() => fetch(url));
    expect(classifyThrown(thrown, LOCAL)).toMatchObject({
      type: 'unreachable',
      retryable: true,
      message: expect.stringContaining('(ECONNREFUSED): fetch failed'),
    });
  });

  it('anything else is a provider error that is not retried, with what was thrown', () => {
    expect(classifyThrown('boom', LOCAL)).toEqual({
      type: 'provider_error',
      retryable: false,
      message: 'local server call failed: boom',
    });
    expect(classifyThrown(undefined, LOCAL)).toMatchObject({
      retryable: false,
      message: 'local server call failed: undefined',
    });
  });
});
