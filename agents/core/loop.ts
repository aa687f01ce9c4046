import { type ContextBudget, contextBudgetChars, fitContext } from './context.ts';
import {
  addUsage,
  type Message,
  type ModelError,
  type ModelFn,
  type ModelInfo,
  type ModelReply,
  type ToolCall,
  type Usage,
  zeroUsage,
} from './messages.ts';
import { type BeforeToolCall, defaultSafetyPolicy } from './safety.ts';
import { type Tool, toToolSpec } from './tool.ts';
import { formatToolResult, parseToolCalls, renderToolList } from './tool-protocol.ts';
import { runToolCall } from './tool-runner.ts';

export type ToolProtocol = 'native' | 'text';

export type ChatOptions = {
  model: ModelFn;
  /** The system prompt; for the text protocol the tool list is appended to it once. */
  system: string;
  /** The first user message: the task. */
  user: string;
  tools?: Tool[];
  /** Default: 'native' when `modelInfo.nativeTools`, else 'text'. */
  protocol?: ToolProtocol;
  /** Capabilities of the model; `contextWindow` (tokens) turns on context trimming. */
  modelInfo?: Partial<Pick<ModelInfo, 'id' | 'nativeTools' | 'contextWindow' | 'maxOutput'>>;
  temperature?: number;
  maxTokens?: number;
  maxToolCalls?: number;
  maxTurns?: number;
  wallTimeMs?: number;
  maxCostUsd?: number;
  /** Run every call of a reply in order (default: only the first). */
  multipleToolCalls?: boolean;
  beforeToolCall?: BeforeToolCall;
  /** The working root the safety policy confines tools to (default: the current directory). */
  root?: string;
  maxToolOutputChars?: number;
  /** Called with every message appended to the transcript (for progress logs). */
  onMessage?: (message: Message) => void;
};

export type ChatStatus = 'done' | 'max_tool_calls' | 'max_turns' | 'max_wall_time' | 'max_cost' | 'error';

export type ChatOutcome = {
  status: ChatStatus;
  /** Text of the last assistant reply ('' if none). */
  finalText: string;
  /** The whole transcript, system prompt first. */
  messages: Message[];
  toolCalls: number;
  turns: number;
  usage: Usage;
  costUsd: number;
  error?: ModelError;
};

export const CUT_OFF_MESSAGE =
  'Your tool call was cut off before it was complete. Send it again, shorter (for example, split a long file into several smaller edits).';

/**
 * The agent loop: call the model, run the tool calls it makes, feed the results back, until a reply has
 * no tool call or a limit is hit. Never throws for model or tool failures; the outcome says how it ended.
 */
export async function chatWithAgent(options: ChatOptions): Promise<ChatOutcome> {
  const tools = options.tools ?? [];
  const protocol = options.protocol ?? (options.modelInfo?.nativeTools ? 'native' : 'text');
  const specs = tools.map(toToolSpec);
  const multiple = options.multipleToolCalls ?? false;
  const toolList =
    protocol === 'text' && tools.length > 0
      ? `\n\n${renderToolList(specs, { multipleToolCalls: multiple })}`
      : '';
  const window = options.modelInfo?.contextWindow;
  const budget: ContextBudget | undefined = window
    ? { maxChars: contextBudgetChars(window, options.modelInfo?.maxOutput) }
    : undefined;
  const run = {
    tools,
    beforeToolCall: options.beforeToolCall ?? defaultSafetyPolicy,
    root: options.root ?? process.cwd(),
    maxOutputChars: options.maxToolOutputChars ?? 30_000,
  };
  const messages: Message[] = [];
  const push = (message: Message) => {
    messages.push(message);
    options.onMessage?.(message);
  };
  const state = {
    toolCalls: 0,
    turns: 0,
    usage: zeroUsage(),
    costUsd: 0,
    retriedCutOff: false,
    started: Date.now(),
  };
  const end = (status: ChatStatus, error?: ModelError): ChatOutcome => {
    const finalText = messages.findLast((m) => m.role === 'assistant')?.content ?? '';
    const { toolCalls, turns, usage, costUsd } = state;
    return { status, finalText, messages, toolCalls, turns, usage, costUsd, ...(error ? { error } : {}) };
  };

  push({ role: 'system', content: options.system + toolList });
  push({ role: 'user', content: options.user });
  for (;;) {
    if (state.toolCalls >= (options.maxToolCalls ?? 40)) return end('max_tool_calls');
    if (state.turns >= (options.maxTurns ?? 60)) return end('max_turns');
    if (options.wallTimeMs !== undefined && Date.now() - state.started >= options.wallTimeMs)
      return end('max_wall_time');
    if (options.maxCostUsd !== undefined && state.costUsd >= options.maxCostUsd) return end('max_cost');

    const result = await options.model({
      messages: budget ? fitContext(messages, budget) : [...messages],
      ...(protocol === 'native' && specs.length > 0 ? { tools: specs } : {}),
      ...(options.modelInfo?.id ? { model: options.modelInfo.id } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    });
    state.turns++;
    if (!result.ok) return end('error', result.error);
    state.usage = addUsage(state.usage, result.reply.usage);
    state.costUsd += result.reply.costUsd;

    const { calls, cutOff } = readCalls(result.reply, tools.length > 0 ? protocol : undefined);
    const { content } = result.reply.message;
    push(
      protocol === 'native' && calls.length > 0
        ? { role: 'assistant', content, toolCalls: calls }
        : { role: 'assistant', content },
    );
    if (calls.length === 0) {
      if (!cutOff || state.retriedCutOff) return end('done');
      state.retriedCutOff = true;
      push({ role: 'user', content: CUT_OFF_MESSAGE });
      continue;
    }
    state.retriedCutOff = false;
    for (const [index, call] of calls.entries()) {
      const skipped = skipReason(index, multiple, state.toolCalls >= (options.maxToolCalls ?? 40));
      if (skipped && protocol === 'text') break;
      if (!skipped) state.toolCalls++;
      const output =
        skipped ?? (await runToolCall(call, run)) + extraCallsNote(protocol, multiple, calls.length);
      push(
        protocol === 'native'
          ? { role: 'tool', toolCallId: call.id, name: call.name, content: output }
          : { role: 'user', content: formatToolResult(call.name, output) },
      );
    }
  }
}

/** The tool calls of a reply and whether a call was cut off (text protocol, or stop reason 'length'). */
function readCalls(
  reply: ModelReply,
  protocol: ToolProtocol | undefined,
): { calls: ToolCall[]; cutOff: boolean } {
  if (protocol === undefined) return { calls: [], cutOff: false };
  const { content, toolCalls } = reply.message;
  const length = reply.stopReason === 'length';
  if (protocol === 'native') {
    const calls = toolCalls ?? [];
    return { calls, cutOff: length && calls.length === 0 };
  }
  const parsed = parseToolCalls(content);
  const calls = parsed.calls.map((call, i) => ({ id: `text_call_${i}`, ...call }));
  const opened = content.includes('<json>') || content.includes('tool_name');
  return { calls, cutOff: parsed.truncated || (length && opened) };
}

function skipReason(index: number, multiple: boolean, limitReached: boolean): string | undefined {
  if (index > 0 && !multiple)
    return 'Not run: only one tool call per reply is run. Call it again if you still need it.';
  if (limitReached) return 'Not run: the tool-call limit for this run has been reached.';
  return undefined;
}

function extraCallsNote(protocol: ToolProtocol, multiple: boolean, count: number): string {
  if (multiple || count < 2 || protocol === 'native') return '';
  return `\n[Only the first of your ${count} tool calls was run. Send one tool call per reply.]`;
}
