import {
  type GenerateContentParameters,
  type GenerateContentResponse,
  type GenerateContentResponseUsageMetadata,
  GoogleGenAI,
} from '@google/genai';
import { classifyThrown, type ErrorSource } from '../errors.ts';
import type { ModelRecord } from '../model-record.ts';
import type { ModelProvider, ProviderError, ProviderResult } from '../provider.ts';
import type { StopReason, ToolCall, Usage } from '../types.ts';
import { encodeCallId, geminiRequestFor } from './google-request.ts';
import { DEFAULT_TIMEOUT_MS, type ProviderOptions } from './options.ts';
import type { ProviderIdentity } from './provider-spec.ts';

const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

/**
 * Gemini through `@google/genai`: `generateContent`, or `generateContentStream` (SSE) with `opts.stream`.
 * One attempt per call: the SDK's `retryOptions` stay unset and its automatic continuation off, so the
 * layer's `withRetries` is the only thing that retries. Never throws.
 */
export function createGoogleProvider(
  model: ModelRecord,
  opts: ProviderOptions,
  spec: ProviderIdentity,
): ModelProvider {
  const { ai, source, timeoutMs } = connectGoogle(opts, spec);
  const stream = opts.stream === true;

  return {
    async complete(req, _ctx, signal): Promise<ProviderResult> {
      let streaming = false;
      try {
        const wire = geminiRequestFor(model, req);
        if (!wire.ok)
          return { ok: false, error: { type: 'bad_request', retryable: false, message: wire.message } };
        const params: GenerateContentParameters = {
          model: wire.model,
          contents: wire.contents,
          config: { ...wire.config, ...(signal ? { abortSignal: signal } : {}) },
        };
        const reply = emptyReply();
        if (stream) {
          const chunks = await ai.models.generateContentStream(params);
          streaming = true;
          for await (const chunk of chunks) collect(reply, chunk);
        } else {
          collect(reply, await ai.models.generateContent(params));
        }
        return toResult(reply, { stream, notes: wire.notes, label: source.label });
      } catch (error) {
        return { ok: false, error: classifyGoogleError(error, source, { signal, streaming, timeoutMs }) };
      }
    },
  };
}

/**
 * The SDK client (its retries and continuation off, never Vertex) and what messages name of the provider;
 * `fetch` replaces `opts.fetch` (the batch endpoint reads what the SDK leaves out of some answers).
 */
export function connectGoogle(
  opts: ProviderOptions,
  spec: ProviderIdentity,
  fetch: typeof globalThis.fetch | undefined = opts.fetch,
): { ai: GoogleGenAI; source: ErrorSource; timeoutMs: number } {
  const root = splitBaseUrl(opts.baseUrl ?? DEFAULT_BASE_URL);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ai = new GoogleGenAI({
    apiKey: opts.apiKey,
    // Not Vertex, whatever GOOGLE_GENAI_USE_VERTEXAI says.
    vertexai: false,
    ...(root.apiVersion ? { apiVersion: root.apiVersion } : {}),
    httpOptions: { baseUrl: root.baseUrl, timeout: timeoutMs, ...(fetch ? { fetch } : {}) },
  });
  const source: ErrorSource = {
    label: spec.label,
    baseUrl: opts.baseUrl ?? DEFAULT_BASE_URL,
    ...(spec.keyVariables[0] === undefined ? {} : { keyVariable: spec.keyVariables[0] }),
  };
  return { ai, source, timeoutMs };
}

/** A whole `GenerateContentResponse` (a batch's answer to one request) as the provider's result. */
export function responseResult(response: GenerateContentResponse, label: string): ProviderResult {
  const reply = emptyReply();
  collect(reply, response);
  return toResult(reply, { stream: false, notes: [], label });
}

/** `https://host/v1beta` → root `https://host` and version `v1beta`: the SDK adds the version itself. */
export function splitBaseUrl(url: string): { baseUrl: string; apiVersion?: string } {
  const match = /^(.*?)\/(v\d+(?:alpha|beta)?\d*)\/?$/.exec(url.trim());
  return match ? { baseUrl: match[1]!, apiVersion: match[2]! } : { baseUrl: url.trim() };
}

interface Reply {
  text: string;
  calls: { id?: string; name?: string; args?: Record<string, unknown>; thoughtSignature?: string }[];
  finishReason?: string;
  usage?: GenerateContentResponseUsageMetadata;
  responseId?: string;
  blockReason?: string;
  /** The `modelVersion` Gemini said answered. */
  modelVersion?: string;
}

function emptyReply(): Reply {
  return { text: '', calls: [] };
}

/** Folds one response, or one streamed chunk, into the reply. Thought summaries are not part of the answer. */
function collect(reply: Reply, chunk: GenerateContentResponse): void {
  reply.responseId ??= chunk.responseId;
  if (chunk.modelVersion) reply.modelVersion = chunk.modelVersion;
  if (chunk.usageMetadata) reply.usage = chunk.usageMetadata;
  if (chunk.promptFeedback?.blockReason) reply.blockReason = chunk.promptFeedback.blockReason;
  const candidate = chunk.candidates?.[0];
  if (!candidate) return;
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall)
      reply.calls.push({ ...part.functionCall, thoughtSignature: part.thoughtSignature });
    else if (typeof part.text === 'string' && !part.thought) reply.text += part.text;
  }
  if (candidate.finishReason) reply.finishReason = candidate.finishReason;
}

const FINISH_NOTES: Readonly<Record<string, string>> = {
  SAFETY: "the reply was stopped by Gemini's safety filter",
  RECITATION: 'the reply was stopped because it recited training data',
  MALFORMED_FUNCTION_CALL: 'the model produced a malformed tool call, which Gemini dropped',
  UNEXPECTED_TOOL_CALL: 'the model called a tool that was not offered',
  TOO_MANY_TOOL_CALLS: 'the model called too many tools in a row',
};

function toResult(reply: Reply, ctx: { stream: boolean; notes: string[]; label: string }): ProviderResult {
  const broken = (message: string): ProviderResult => ({
    ok: false,
    error: { type: 'provider_error', retryable: true, message: `${ctx.label} ${message}` },
  });
  if (reply.blockReason && !reply.finishReason)
    return {
      ok: false,
      error: {
        type: 'bad_request',
        retryable: false,
        message: `${ctx.label} refused the prompt (blockReason ${reply.blockReason}). Rephrase the request; sending it again unchanged will not help.`,
      },
    };
  if (ctx.stream && !reply.finishReason)
    return broken('cut its response short: the stream ended before the reply was complete');
  if (!reply.finishReason && reply.text === '' && reply.calls.length === 0)
    return broken('sent a malformed response: no candidate reply');

  const toolCalls: ToolCall[] = [];
  for (const [i, call] of reply.calls.entries()) {
    if (!call.name) return broken('sent a malformed response: a function call without a name');
    // Gemini's calls rarely carry ids; ours are unique per reply and stable for the same response.
    const id = call.id ?? (reply.responseId ? `call_${reply.responseId}_${i + 1}` : `call_${i + 1}`);
    toolCalls.push({ id: encodeCallId(id, call.thoughtSignature), name: call.name, input: call.args ?? {} });
  }
  const finish = reply.finishReason ?? 'STOP';
  const stopReason: StopReason =
    finish === 'MAX_TOKENS' ? 'length' : toolCalls.length > 0 ? 'tool_use' : 'end';
  const notes = [...ctx.notes];
  if (finish !== 'STOP' && finish !== 'MAX_TOKENS')
    notes.push(`finishReason ${finish}: ${FINISH_NOTES[finish] ?? 'the model stopped early'}`);
  return {
    ok: true,
    response: {
      message: { content: reply.text, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
      stopReason,
      usage: geminiUsage(reply.usage),
      ...(notes.length > 0 ? { adapted: notes } : {}),
      ...(reply.modelVersion ? { reportedModel: reply.modelVersion } : {}),
    },
  };
}

/**
 * Gemini's counts as `Usage`: `promptTokenCount` includes the cached tokens, tool-use prompt tokens are
 * counted apart from it, and thoughts apart from `candidatesTokenCount` (but billed as output).
 */
export function geminiUsage(meta: GenerateContentResponseUsageMetadata | undefined): Usage {
  const prompt = meta?.promptTokenCount ?? 0;
  const cached = Math.min(meta?.cachedContentTokenCount ?? 0, prompt);
  const thoughts = meta?.thoughtsTokenCount ?? 0;
  return {
    input: prompt - cached + (meta?.toolUsePromptTokenCount ?? 0),
    output: (meta?.candidatesTokenCount ?? 0) + thoughts,
    cacheRead: cached,
    cacheWrite: 0,
    reasoning: thoughts,
  };
}

/**
 * `classifyThrown` (which reads the SDK's `ApiError`: Google's JSON body, its `retryDelay`, a bad key answered
 * with 400), with the per-attempt timeout named, and a connection lost mid-stream called a cut-off reply.
 */
export function classifyGoogleError(
  error: unknown,
  source: ErrorSource,
  ctx: { signal?: AbortSignal; streaming: boolean; timeoutMs: number },
): ProviderError {
  const classified = classifyThrown(error, source, ctx.signal);
  if (ctx.signal?.aborted || classified.status !== undefined) return classified;
  if (classified.type === 'timeout')
    return {
      ...classified,
      message: `${source.label} did not answer within ${ctx.timeoutMs} ms (the per-attempt timeout). It is retried; if it keeps happening, raise the timeout or ask for fewer output tokens.`,
    };
  if (ctx.streaming && classified.type === 'unreachable')
    return {
      type: 'provider_error',
      retryable: true,
      message: `${source.label} cut its response short: the connection broke mid-stream (${classified.message})`,
    };
  return classified;
}
