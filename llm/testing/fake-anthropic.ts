import type { FakeStep, SseEvent } from './fake-server.ts';

/**
 * FakeSteps in the Anthropic Messages wire format (`POST /v1/messages`), for `startFakeServer`: replies as one
 * JSON body or as the server-sent events the API streams, and the API's error bodies.
 */

/** Token counts as Anthropic reports them: `input_tokens` excludes cache reads and cache writes. */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  /** Reported as `output_tokens_details.thinking_tokens`; part of `output_tokens`. */
  thinking_tokens?: number;
}

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string };

export type AnthropicStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export interface ReplyOptions {
  usage?: AnthropicUsage;
  /** Defaults to `tool_use` when the content has a tool call, else `end_turn`. */
  stopReason?: AnthropicStopReason;
  model?: string;
}

export interface FakeToolCall {
  /** Defaults to a `toolu_…` id numbered by position. */
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

export type JsonStep = Extract<FakeStep, { kind: 'json' }>;
export type SseStep = Extract<FakeStep, { kind: 'sse' }>;

export const DEFAULT_USAGE: AnthropicUsage = Object.freeze({ input_tokens: 25, output_tokens: 12 });

/** A dated model id, as the API names the model that served a call. */
const FAKE_MODEL = 'claude-sonnet-4-5-20250929';

/** The JSON body of a non-streamed reply (the API's `Message` object). */
export function messageBody(content: AnthropicBlock[], opts: ReplyOptions = {}): Record<string, unknown> {
  const usage = opts.usage ?? DEFAULT_USAGE;
  return {
    id: 'msg_01FakeReply',
    type: 'message',
    role: 'assistant',
    model: opts.model ?? FAKE_MODEL,
    content,
    stop_reason: opts.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: wireUsage(usage, usage.output_tokens),
  };
}

function wireUsage(usage: AnthropicUsage, outputTokens: number): Record<string, unknown> {
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    cache_creation: { ephemeral_5m_input_tokens: cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details:
      usage.thinking_tokens === undefined ? null : { thinking_tokens: usage.thinking_tokens },
    server_tool_use: null,
    service_tier: 'standard',
    inference_geo: null,
    speed: null,
  };
}

function toolUseBlocks(calls: FakeToolCall[]): AnthropicBlock[] {
  return calls.map((c, i) => ({
    type: 'tool_use',
    id: c.id ?? `toolu_01Fake${i + 1}`,
    name: c.name,
    input: c.input,
  }));
}

/** A plain text reply as one JSON body. */
export function textReply(
  text: string,
  usage?: AnthropicUsage,
  opts: Omit<ReplyOptions, 'usage'> = {},
): JsonStep {
  return { kind: 'json', body: messageBody([{ type: 'text', text }], { ...opts, usage }) };
}

/** A reply calling tools (optionally after some text) as one JSON body; stop reason `tool_use`. */
export function toolCallReply(calls: FakeToolCall[], opts: ReplyOptions & { text?: string } = {}): JsonStep {
  const text: AnthropicBlock[] = opts.text ? [{ type: 'text', text: opts.text }] : [];
  return { kind: 'json', body: messageBody([...text, ...toolUseBlocks(calls)], opts) };
}

/** A streamed plain text reply, the text split into `chunks` deltas. */
export function streamedTextReply(
  text: string,
  usage?: AnthropicUsage,
  opts: Omit<ReplyOptions, 'usage'> & { chunks?: number } = {},
): SseStep {
  return { kind: 'sse', events: streamEvents([{ type: 'text', text }], { ...opts, usage }) };
}

/** A streamed tool-call reply: each call's input arrives as `input_json_delta` fragments. */
export function streamedToolCallReply(
  calls: FakeToolCall[],
  opts: ReplyOptions & { text?: string; chunks?: number } = {},
): SseStep {
  const text: AnthropicBlock[] = opts.text ? [{ type: 'text', text: opts.text }] : [];
  return { kind: 'sse', events: streamEvents([...text, ...toolUseBlocks(calls)], opts) };
}

/**
 * The events the API streams for a reply with `content`, in its order: `message_start` (input usage),
 * per block `content_block_start` / `content_block_delta`… / `content_block_stop`, a `ping`, then
 * `message_delta` (stop reason and final usage) and `message_stop`.
 */
export function streamEvents(
  content: AnthropicBlock[],
  opts: ReplyOptions & { chunks?: number } = {},
): SseEvent[] {
  const body = messageBody(content, opts);
  const usage = opts.usage ?? DEFAULT_USAGE;
  const chunks = opts.chunks ?? 3;
  const events: SseEvent[] = [
    ev('message_start', {
      type: 'message_start',
      message: { ...body, content: [], stop_reason: null, usage: wireUsage(usage, 1) },
    }),
  ];
  content.forEach((block, index) => {
    const start = block.type === 'tool_use' ? { ...block, input: {} } : emptied(block);
    events.push(ev('content_block_start', { type: 'content_block_start', index, content_block: start }));
    if (index === 0) events.push(ev('ping', { type: 'ping' }));
    for (const delta of deltas(block, chunks))
      events.push(ev('content_block_delta', { type: 'content_block_delta', index, delta }));
    events.push(ev('content_block_stop', { type: 'content_block_stop', index }));
  });
  events.push(
    ev('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: body.stop_reason, stop_sequence: null, stop_details: null, container: null },
      usage: wireUsage(usage, usage.output_tokens),
    }),
    ev('message_stop', { type: 'message_stop' }),
  );
  return events;
}

function ev(event: string, data: unknown): SseEvent {
  return { event, data };
}

function emptied(block: AnthropicBlock): AnthropicBlock {
  if (block.type === 'thinking') return { type: 'thinking', thinking: '', signature: '' };
  return block.type === 'text' ? { type: 'text', text: '' } : block;
}

function deltas(block: AnthropicBlock, chunks: number): Record<string, unknown>[] {
  switch (block.type) {
    case 'text':
      return split(block.text, chunks).map((text) => ({ type: 'text_delta', text }));
    case 'tool_use':
      return split(JSON.stringify(block.input), chunks).map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      }));
    case 'thinking':
      return [
        ...split(block.thinking, chunks).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature: block.signature },
      ];
  }
}

function split(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, parts)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Fault kinds with the bodies the API really sends for them. */
export type AnthropicFault =
  | 'auth'
  | 'context_overflow'
  | 'bad_request'
  | 'rate_limit'
  | 'server'
  | 'overloaded';

const FAULTS: Readonly<Record<AnthropicFault, { status: number; type: string; message: string }>> = {
  auth: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' },
  context_overflow: {
    status: 400,
    type: 'invalid_request_error',
    message: 'prompt is too long: 208310 tokens > 200000 maximum',
  },
  bad_request: {
    status: 400,
    type: 'invalid_request_error',
    message: 'messages.0.content.0.text: text content blocks must be non-empty',
  },
  rate_limit: {
    status: 429,
    type: 'rate_limit_error',
    message:
      'This request would exceed the rate limit for your organization of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.',
  },
  server: { status: 500, type: 'api_error', message: 'Internal server error' },
  overloaded: { status: 529, type: 'overloaded_error', message: 'Overloaded' },
};

/** The API's error body: `{type: 'error', error: {type, message}, request_id}`. */
export function errorBody(type: string, message: string): Record<string, unknown> {
  return { type: 'error', error: { type, message }, request_id: 'req_011FakeRequest' };
}

/**
 * An HTTP error answer as the API sends it. `status` overrides the usual one (e.g. 503 for `overloaded`);
 * `retryAfterSeconds` sets `retry-after` (rate limits and overloads carry it).
 */
export function errorReply(
  kind: AnthropicFault,
  opts: { status?: number; retryAfterSeconds?: number } = {},
): JsonStep {
  const fault = FAULTS[kind];
  const headers: Record<string, string> = { 'request-id': 'req_011FakeRequest', 'x-should-retry': 'true' };
  if (kind === 'auth' || kind === 'bad_request' || kind === 'context_overflow')
    headers['x-should-retry'] = 'false';
  if (opts.retryAfterSeconds !== undefined) headers['retry-after'] = String(opts.retryAfterSeconds);
  if (kind === 'rate_limit') {
    headers['anthropic-ratelimit-input-tokens-limit'] = '50000';
    headers['anthropic-ratelimit-input-tokens-remaining'] = '0';
  }
  return {
    kind: 'json',
    status: opts.status ?? fault.status,
    headers,
    body: errorBody(fault.type, fault.message),
  };
}

/** A stream that starts a reply, then reports an error event mid-way (e.g. `overloaded_error`), as the API does. */
export function streamedErrorEvent(type = 'overloaded_error', message = 'Overloaded'): SseStep {
  const events = streamEvents([{ type: 'text', text: 'Partial answer' }]).slice(0, 3);
  return { kind: 'sse', events: [...events, ev('error', errorBody(type, message))] };
}
