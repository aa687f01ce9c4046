import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { classifyThrown, type ErrorSource, isContextOverflow } from '../errors.ts';
import { type ModelRecord, wireModelName } from '../model-record.ts';
import type { ModelProvider, ProviderError, ProviderResult } from '../provider.ts';
import type { ChatRequest } from '../types.ts';
import { type ChatReply, chatCompletionBody, readChunks, readCompletion } from './openai-wire.ts';
import { DEFAULT_TIMEOUT_MS, type ProviderOptions } from './options.ts';
import type { ProviderIdentity } from './provider-spec.ts';

export { RAW_ARGUMENTS_KEY } from './openai-wire.ts';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** Error codes (OpenAI) and types (llama.cpp `llama-server`) that mean the prompt is too long. */
const OVERFLOW_CODES = new Set(['context_length_exceeded', 'exceed_context_size_error']);
const LOCAL_CONTEXT_FIX =
  'Or start the server with a larger context (llama-server -c, ollama num_ctx, vLLM --max-model-len).';

export interface Source extends ErrorSource {
  /** A server of one's own that takes no key (ollama, llama.cpp, vLLM) rather than a hosted API. */
  local: boolean;
  /** The provider's name, the prefix of the model's id. */
  provider: string;
  /** The model name the server knows, for hints like `ollama pull <name>`. */
  modelName: string;
}

/**
 * OpenAI Chat Completions through the official SDK, for OpenAI's models and for every provider that speaks
 * its wire (servers of one's own such as ollama, llama.cpp `llama-server`, vLLM; OpenAI-compatible APIs).
 * Messages name the provider, its key variable and its API root as its `ProviderSpec` declares them. One attempt per call: the SDK's
 * retries are off (see `withRetries`). `opts.timeoutMs` bounds the whole attempt, streamed body included.
 *
 * Streaming (`opts.stream`) sends `stream_options: {include_usage: true}` so usage arrives in the last
 * chunk; a server that rejects `stream_options` should be used without streaming (the default). Servers
 * that report no usage get zeros.
 */
export function createOpenAIProvider(
  model: ModelRecord,
  opts: ProviderOptions,
  spec: ProviderIdentity,
): ModelProvider {
  const connection = connectOpenAI(model, opts, spec);
  if (!connection.ok) return { complete: async () => ({ ok: false, error: connection.error }) };
  const { client, source, timeoutMs } = connection;

  return {
    async complete(req: ChatRequest, _ctx, signal?: AbortSignal): Promise<ProviderResult> {
      const { body, adapted } = chatCompletionBody(model, req);
      const attempt = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        attempt.abort();
      }, timeoutMs);
      const cancel = () => attempt.abort();
      signal?.addEventListener('abort', cancel, { once: true });
      if (signal?.aborted) attempt.abort();
      const interrupted = (): ProviderError | undefined => {
        if (signal?.aborted) return classifyThrown(new Error('cancelled'), source, signal);
        if (timedOut) return timeoutError(source, timeoutMs);
        return undefined;
      };
      try {
        const reply = opts.stream
          ? await streamed(client, body, attempt.signal, source)
          : readCompletion(
              await client.chat.completions.create(body, { signal: attempt.signal }),
              source.label,
            );
        // The SDK ends a stream quietly when its signal aborts: a timeout or cancel must not pass as a reply.
        const stopped = interrupted();
        if (stopped) return { ok: false, error: stopped };
        return replyResult(reply, adapted, source);
      } catch (error) {
        return { ok: false, error: interrupted() ?? classify(error, source, signal) };
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancel);
      }
    },
  };
}

export interface OpenAIConnection {
  ok: true;
  client: OpenAI;
  source: Source;
  timeoutMs: number;
}

/**
 * The SDK client for `model` (its retries off, errors in OpenAI's shape), and what messages name of its
 * provider; without a key, the error every call answers with.
 */
export function connectOpenAI(
  model: ModelRecord,
  opts: ProviderOptions,
  spec: ProviderIdentity,
): OpenAIConnection | { ok: false; error: ProviderError } {
  const keyVariable = spec.keyVariables[0];
  const source: Source = {
    label: spec.label,
    baseUrl: opts.baseUrl ?? model.baseUrl ?? spec.defaultBaseUrl ?? OPENAI_BASE_URL,
    ...(keyVariable === undefined ? {} : { keyVariable }),
    local: keyVariable === undefined,
    provider: spec.name,
    modelName: wireModelName(model),
  };
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!opts.apiKey) {
    const message = `${model.id} needs an API key: set ${source.keyVariable ?? 'an API key'} in the environment or in a .env file in the current folder.`;
    return { ok: false, error: { type: 'auth', message, retryable: false } };
  }
  const client = new OpenAI({
    apiKey: opts.apiKey,
    baseURL: source.baseUrl,
    maxRetries: 0,
    timeout: timeoutMs,
    fetch: withOpenAIErrorShape(opts.fetch ?? globalThis.fetch),
  });
  return { ok: true, client, source, timeoutMs };
}

/** A completion read from the wire as the provider's result; `adapted` lists what was changed in the request. */
export function replyResult(reply: ChatReply, adapted: readonly string[], source: Source): ProviderResult {
  if (!reply.ok) return { ok: false, error: embeddedError(reply.error, source) };
  const notes = [...adapted, ...reply.notes];
  const { message, stopReason, usage, reportedModel } = reply;
  return {
    ok: true,
    response: {
      message,
      stopReason,
      usage,
      ...(notes.length ? { adapted: notes } : {}),
      ...(reportedModel === undefined ? {} : { reportedModel }),
    },
  };
}

async function streamed(
  client: OpenAI,
  body: ChatCompletionCreateParamsBase,
  signal: AbortSignal,
  source: Source,
): Promise<ChatReply> {
  const stream = await client.chat.completions.create(
    { ...body, stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  return readChunks(stream, source.label);
}

function timeoutError(source: Source, timeoutMs: number): ProviderError {
  const seconds = Number((timeoutMs / 1000).toFixed(1));
  const why = source.local ? 'the server may still be loading the model' : 'it may be overloaded';
  return {
    type: 'timeout',
    retryable: true,
    message: `${source.label} at ${source.baseUrl} did not finish answering within the per-attempt timeout of ${seconds} s (${why}).`,
  };
}

/** Anything the SDK call threw, as a `ProviderError`. */
export function classify(error: unknown, source: Source, signal?: AbortSignal): ProviderError {
  if (!(error instanceof APIError)) {
    // Thrown while reading the body: invalid JSON, the connection dropped mid-answer, or no finish_reason.
    const text = error instanceof Error ? error.message : String(error);
    const what =
      error instanceof SyntaxError
        ? `sent invalid JSON (${text})`
        : text === 'terminated'
          ? 'closed the connection before the reply was complete'
          : `sent a malformed or cut-off response: ${text}`;
    return { type: 'provider_error', retryable: true, message: `${source.label} ${what}` };
  }
  const isConnection = error instanceof APIConnectionError || error instanceof APIUserAbortError;
  if (error.status === undefined && !isConnection) return embeddedError(error.error, source);
  const classified = classifyThrown(error, source, signal);
  return source.local ? withLocalHints(classified, source) : classified;
}

/** What to do about a local server's failure: start it, pull the model, or give it a larger context. */
function withLocalHints(error: ProviderError, source: Source): ProviderError {
  if (error.type === 'unreachable')
    return { ...error, message: `${error.message} For ollama: start it with \`ollama serve\`.` };
  if (error.type === 'context_overflow')
    return { ...error, message: `${error.message} ${LOCAL_CONTEXT_FIX}` };
  if (error.status === 404 && /model/i.test(error.message))
    return {
      ...error,
      message: `${error.message} The server does not have the model "${source.modelName}": pull it first (for ollama: \`ollama pull ${source.modelName}\`) or fix the name after "${source.provider}/" in the model id.`,
    };
  return error;
}

/** The `error` member of an error body: OpenAI's `{message, type, code}` object, or a plain string. */
function describe(body: unknown): { detail: string; codes: string[] } {
  if (typeof body === 'string') return { detail: body, codes: [] };
  if (body === null || typeof body !== 'object') return { detail: 'no details', codes: [] };
  const { message, code, type } = body as { message?: unknown; code?: unknown; type?: unknown };
  const codes = [type, code].filter((c): c is string => typeof c === 'string');
  const text = typeof message === 'string' ? message : JSON.stringify(message ?? body);
  return { detail: codes.length > 0 ? `${text} (${codes[0]})` : text, codes };
}

/** An error sent inside a 200 answer: an SSE `error` event, or an `error` member instead of `choices`. */
export function embeddedError(body: unknown, source: Source): ProviderError {
  const { detail, codes } = describe(body);
  if (codes.some((c) => OVERFLOW_CODES.has(c)) || isContextOverflow(detail))
    return {
      type: 'context_overflow',
      retryable: false,
      message: `the conversation is too long for the model's context window (${source.label}): ${detail}. Shorten the conversation or use a model with a larger context window.${source.local ? ` ${LOCAL_CONTEXT_FIX}` : ''}`,
    };
  return {
    type: 'provider_error',
    retryable: true,
    message: `${source.label} answered with an error: ${detail}`,
  };
}

/**
 * vLLM and some other servers answer errors as a bare `{message, type, code}` object, without OpenAI's
 * `{error: ...}` envelope; the SDK would drop the message. This wraps such bodies in the envelope.
 */
function withOpenAIErrorShape(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status < 400) return response;
    const text = await response.text();
    let wrapped = text;
    try {
      const body: unknown = JSON.parse(text);
      if (body && typeof body === 'object' && !('error' in body) && 'message' in body)
        wrapped = JSON.stringify({ error: body });
    } catch {}
    // The body is now decoded text of another length.
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(wrapped, { status: response.status, statusText: response.statusText, headers });
  };
}
