import type { FakeStep, SseEvent } from './fake-server.ts';

/**
 * Fake-server steps in the Gemini API's wire format (`POST /v1beta/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse` for streaming), as `@google/genai` reads them.
 */

/** Token counts of one Gemini answer, as the API reports them (`promptTokenCount` includes `cached`). */
export interface GeminiUsage {
  prompt: number;
  candidates: number;
  /** Implicit or explicit cache hits, part of `prompt`. */
  cached?: number;
  /** Hidden reasoning, apart from `candidates`. */
  thoughts?: number;
  /** Tool results the server fed back to the model (server-side tools). */
  toolUsePrompt?: number;
}

export interface GeminiFunctionCall {
  name: string;
  args: Record<string, unknown>;
  /** Gemini 3 sends a signature on the first function call of a step; it must come back with it. */
  thoughtSignature?: string;
  id?: string;
}

export interface ReplyOptions {
  model?: string;
  responseId?: string;
  /** `STOP` unless given (`MAX_TOKENS`, `SAFETY`, `MALFORMED_FUNCTION_CALL`, ...). */
  finishReason?: string;
}

const DEFAULT_USAGE: GeminiUsage = { prompt: 12, candidates: 5 };

export function usageMetadata(usage: GeminiUsage): Record<string, unknown> {
  const total = usage.prompt + usage.candidates + (usage.thoughts ?? 0) + (usage.toolUsePrompt ?? 0);
  return {
    promptTokenCount: usage.prompt,
    candidatesTokenCount: usage.candidates,
    totalTokenCount: total,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.prompt }],
    ...(usage.cached === undefined
      ? {}
      : {
          cachedContentTokenCount: usage.cached,
          cacheTokensDetails: [{ modality: 'TEXT', tokenCount: usage.cached }],
        }),
    ...(usage.thoughts === undefined ? {} : { thoughtsTokenCount: usage.thoughts }),
    ...(usage.toolUsePrompt === undefined ? {} : { toolUsePromptTokenCount: usage.toolUsePrompt }),
  };
}

/** One `GenerateContentResponse` body; `finishReason: null` leaves it out (a mid-stream chunk). */
export function geminiResponse(
  parts: Record<string, unknown>[],
  opts: { usage?: GeminiUsage; model?: string; responseId?: string; finishReason?: string | null } = {},
): Record<string, unknown> {
  const finishReason = opts.finishReason === undefined ? 'STOP' : opts.finishReason;
  return {
    candidates: [
      { content: { parts, role: 'model' }, ...(finishReason === null ? {} : { finishReason }), index: 0 },
    ],
    ...(opts.usage ? { usageMetadata: usageMetadata(opts.usage) } : {}),
    modelVersion: opts.model ?? 'gemini-2.5-flash',
    responseId: opts.responseId ?? 'fake-response',
  };
}

function callPart(call: GeminiFunctionCall): Record<string, unknown> {
  return {
    functionCall: { ...(call.id ? { id: call.id } : {}), name: call.name, args: call.args },
    ...(call.thoughtSignature ? { thoughtSignature: call.thoughtSignature } : {}),
  };
}

/** A plain text answer. */
export function textReply(
  text: string,
  usage: GeminiUsage = DEFAULT_USAGE,
  opts: ReplyOptions = {},
): FakeStep {
  return { kind: 'json', body: geminiResponse([{ text }], { ...opts, usage }) };
}

/** An answer calling tools, optionally after some text. */
export function toolCallReply(
  calls: GeminiFunctionCall[],
  usage: GeminiUsage = DEFAULT_USAGE,
  opts: ReplyOptions & { text?: string } = {},
): FakeStep {
  const parts = [...(opts.text ? [{ text: opts.text }] : []), ...calls.map(callPart)];
  return { kind: 'json', body: geminiResponse(parts, { ...opts, usage }) };
}

/**
 * The streamed form of `textReply`: the text in `pieces` chunks, usage growing chunk by chunk, the finish
 * reason and full usage on the last one (as Gemini streams). Add `cutAfter` for a cut-off stream.
 */
export function streamedTextReply(
  text: string,
  usage: GeminiUsage = DEFAULT_USAGE,
  opts: ReplyOptions & { pieces?: number } = {},
): FakeStep & { kind: 'sse' } {
  const pieces = splitText(text, opts.pieces ?? 3);
  const events: SseEvent[] = pieces.map((piece, i) => {
    const last = i === pieces.length - 1;
    const partial = { prompt: usage.prompt, candidates: last ? usage.candidates : 0 };
    return {
      data: geminiResponse([{ text: piece }], {
        ...opts,
        usage: last ? usage : partial,
        finishReason: last ? (opts.finishReason ?? 'STOP') : null,
      }),
    };
  });
  return { kind: 'sse', events };
}

/** The streamed form of `toolCallReply`: optional text first, then each call whole in its own chunk. */
export function streamedToolCallReply(
  calls: GeminiFunctionCall[],
  usage: GeminiUsage = DEFAULT_USAGE,
  opts: ReplyOptions & { text?: string } = {},
): FakeStep & { kind: 'sse' } {
  const chunks = [...(opts.text ? [[{ text: opts.text }]] : []), ...calls.map((c) => [callPart(c)])];
  const events: SseEvent[] = chunks.map((parts, i) => {
    const last = i === chunks.length - 1;
    return {
      data: geminiResponse(parts, {
        ...opts,
        usage: last ? usage : { prompt: usage.prompt, candidates: 0 },
        finishReason: last ? (opts.finishReason ?? 'STOP') : null,
      }),
    };
  });
  return { kind: 'sse', events };
}

function splitText(text: string, pieces: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

/**
 * Gemini's error answers, with the bodies the API really sends:
 * - `invalid_key`: 400 INVALID_ARGUMENT, reason API_KEY_INVALID (how Google answers a wrong key)
 * - `permission_denied`: 403 PERMISSION_DENIED (no key, or the API is not enabled for the key's project)
 * - `context_overflow`: 400 INVALID_ARGUMENT "The input token count (N) exceeds the maximum ..."
 * - `rate_limit`: 429 RESOURCE_EXHAUSTED with a `RetryInfo.retryDelay` (`retryDelaySeconds`, default 7)
 * - `internal`: 500 INTERNAL
 * - `overloaded`: 503 UNAVAILABLE "The model is overloaded."
 */
export type GeminiErrorKind =
  | 'invalid_key'
  | 'permission_denied'
  | 'context_overflow'
  | 'rate_limit'
  | 'internal'
  | 'overloaded';

export function errorBody(
  kind: GeminiErrorKind,
  opts: { retryDelaySeconds?: number } = {},
): { status: number; body: unknown } {
  const error = (code: number, status: string, message: string, details?: unknown[]) => ({
    status: code,
    body: { error: { code, message, status, ...(details ? { details } : {}) } },
  });
  switch (kind) {
    case 'invalid_key':
      return error(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
        {
          '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
          locale: 'en-US',
          message: 'API key not valid. Please pass a valid API key.',
        },
      ]);
    case 'permission_denied':
      return error(
        403,
        'PERMISSION_DENIED',
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    case 'context_overflow':
      return error(
        400,
        'INVALID_ARGUMENT',
        'The input token count (1200345) exceeds the maximum number of tokens allowed (1048576).',
      );
    case 'rate_limit':
      return error(
        429,
        'RESOURCE_EXHAUSTED',
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
        [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [
              {
                quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
                quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
                quotaValue: '10',
              },
            ],
          },
          {
            '@type': 'type.googleapis.com/google.rpc.Help',
            links: [
              {
                description: 'Learn more about Gemini API quotas',
                url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
              },
            ],
          },
          {
            '@type': 'type.googleapis.com/google.rpc.RetryInfo',
            retryDelay: `${opts.retryDelaySeconds ?? 7}s`,
          },
        ],
      );
    case 'internal':
      return error(
        500,
        'INTERNAL',
        'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
      );
    case 'overloaded':
      return error(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');
  }
}

/** A JSON error answer of the given kind (see `errorBody`). */
export function errorReply(kind: GeminiErrorKind, opts: { retryDelaySeconds?: number } = {}): FakeStep {
  const { status, body } = errorBody(kind, opts);
  return { kind: 'json', status, body };
}
