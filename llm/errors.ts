import type { ProviderError } from './provider.ts';

/** Who answered, for messages: `OpenAI at https://api.openai.com/v1`, and the variable that holds its key. */
export interface ErrorSource {
  label: string;
  baseUrl: string;
  /** e.g. `OPENAI_API_KEY`; omitted for servers that take no key. */
  keyVariable?: string;
}

/**
 * Context-overflow messages of the providers and of common OpenAI-compatible servers. An error answer that
 * matches one is not worth retrying or fixing by hand: the conversation is too long for the model.
 */
export const CONTEXT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /exceeds the context window/i, // OpenAI: "Your input exceeds the context window of this model"
  /maximum context length/i, // OpenAI (older), vLLM, OpenRouter: "This model's maximum context length is N tokens"
  /context[_ ]length[_ ]exceeded/i, // OpenAI error code
  /input tokens exceed the configured limit/i, // OpenAI Responses
  /prompt is too long/i, // Anthropic: "prompt is too long: N tokens > M maximum"
  /exceed context limit/i, // Anthropic: "input length and `max_tokens` exceed context limit: N + M > L"
  /model_context_window_exceeded/i, // Anthropic stop reason
  /input token count.*exceeds the maximum/i, // Gemini: "The input token count (N) exceeds the maximum number of tokens allowed (M)"
  /exceeds the available context size/i, // llama.cpp llama-server
  /exceed_context_size/i, // llama.cpp error type
  /longer than the maximum model length/i, // vLLM: "The decoder prompt (length N) is longer than the maximum model length of M"
  /exceeds? (the )?context length/i, // ollama: "the input length exceeds the context length"; LM Studio
  /greater than the context length/i, // LM Studio
  /context window (is )?(exceeded|full)/i,
  /too many tokens/i,
  /token limit exceeded/i,
];

export function isContextOverflow(message: string): boolean {
  return CONTEXT_OVERFLOW_PATTERNS.some((p) => p.test(message));
}

type HeaderBag = Headers | Record<string, string | string[] | undefined> | undefined | null;

function header(headers: HeaderBag, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value =
    key === undefined ? undefined : (headers as Record<string, string | string[] | undefined>)[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * How long the provider asked us to wait, in ms: `retry-after-ms`, else `retry-after` as seconds or an HTTP
 * date (relative to `now`); undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: HeaderBag, now = Date.now()): number | undefined {
  const rawMs = header(headers, 'retry-after-ms');
  const ms = rawMs === undefined || rawMs.trim() === '' ? Number.NaN : Number(rawMs);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = header(headers, 'retry-after')?.trim();
  if (raw === undefined || raw === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Gemini says how long to wait in the body (`"retryDelay": "33s"`, "Please retry in 33.5s."), in ms. */
export function retryDelayFromBody(detail: string): number | undefined {
  const match =
    /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(detail) ?? /retry in (\d+(?:\.\d+)?)\s*s\b/i.exec(detail);
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

/** A provider's answer `detail`, trimmed to a readable length and without a closing period. */
function clip(detail: string): string {
  const text = detail.trim().replace(/\s+/g, ' ');
  if (text === '') return '(no details)';
  return (text.length > 500 ? `${text.slice(0, 500)}…` : text).replace(/\.$/, '');
}

/** What a rule of `STATUS_RULES` is given: the answer's status, its clipped detail, and who answered. */
interface StatusAnswer {
  status: number;
  text: string;
  source: ErrorSource;
  keyFix: string;
}

/** One kind of HTTP error answer: when it applies, its type, whether a retry can help, and what it says. */
interface StatusRule {
  when(answer: StatusAnswer): boolean;
  type: ProviderError['type'];
  retryable: boolean;
  message(answer: StatusAnswer): string;
}

/** The kinds of HTTP error answer, first match wins; the last applies to every answer. A data table. */
const STATUS_RULES: readonly StatusRule[] = [
  {
    // Gemini answers a bad key with 400 INVALID_ARGUMENT / API_KEY_INVALID.
    when: ({ status, text }) =>
      status === 401 || (status === 400 && /API[_ ]key[_ ](not valid|invalid|expired)/i.test(text)),
    type: 'auth',
    retryable: false,
    message: ({ status, text, source, keyFix }) =>
      `${source.label} refused the API key (HTTP ${status}): ${text}. ${keyFix}`,
  },
  {
    when: ({ status }) => status === 403,
    type: 'auth',
    retryable: false,
    message: ({ text, source, keyFix }) =>
      `${source.label} denied access (HTTP 403): ${text}. ${keyFix} The key may lack access to this model or region.`,
  },
  {
    when: ({ status, text }) =>
      ((status >= 400 && status < 500 && ![408, 429].includes(status)) || status === 500) &&
      isContextOverflow(text),
    type: 'context_overflow',
    retryable: false,
    message: ({ status, text, source }) =>
      `the conversation is too long for the model's context window (${source.label}, HTTP ${status}): ${text}. Shorten the conversation or use a model with a larger context window.`,
  },
  {
    when: ({ status }) => status === 408,
    type: 'timeout',
    retryable: true,
    message: ({ text, source }) => `${source.label} timed out (HTTP 408): ${text}`,
  },
  {
    when: ({ status, text }) => status === 429 && /insufficient_quota/i.test(text),
    type: 'rate_limit',
    retryable: false,
    message: ({ text, source }) =>
      `${source.label} says the account's quota is used up (HTTP 429): ${text}. Add credits or raise the limit in the provider's console; waiting will not help.`,
  },
  {
    when: ({ status }) => status === 429,
    type: 'rate_limit',
    retryable: true,
    message: ({ text, source }) => `${source.label} is rate limiting (HTTP 429): ${text}`,
  },
  {
    when: ({ status }) => status === 409 || status >= 500,
    type: 'provider_error',
    retryable: true,
    message: ({ status, text, source }) =>
      `${source.label} failed (HTTP ${status}${status === 529 ? ', overloaded' : ''}): ${text}`,
  },
  {
    when: ({ status }) => status === 402,
    type: 'bad_request',
    retryable: false,
    message: ({ text, source }) =>
      `${source.label} refused the request for billing reasons (HTTP 402): ${text}. Check the account's credit balance.`,
  },
  {
    when: ({ status }) => status === 404,
    type: 'bad_request',
    retryable: false,
    message: ({ text, source }) =>
      `${source.label} answered 404 (not found): ${text}. Check the model name and the base URL ${source.baseUrl}.`,
  },
  {
    when: () => true,
    type: 'bad_request',
    retryable: false,
    message: ({ status, text, source }) => `${source.label} rejected the request (HTTP ${status}): ${text}`,
  },
];

/** Classifies an HTTP error answer of a provider. `detail` is its error message (or body). */
export function classifyStatus(
  status: number,
  detail: string,
  source: ErrorSource,
  retryAfterMs?: number,
): ProviderError {
  const keyFix = source.keyVariable
    ? `Check ${source.keyVariable} (in the environment or in .env).`
    : 'Check the server configuration.';
  const answer: StatusAnswer = { status, text: clip(detail), source, keyFix };
  const rule = STATUS_RULES.find((r) => r.when(answer)) ?? STATUS_RULES[STATUS_RULES.length - 1]!;
  return {
    status,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    type: rule.type,
    retryable: rule.retryable,
    message: rule.message(answer),
  };
}

/**
 * Error types that arrive without an HTTP status (an `error` event in the middle of a stream), as the status
 * they stand for. Anthropic's body types, then OpenAI's.
 */
const ERROR_TYPE_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
  server_error: 500,
  rate_limit_exceeded: 429,
};

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

interface Thrown {
  status?: unknown;
  headers?: HeaderBag;
  message?: unknown;
  name?: unknown;
  type?: unknown;
  code?: unknown;
  error?: unknown;
  cause?: unknown;
}

/** The first `code` in the error's cause chain that is in `codes`. */
function causeCode(error: unknown, codes: ReadonlySet<string>): string | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, errors } = e as { code?: unknown; errors?: unknown };
    if (typeof code === 'string' && codes.has(code)) return code;
    // Node tries every address of a host and reports an AggregateError of them.
    if (Array.isArray(errors))
      for (const inner of errors)
        if (codes.has((inner as Thrown)?.code as string)) return (inner as Thrown).code as string;
    e = (e as Thrown).cause;
  }
  return undefined;
}

/** The class names of the error, its own first: SDK classes do not always set `name`. */
function names(error: unknown): string {
  if (!error || typeof error !== 'object') return '';
  const e = error as Thrown;
  return `${typeof e.name === 'string' ? e.name : ''} ${error.constructor?.name ?? ''}`;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

/**
 * The provider's own words from an SDK error: the body's `message` (with its type or code, which name the
 * problem) rather than the SDK's `400 {"type":"error",...}`. Gemini's SDK puts the JSON body in `message`.
 */
function providerDetail(e: Thrown, message: string): { detail: string; type?: string } {
  let body = asRecord(e.error);
  if (body === undefined && message.trimStart().startsWith('{')) {
    try {
      body = asRecord(JSON.parse(message));
    } catch {
      // not JSON: keep the message as it is
    }
  }
  const inner = asRecord(body?.error) ?? body;
  const text = typeof inner?.message === 'string' ? inner.message : undefined;
  const kind = [inner?.type, inner?.code, inner?.status, e.type].find(
    (v): v is string => typeof v === 'string' && v !== '',
  );
  const type = kind ? { type: kind } : {};
  if (text === undefined) return { detail: message, ...type };
  const said = text.trim().replace(/\.$/, '');
  return { detail: kind && !said.includes(kind) ? `${said} (${kind})` : said, ...type };
}

/**
 * Classifies anything an SDK call threw: HTTP errors (anything with a numeric `status`), error events inside a
 * stream, timeouts, network failures, and malformed or cut-off bodies. `signal` is the caller's: when it has
 * fired, the call was cancelled and is not retried. Never throws.
 */
export function classifyThrown(error: unknown, source: ErrorSource, signal?: AbortSignal): ProviderError {
  const e = (asRecord(error) ?? {}) as Thrown;
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(error);
  const kinds = names(error);
  if (signal?.aborted || /APIUserAbortError/.test(kinds))
    return { type: 'internal', retryable: false, message: `the call to ${source.label} was cancelled` };
  const { detail, type } = providerDetail(e, message);
  const status =
    typeof e.status === 'number' ? e.status : type === undefined ? undefined : ERROR_TYPE_STATUS[type];
  if (status !== undefined && status >= 400) {
    const retryAfterMs = parseRetryAfter(e.headers) ?? retryDelayFromBody(message);
    return classifyStatus(status, detail, source, retryAfterMs);
  }
  const timeoutCode = causeCode(error, TIMEOUT_CODES);
  // An abort the caller did not ask for is a per-attempt timer firing (e.g. @google/genai's `timeout`).
  if (timeoutCode !== undefined || /Timeout|AbortError/.test(kinds) || /timed out/i.test(message))
    return {
      type: 'timeout',
      retryable: true,
      message: `${source.label} did not answer in time: ${clip(message)}${timeoutCode ? ` (${timeoutCode})` : ''}. It is retried; if it keeps happening, raise the timeout or ask for fewer output tokens.`,
    };
  // undici's `terminated`: the connection closed while the body was being read.
  if (
    message === 'terminated' ||
    /premature close|unexpected end|RetryableError/i.test(`${message} ${kinds}`)
  )
    return {
      type: 'provider_error',
      retryable: true,
      message: `${source.label} cut its response short: ${clip(message)}`,
    };
  const code = causeCode(error, NETWORK_CODES);
  if (
    code !== undefined ||
    /APIConnectionError/.test(kinds) ||
    /fetch failed|socket hang up|network/i.test(message)
  )
    return {
      type: 'unreachable',
      retryable: true,
      message: `could not reach ${source.label} at ${source.baseUrl}${code ? ` (${code})` : ''}: ${clip(message)}. Check the base URL, that the server is running, and your network.`,
    };
  if (/SyntaxError/.test(kinds) || /JSON/.test(message))
    return {
      type: 'provider_error',
      retryable: true,
      message: `${source.label} sent a malformed response: ${clip(message)}`,
    };
  return {
    type: 'provider_error',
    retryable: false,
    message: `${source.label} call failed: ${clip(message)}`,
  };
}
