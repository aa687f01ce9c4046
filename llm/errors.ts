import type { ProviderError } from './provider.ts';

/** Who answered, for messages: `OpenAI at https://api.openai.com/v1`, and the variable that holds its key. */
export interface ErrorSource {
  label: string;
  baseUrl: string;
  /** e.g. `OPENAI_API_KEY`; omitted for servers that take no key. */
  keyVariable?: string;
}

/**
 * Context-overflow messages of the providers and of common OpenAI-compatible servers. A 400 that matches
 * one is not a bad request to retry or fix by hand: the conversation is too long.
 */
export const CONTEXT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /exceeds the context window/i,
  /maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /prompt is too long/i,
  /input token count.*exceeds the maximum/i,
  /too many tokens/i,
  /context window (is )?(exceeded|full)/i,
  /exceeds? (the )?(model'?s? )?(max(imum)? )?context/i,
  /request too large/i,
  /model_context_window_exceeded/i,
];

export function isContextOverflow(message: string): boolean {
  return CONTEXT_OVERFLOW_PATTERNS.some((p) => p.test(message));
}

type HeaderBag = Headers | Record<string, string | string[] | undefined> | undefined | null;

function header(headers: HeaderBag, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `retry-after-ms`, else `retry-after` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(headers: HeaderBag, now = Date.now()): number | undefined {
  const ms = Number(header(headers, 'retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && header(headers, 'retry-after-ms') !== undefined) return ms;
  const raw = header(headers, 'retry-after');
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Classifies an HTTP error answer of a provider. */
export function classifyStatus(
  status: number,
  detail: string,
  source: ErrorSource,
  retryAfterMs?: number,
): ProviderError {
  const text = detail.trim().slice(0, 500) || '(no details)';
  const base = { status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  if (status === 401 || status === 403) {
    const fix = source.keyVariable
      ? `Check ${source.keyVariable} (in the environment or .env).`
      : 'Check the server configuration.';
    return {
      ...base,
      type: 'auth',
      retryable: false,
      message: `${source.label} refused the API key (HTTP ${status}): ${text}. ${fix}`,
    };
  }
  if ((status === 400 || status === 413 || status === 422) && isContextOverflow(text)) {
    return {
      ...base,
      type: 'context_overflow',
      retryable: false,
      message: `the conversation is too long for the model's context window (${source.label}, HTTP ${status}): ${text}. Shorten the prompt or use a model with a larger context.`,
    };
  }
  if (status === 408)
    return {
      ...base,
      type: 'timeout',
      retryable: true,
      message: `${source.label} timed out (HTTP 408): ${text}`,
    };
  if (status === 429)
    return {
      ...base,
      type: 'rate_limit',
      retryable: true,
      message: `${source.label} is rate limiting (HTTP 429): ${text}`,
    };
  if (status === 409 || status >= 500)
    return {
      ...base,
      type: 'provider_error',
      retryable: true,
      message: `${source.label} failed (HTTP ${status}${status === 529 ? ', overloaded' : ''}): ${text}`,
    };
  if (status === 404)
    return {
      ...base,
      type: 'bad_request',
      retryable: false,
      message: `${source.label} answered 404 (not found): ${text}. Check the model name and the base URL ${source.baseUrl}.`,
    };
  return {
    ...base,
    type: 'bad_request',
    retryable: false,
    message: `${source.label} rejected the request (HTTP ${status}): ${text}`,
  };
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function causeCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Classifies anything an SDK call threw: HTTP errors (anything with a numeric `status`), timeouts, network
 * failures, and malformed or cut-off bodies. `signal` is the caller's: when it fired, the call was cancelled.
 */
export function classifyThrown(error: unknown, source: ErrorSource, signal?: AbortSignal): ProviderError {
  const e = error as { status?: unknown; headers?: HeaderBag; message?: unknown; name?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(error);
  const name = typeof e?.name === 'string' ? e.name : '';
  if (signal?.aborted)
    return { type: 'internal', retryable: false, message: `the call to ${source.label} was cancelled` };
  if (typeof e?.status === 'number' && e.status >= 400)
    return classifyStatus(e.status, message, source, parseRetryAfter(e.headers));
  if (/timeout|timed out/i.test(name) || /timed? ?out/i.test(message))
    return {
      type: 'timeout',
      retryable: true,
      message: `${source.label} did not answer in time: ${message}`,
    };
  const code = causeCode(error);
  if (code !== undefined || /connection error|fetch failed|socket hang up|network/i.test(message))
    return {
      type: 'unreachable',
      retryable: true,
      message: `could not reach ${source.label} at ${source.baseUrl}${code ? ` (${code})` : ''}: ${message}. Check the base URL and your network.`,
    };
  if (name === 'SyntaxError' || /JSON|unexpected end|premature close|terminated|aborted/i.test(message))
    return {
      type: 'provider_error',
      retryable: true,
      message: `${source.label} sent a malformed or cut-off response: ${message}`,
    };
  return { type: 'provider_error', retryable: false, message: `${source.label} call failed: ${message}` };
}
