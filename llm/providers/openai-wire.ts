import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { type AdaptedRequest, adaptRequest } from '../adapt.ts';
import { type ModelRecord, wireModelName } from '../model-record.ts';
import type { AssistantReply, ChatRequest, Message, StopReason, ToolCall, Usage } from '../types.ts';
import { isRecord, tryJson } from './json.ts';

/**
 * Key under which a tool call's `input` keeps arguments the model sent as something other than a JSON
 * object (truncated or invalid JSON): `{_raw_arguments: '<the string as sent>'}`. The tool's schema check
 * then tells the model its input was invalid, and sending the call back replays the string unchanged.
 */
export const RAW_ARGUMENTS_KEY = '_raw_arguments';

/** A completion read from the wire, or the error the server put in a 200 answer. */
export type ChatReply =
  | {
      ok: true;
      message: AssistantReply;
      stopReason: StopReason;
      usage: Usage;
      notes: string[];
      /** The `model` the server said answered (e.g. "gpt-4o-2024-08-06"), when it said one. */
      reportedModel?: string;
    }
  | { ok: false; error: unknown };

/**
 * The Chat Completions body the client sends for `req` on `model` (without the `stream` fields), the one
 * builder for ordinary calls and batch lines alike; `adapted` says what was changed to fit the model.
 */
export function chatCompletionBody(
  model: ModelRecord,
  req: ChatRequest,
): { body: ChatCompletionCreateParamsBase; adapted: string[] } {
  const adapted = adaptRequest(model, req);
  return { body: toWireRequest(adapted), adapted: adapted.adapted };
}

/** The Chat Completions body for an adapted request (without the `stream` fields). */
export function toWireRequest(req: AdaptedRequest): ChatCompletionCreateParamsBase {
  const { model } = req;
  return {
    model: wireModelName(model),
    messages: req.messages.map((m) => toWireMessage(m, model.systemRole)),
    ...(model.maxTokensField === 'max_completion_tokens'
      ? { max_completion_tokens: req.maxTokens }
      : { max_tokens: req.maxTokens }),
    ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
    ...(req.reasoning === undefined ? {} : { reasoning_effort: req.reasoning }),
    ...(req.tools?.length
      ? {
          tools: req.tools.map((t) => ({
            type: 'function' as const,
            function: { name: t.name, description: t.description, parameters: t.inputSchema },
          })),
        }
      : {}),
  };
}

function toWireMessage(m: Message, systemRole: 'system' | 'developer'): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
      return { role: systemRole, content: m.content };
    case 'user':
      return { role: 'user', content: m.content };
    case 'assistant':
      if (!m.toolCalls?.length) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        content: m.content === '' ? null : m.content,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: wireArguments(c.input) },
        })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  }
}

function wireArguments(input: Record<string, unknown>): string {
  const raw = input[RAW_ARGUMENTS_KEY];
  return typeof raw === 'string' && Object.keys(input).length === 1 ? raw : JSON.stringify(input);
}

/**
 * Reads a non-streamed answer. Throws when it is not a chat completion at all (the caller reports a
 * malformed response); an `error` member instead of `choices` is returned as `{ok: false}`.
 */
export function readCompletion(body: unknown, label: string): ChatReply {
  if (!isRecord(body)) throw new Error(`expected a chat completion, got: ${preview(body)}`);
  if (body.error !== undefined && body.error !== null) return { ok: false, error: body.error };
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message))
    throw new Error(`expected a chat completion with choices[0].message, got: ${preview(body)}`);
  const { message } = choice;
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  return finish(
    {
      content: textOf(message.content) || textOf(message.refusal),
      calls: calls.map((c) => {
        const fn = isRecord(c.function) ? c.function : {};
        return { id: c.id, name: fn.name, args: fn.arguments };
      }),
      finishReason: choice.finish_reason,
      usage: body.usage,
      model: body.model,
    },
    label,
  );
}

interface PartialCall {
  id?: unknown;
  name?: unknown;
  args: unknown;
}

/**
 * Accumulates a streamed answer: text deltas, and tool-call deltas by `index` (`id` and name arrive once,
 * `arguments` in pieces). Throws when the stream ends before a `finish_reason` (a cut-off stream).
 */
export async function readChunks(
  chunks: AsyncIterable<ChatCompletionChunk>,
  label: string,
): Promise<ChatReply> {
  let content = '';
  let refusal = '';
  let finishReason: string | undefined;
  let usage: unknown;
  let model: unknown;
  const calls = new Map<number | string, PartialCall & { args: string }>();
  let lastKey: number | string | undefined;
  for await (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    if (chunk.model) model = chunk.model;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') content += delta.content;
    if (typeof delta.refusal === 'string') refusal += delta.refusal;
    for (const part of delta.tool_calls ?? []) {
      // Servers that omit `index` send each call whole, with its own id.
      const key = typeof part.index === 'number' ? part.index : part.id ? `id:${part.id}` : lastKey;
      if (key === undefined) continue;
      const call = calls.get(key) ?? { args: '' };
      calls.set(key, call);
      lastKey = key;
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name = part.function.name;
      if (typeof part.function?.arguments === 'string') call.args += part.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (finishReason === undefined)
    throw new Error('the stream ended before the reply was complete (no finish_reason arrived)');
  return finish(
    { content: content || refusal, calls: [...calls.values()], finishReason, usage, model },
    label,
  );
}

function finish(
  raw: { content: string; calls: PartialCall[]; finishReason: unknown; usage: unknown; model: unknown },
  label: string,
): ChatReply {
  const notes: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const [i, c] of raw.calls.entries()) {
    const name = typeof c.name === 'string' ? c.name : '';
    if (!name) {
      notes.push(`a tool call without a name was dropped (arguments: ${preview(c.args)})`);
      continue;
    }
    const id = typeof c.id === 'string' && c.id ? c.id : `call_${i}`;
    const input = parseToolArguments(c.args);
    if (RAW_ARGUMENTS_KEY in input && Object.keys(input).length === 1)
      notes.push(`tool call ${name} (${id}): arguments were not a JSON object; kept as ${RAW_ARGUMENTS_KEY}`);
    toolCalls.push({ id, name, input });
  }
  if (raw.finishReason === 'content_filter')
    notes.push(`${label} stopped the reply with its content filter (finish_reason content_filter)`);
  const stopReason: StopReason =
    raw.finishReason === 'length' ? 'length' : toolCalls.length > 0 ? 'tool_use' : 'end';
  return {
    ok: true,
    message: toolCalls.length > 0 ? { content: raw.content, toolCalls } : { content: raw.content },
    stopReason,
    usage: normalizeUsage(raw.usage),
    notes,
    ...(typeof raw.model === 'string' && raw.model !== '' ? { reportedModel: raw.model } : {}),
  };
}

/**
 * Tool-call arguments, which the wire carries as a JSON string. Empty means `{}`; a double-encoded string
 * is decoded twice; anything that is still not a JSON object is kept whole under `RAW_ARGUMENTS_KEY`.
 */
export function parseToolArguments(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return {};
  if (isRecord(raw)) return raw;
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  let value: unknown = tryJson(text);
  if (typeof value === 'string') value = tryJson(value);
  return isRecord(value) ? value : { [RAW_ARGUMENTS_KEY]: text };
}

/**
 * OpenAI usage to `Usage`: `prompt_tokens` includes cached tokens and cache writes, so `input` is what
 * remains; `completion_tokens` includes reasoning tokens. Missing usage (some local servers) is zeros.
 */
export function normalizeUsage(usage: unknown): Usage {
  const u = isRecord(usage) ? usage : {};
  const prompt = isRecord(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const completion = isRecord(u.completion_tokens_details) ? u.completion_tokens_details : {};
  const cacheRead = count(prompt.cached_tokens);
  const cacheWrite = count(prompt.cache_write_tokens);
  const output = count(u.completion_tokens);
  return {
    input: Math.max(0, count(u.prompt_tokens) - cacheRead - cacheWrite),
    output,
    cacheRead,
    cacheWrite,
    reasoning: Math.min(count(completion.reasoning_tokens), output),
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** Message text: a string, or (some servers) an array of `{type: 'text', text}` parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
