import type { FakeStep, SseEvent } from './fake-server.ts';

/**
 * Fake-server steps in the real OpenAI Chat Completions wire format (and the error shapes of ollama,
 * llama.cpp `llama-server` and vLLM), for tests of the OpenAI provider and of `hyperagents chat`.
 */

/** Token counts as OpenAI reports them: `prompt` includes `cached` and `cacheWrite`, `completion` includes `reasoning`. */
export interface OpenAIUsage {
  prompt: number;
  completion: number;
  cached?: number;
  cacheWrite?: number;
  reasoning?: number;
}

export interface FakeToolCall {
  /** Defaults to `call_<n>` (1-based). */
  id?: string;
  name: string;
  /** An object (serialized as OpenAI does) or the raw `arguments` string, e.g. invalid JSON. */
  input: Record<string, unknown> | string;
}

export interface ReplyOptions {
  /** `null`: the server reports no usage at all (some local servers). */
  usage?: OpenAIUsage | null;
  model?: string;
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
}

const DEFAULT_USAGE: OpenAIUsage = { prompt: 12, completion: 5 };
const CREATED = 1_764_400_000;

/** The wire `usage` object. */
export function usageBody(u: OpenAIUsage) {
  return {
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    total_tokens: u.prompt + u.completion,
    prompt_tokens_details: {
      cached_tokens: u.cached ?? 0,
      audio_tokens: 0,
      ...(u.cacheWrite === undefined ? {} : { cache_write_tokens: u.cacheWrite }),
    },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function wireCalls(calls: FakeToolCall[]) {
  return calls.map((c, i) => ({
    id: c.id ?? `call_${i + 1}`,
    type: 'function' as const,
    function: { name: c.name, arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input) },
  }));
}

/** A `chat.completion` body. */
export function chatCompletion(
  message: { content: string | null; toolCalls?: FakeToolCall[] },
  opts: ReplyOptions = {},
) {
  const usage = opts.usage === undefined ? DEFAULT_USAGE : opts.usage;
  const calls = message.toolCalls ?? [];
  return {
    id: 'chatcmpl-fake0001',
    object: 'chat.completion',
    created: CREATED,
    model: opts.model ?? 'gpt-4o-2024-08-06',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: message.content,
          refusal: null,
          annotations: [],
          ...(calls.length > 0 ? { tool_calls: wireCalls(calls) } : {}),
        },
        logprobs: null,
        finish_reason: opts.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    ...(usage === null ? {} : { usage: usageBody(usage) }),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

export function textReply(text: string, opts: ReplyOptions = {}): FakeStep {
  return { kind: 'json', body: chatCompletion({ content: text }, opts) };
}

export function toolCallReply(calls: FakeToolCall[], opts: ReplyOptions & { text?: string } = {}): FakeStep {
  return { kind: 'json', body: chatCompletion({ content: opts.text ?? null, toolCalls: calls }, opts) };
}

function chunk(choices: unknown[], opts: ReplyOptions, usage: unknown = null) {
  return {
    id: 'chatcmpl-fake0001',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: opts.model ?? 'gpt-4o-2024-08-06',
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
    choices,
    ...(opts.usage === null ? {} : { usage }),
  };
}

function delta(d: Record<string, unknown>, finishReason: string | null = null) {
  return { index: 0, delta: d, logprobs: null, finish_reason: finishReason };
}

/** The tail every stream ends with: the finish chunk, the usage chunk (`include_usage`), `[DONE]`. */
function ending(finishReason: string, opts: ReplyOptions): SseEvent[] {
  const usage = opts.usage === undefined ? DEFAULT_USAGE : opts.usage;
  return [
    { data: chunk([delta({}, opts.finishReason ?? finishReason)], opts) },
    ...(usage === null ? [] : [{ data: chunk([], opts, usageBody(usage)) }]),
    { data: '[DONE]' },
  ];
}

/** The streamed form of `textReply`: the text in pieces of `pieceLength` characters. */
export function streamedTextReply(
  text: string,
  opts: ReplyOptions & { pieceLength?: number; cutAfter?: number } = {},
): FakeStep {
  const size = opts.pieceLength ?? 4;
  const pieces: SseEvent[] = [];
  for (let i = 0; i < text.length; i += size)
    pieces.push({ data: chunk([delta({ content: text.slice(i, i + size) })], opts) });
  const events = [
    { data: chunk([delta({ role: 'assistant', content: '', refusal: null })], opts) },
    ...pieces,
    ...ending('stop', opts),
  ];
  return { kind: 'sse', events, ...(opts.cutAfter === undefined ? {} : { cutAfter: opts.cutAfter }) };
}

/**
 * The streamed form of `toolCallReply`: each call opens with its id and name, then its arguments follow
 * in pieces of `pieceLength` characters; calls are interleaved as OpenAI does with parallel calls.
 */
export function streamedToolCallReply(
  calls: FakeToolCall[],
  opts: ReplyOptions & { pieceLength?: number; text?: string } = {},
): FakeStep {
  const size = opts.pieceLength ?? 5;
  const wire = wireCalls(calls);
  const events: SseEvent[] = [
    { data: chunk([delta({ role: 'assistant', content: opts.text ?? null })], opts) },
  ];
  wire.forEach((c, index) => {
    const opening = { index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } };
    events.push({ data: chunk([delta({ tool_calls: [opening] })], opts) });
  });
  const longest = Math.max(0, ...wire.map((c) => c.function.arguments.length));
  for (let i = 0; i < longest; i += size)
    wire.forEach((c, index) => {
      const piece = c.function.arguments.slice(i, i + size);
      if (piece)
        events.push({
          data: chunk([delta({ tool_calls: [{ index, function: { arguments: piece } }] })], opts),
        });
    });
  return { kind: 'sse', events: [...events, ...ending('tool_calls', opts)] };
}

export type OpenAIErrorKind =
  | 'auth'
  | 'context_overflow'
  | 'rate_limit'
  | 'insufficient_quota'
  | 'server_error'
  | 'overloaded'
  | 'model_not_found'
  | 'ollama_model_not_found'
  | 'llama_cpp_context_overflow'
  | 'vllm_context_overflow';

/**
 * An error answer as the server really sends it. Statuses: auth 401, context_overflow 400, rate_limit and
 * insufficient_quota 429 (rate_limit with `retry-after`, default 2 s), server_error 500, overloaded 503,
 * model_not_found 404; the local-server kinds use ollama's, llama.cpp's and vLLM's own bodies.
 */
export function errorReply(
  kind: OpenAIErrorKind,
  opts: { retryAfterSeconds?: number; model?: string } = {},
): FakeStep {
  const model = opts.model ?? 'gpt-4o';
  const openai = (
    status: number,
    message: string,
    type: string,
    code: string | null,
    param: string | null = null,
  ) => ({ kind: 'json', status, body: { error: { message, type, param, code } } }) as const;
  switch (kind) {
    case 'auth':
      return openai(
        401,
        'Incorrect API key provided: sk-test*****1234. You can find your API key at https://platform.openai.com/account/api-keys.',
        'invalid_request_error',
        'invalid_api_key',
      );
    case 'context_overflow':
      return openai(
        400,
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
        'invalid_request_error',
        'context_length_exceeded',
        'messages',
      );
    case 'rate_limit':
      return {
        ...openai(
          429,
          `Rate limit reached for ${model} in organization org-fake on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
          'tokens',
          'rate_limit_exceeded',
        ),
        headers: { 'retry-after': String(opts.retryAfterSeconds ?? 2) },
      };
    case 'insufficient_quota':
      return openai(
        429,
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
        'insufficient_quota',
        'insufficient_quota',
      );
    case 'server_error':
      return openai(
        500,
        'The server had an error while processing your request. Sorry about that!',
        'server_error',
        null,
      );
    case 'overloaded':
      return openai(
        503,
        'That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists.',
        'server_error',
        null,
      );
    case 'model_not_found':
      return openai(
        404,
        `The model \`${model}\` does not exist or you do not have access to it.`,
        'invalid_request_error',
        'model_not_found',
      );
    case 'ollama_model_not_found':
      return openai(404, `model "${model}" not found, try pulling it first`, 'api_error', null);
    case 'llama_cpp_context_overflow':
      return {
        kind: 'json',
        status: 400,
        body: {
          error: {
            code: 400,
            message:
              'request (9120 tokens) exceeds the available context size (8192 tokens), try increasing it',
            type: 'exceed_context_size_error',
            n_prompt_tokens: 9120,
            n_ctx: 8192,
          },
        },
      };
    case 'vllm_context_overflow':
      return {
        kind: 'json',
        status: 400,
        body: {
          object: 'error',
          message:
            "This model's maximum context length is 32768 tokens. However, you requested 41648 tokens (37552 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      };
  }
}

/** A server-sent error event in the middle of a stream, as OpenAI sends it. */
export function streamedError(message: string, type = 'server_error'): FakeStep {
  return {
    kind: 'sse',
    events: [
      { data: chunk([delta({ role: 'assistant', content: '' })], {}) },
      { data: chunk([delta({ content: 'Partial' })], {}) },
      { data: { error: { message, type, param: null, code: null } } },
    ],
  };
}
