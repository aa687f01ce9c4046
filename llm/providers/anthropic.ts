import Anthropic from '@anthropic-ai/sdk';
import type { Stream } from '@anthropic-ai/sdk/core/streaming';
import type {
  Message,
  MessageCreateParamsBase,
  MessageDeltaUsage,
  RawMessageStreamEvent,
  Usage as WireUsage,
} from '@anthropic-ai/sdk/resources/messages';
import {
  classifyStatus,
  classifyThrown,
  type ErrorSource,
  isContextOverflow,
  parseRetryAfter,
} from '../errors.ts';
import type { ModelRecord } from '../model-record.ts';
import type { ModelProvider, ProviderError, ProviderResult } from '../provider.ts';
import type { ErrorType, StopReason, ToolCall, Usage } from '../types.ts';
import { messagesBody } from './anthropic-request.ts';
import { isRecord, tryJson } from './json.ts';
import { DEFAULT_TIMEOUT_MS, type ProviderOptions } from './options.ts';
import type { ProviderIdentity } from './provider-spec.ts';

/** What a reply holds once read, streamed or not; tool input is JSON text when it came in fragments. */
interface Reply {
  blocks: Block[];
  stopReason: string | null;
  usage: Partial<WireUsage>;
  /** The `model` the API said answered (e.g. "claude-sonnet-4-5-20250929"). */
  model?: unknown;
}

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; id: string; name: string; input?: unknown; json?: string }
  | { kind: 'other' };

/** A reply that is malformed or cut off: a retryable provider error. */
class BrokenReply extends Error {}

/**
 * The Anthropic Messages API through `@anthropic-ai/sdk`. Streams by default (the SDK refuses long
 * non-streamed calls); `opts.stream === false` asks for one JSON body. One attempt per call: SDK retries are
 * off, and the per-attempt timeout covers the whole reply, not only the wait for its headers.
 */
export function createAnthropicProvider(
  model: ModelRecord,
  opts: ProviderOptions,
  spec: ProviderIdentity,
): ModelProvider {
  const { client, source, timeoutMs } = connectAnthropic(opts, spec);
  const stream = opts.stream ?? true;

  return {
    async complete(req, _ctx, signal): Promise<ProviderResult> {
      const attempt = new AbortController();
      const timer = setTimeout(() => attempt.abort(), timeoutMs);
      const both = signal ? AbortSignal.any([signal, attempt.signal]) : attempt.signal;
      try {
        const built = messagesBody(model, req);
        if (!built.ok) return fail('bad_request', built.message);
        const { body, notes } = built;
        const reply = stream ? await streamed(client, body, both) : await single(client, body, both);
        return toResult(reply, notes);
      } catch (error) {
        if (!signal?.aborted && attempt.signal.aborted)
          return fail(
            'timeout',
            `${source.label} did not finish answering within ${timeoutMs} ms (the per-attempt timeout).`,
            true,
          );
        return { ok: false, error: classify(error, source, signal) };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The SDK client (its retries off) and what messages name of the provider. */
export function connectAnthropic(
  opts: ProviderOptions,
  spec: ProviderIdentity,
): { client: Anthropic; source: ErrorSource; timeoutMs: number } {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new Anthropic({
    apiKey: opts.apiKey,
    maxRetries: 0,
    timeout: timeoutMs,
    ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const source: ErrorSource = {
    label: spec.label,
    baseUrl: client.baseURL,
    ...(spec.keyVariables[0] === undefined ? {} : { keyVariable: spec.keyVariables[0] }),
  };
  return { client, source, timeoutMs };
}

/**
 * A Messages API call posted by the SDK's client, not through `messages.create`: that one writes to
 * `console.warn` on EVERY call to a model it lists as deprecated, which would flood an overnight run's log
 * (the registry's `successor`, shown by hyperagents models, says it once). The request, timeout and error
 * handling are the client's either way.
 */
function postMessages(
  client: Anthropic,
  body: MessageCreateParamsBase & { stream: false },
  signal: AbortSignal,
): Promise<Message>;
function postMessages(
  client: Anthropic,
  body: MessageCreateParamsBase & { stream: true },
  signal: AbortSignal,
): Promise<Stream<RawMessageStreamEvent>>;
function postMessages(
  client: Anthropic,
  body: MessageCreateParamsBase,
  signal: AbortSignal,
): Promise<Message | Stream<RawMessageStreamEvent>> {
  return client.post('/v1/messages', { body, signal, stream: body.stream ?? false });
}

function fail(type: ErrorType, message: string, retryable = false): ProviderResult {
  return { ok: false, error: { type, message, retryable } };
}

async function single(client: Anthropic, body: MessageCreateParamsBase, signal: AbortSignal): Promise<Reply> {
  return readMessage(await postMessages(client, { ...body, stream: false }, signal));
}

/**
 * A `Message` body (an ordinary reply, or a batch's succeeded result) as the provider's result, read as the
 * client reads a non-streamed reply; `adapted` lists what was changed in the request.
 */
export function messageResult(message: unknown, adapted: string[]): ProviderResult {
  try {
    return toResult(readMessage(message as Message), adapted);
  } catch (error) {
    return fail('provider_error', `Anthropic sent a malformed reply: ${(error as Error).message}`, true);
  }
}

function readMessage(message: Message): Reply {
  // The SDK hands back whatever JSON arrived; check its shape before trusting the type.
  if (!Array.isArray(message?.content) || typeof message.usage !== 'object' || message.usage === null)
    throw new BrokenReply(
      `the reply is not a Messages API message: ${JSON.stringify(message).slice(0, 200)}`,
    );
  return {
    blocks: message.content.map((b): Block => {
      if (b.type === 'text') return { kind: 'text', text: String(b.text) };
      if (b.type === 'tool_use') return { kind: 'tool', id: b.id, name: b.name, input: b.input };
      return { kind: 'other' };
    }),
    stopReason: message.stop_reason,
    usage: message.usage,
    model: message.model,
  };
}

/** Reads the event stream into a reply; a stream that breaks off or ends before `message_stop` is a BrokenReply. */
async function streamed(
  client: Anthropic,
  body: MessageCreateParamsBase,
  signal: AbortSignal,
): Promise<Reply> {
  const events = await postMessages(client, { ...body, stream: true }, signal);
  const blocks = new Map<number, Block>();
  let usage: Partial<WireUsage> = {};
  let stopReason: string | null = null;
  let model: unknown;
  let stopped = false;
  try {
    for await (const event of events) {
      switch (event.type) {
        case 'message_start':
          usage = { ...event.message.usage };
          model = event.message.model;
          break;
        case 'content_block_start': {
          const b = event.content_block;
          blocks.set(
            event.index,
            b.type === 'text'
              ? { kind: 'text', text: b.text }
              : b.type === 'tool_use'
                ? { kind: 'tool', id: b.id, name: b.name, json: '' }
                : { kind: 'other' },
          );
          break;
        }
        case 'content_block_delta': {
          const b = blocks.get(event.index);
          if (event.delta.type === 'text_delta' && b?.kind === 'text') b.text += event.delta.text;
          if (event.delta.type === 'input_json_delta' && b?.kind === 'tool')
            b.json += event.delta.partial_json;
          break;
        }
        case 'message_delta':
          stopReason = event.delta.stop_reason;
          usage = mergeUsage(usage, event.usage);
          break;
        case 'message_stop':
          stopped = true;
          break;
        case 'content_block_stop':
          break;
      }
    }
  } catch (error) {
    if (error instanceof Anthropic.APIError) throw error;
    throw new BrokenReply(
      `the reply stream broke off: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!stopped) throw new BrokenReply('the reply stream ended before message_stop');
  const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
  return { blocks: ordered, stopReason, usage, model };
}

/** `message_delta` usage is cumulative; a field it leaves null keeps its `message_start` value. */
function mergeUsage(start: Partial<WireUsage>, delta: Partial<MessageDeltaUsage>): Partial<WireUsage> {
  const merged: Record<string, unknown> = { ...start };
  for (const [key, value] of Object.entries(delta))
    if (value !== null && value !== undefined) merged[key] = value;
  return merged as Partial<WireUsage>;
}

function toResult(reply: Reply, adapted: string[]): ProviderResult {
  const stopReason = mapStopReason(reply.stopReason);
  const toolCalls: ToolCall[] = [];
  for (const block of reply.blocks) {
    if (block.kind !== 'tool') continue;
    const input = block.json === undefined ? block.input : parseJson(block.json);
    if (isRecord(input)) toolCalls.push({ id: block.id, name: block.name, input });
    // A call cut short by max_tokens carries half its input; the `length` stop reason already says so.
    else if (stopReason !== 'length')
      return fail(
        'provider_error',
        `Anthropic sent a malformed tool call ${block.name} (${block.id}): its input is not a JSON object`,
        true,
      );
  }
  const content = reply.blocks.map((b) => (b.kind === 'text' ? b.text : '')).join('');
  return {
    ok: true,
    response: {
      message: { content, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
      stopReason: stopReason === 'tool_use' && toolCalls.length === 0 ? 'end' : stopReason,
      usage: normalizeUsage(reply.usage),
      ...(adapted.length > 0 ? { adapted } : {}),
      ...(typeof reply.model === 'string' && reply.model !== '' ? { reportedModel: reply.model } : {}),
    },
  };
}

/**
 * `model_context_window_exceeded` means the reply ran into the context window while being written: it is
 * billed and kept, as a `length` stop (a next call that no longer fits fails as context_overflow).
 * `refusal` and `pause_turn` (server tools only, which are not sent) end the turn.
 */
export function mapStopReason(wire: string | null): StopReason {
  switch (wire) {
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    default:
      return 'end';
  }
}

/** Anthropic's `input_tokens` already excludes cache reads and writes (see `Usage`). */
export function normalizeUsage(u: Partial<WireUsage>): Usage {
  return {
    input: count(u.input_tokens),
    output: count(u.output_tokens),
    cacheRead: count(u.cache_read_input_tokens),
    cacheWrite: count(u.cache_creation_input_tokens),
    reasoning: count(u.output_tokens_details?.thinking_tokens),
  };
}

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.round(n) : 0);

/** A tool call's streamed input: empty means no arguments. */
function parseJson(text: string): unknown {
  return text.trim() === '' ? {} : tryJson(text);
}

/** What an `error` event in the middle of a stream means (the HTTP status was 200 by then). */
const STREAM_ERRORS: Readonly<Record<string, { type: ErrorType; retryable: boolean }>> = {
  overloaded_error: { type: 'provider_error', retryable: true },
  api_error: { type: 'provider_error', retryable: true },
  timeout_error: { type: 'timeout', retryable: true },
  rate_limit_error: { type: 'rate_limit', retryable: true },
  authentication_error: { type: 'auth', retryable: false },
  permission_error: { type: 'auth', retryable: false },
  invalid_request_error: { type: 'bad_request', retryable: false },
};

/** An error the API reported in a body of its own (a stream's `error` event, a batch's errored result). */
export function reportedError(type: string, detail: string, source: ErrorSource): ProviderError {
  const known = isContextOverflow(detail)
    ? { type: 'context_overflow' as const, retryable: false }
    : (STREAM_ERRORS[type] ?? { type: 'provider_error' as const, retryable: true });
  return { ...known, message: `${source.label} answered with an error (${type}): ${detail}` };
}

export function classify(error: unknown, source: ErrorSource, signal?: AbortSignal): ProviderError {
  if (signal?.aborted) return classifyThrown(error, source, signal);
  if (error instanceof BrokenReply)
    return {
      type: 'provider_error',
      retryable: true,
      message: `${source.label} sent a malformed or cut-off reply: ${error.message}`,
    };
  if (error instanceof Anthropic.APIError) {
    const detail = error.apiMessage ?? error.message;
    if (typeof error.status === 'number')
      return classifyStatus(error.status, detail, source, parseRetryAfter(error.headers));
    if (error.type) {
      const known = isContextOverflow(detail)
        ? { type: 'context_overflow' as const, retryable: false }
        : (STREAM_ERRORS[error.type] ?? { type: 'provider_error' as const, retryable: true });
      return {
        ...known,
        message: `${source.label} stopped the reply with an error (${error.type}): ${detail}`,
      };
    }
  }
  return classifyThrown(error, source, signal);
}
