import { type ContextBudget, contextBudgetChars, DEFAULT_ANSWER_TOKENS, trimContext } from './context.ts';
import { DEFAULT_MAX_TOOL_CALLS, DEFAULT_MAX_TURNS } from './limits.ts';
import {
  addUsage,
  type Message,
  type ModelError,
  type ModelFn,
  type ModelInfo,
  type ModelReply,
  type ModelRequest,
  type ModelResult,
  modelReplySchema,
  type ReasoningEffort,
  type ToolCall,
  type Usage,
  zeroUsage,
} from './messages.ts';
import { type BeforeToolCall, defaultSafetyPolicy } from './safety.ts';
import { type Tool, toToolSpec } from './tool.ts';
import { formatToolResult, parseToolCalls, renderToolList } from './tool-protocol.ts';
import { runToolCall, type ToolRunOptions } from './tool-runner.ts';

export { DEFAULT_MAX_TOOL_CALLS, DEFAULT_MAX_TURNS } from './limits.ts';

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
  /** Output cap per reply, in tokens; also what context trimming reserves for the reply. */
  maxTokens?: number;
  reasoning?: ReasoningEffort;
  /** Default 40. */
  maxToolCalls?: number;
  /** Model calls, default 60. */
  maxTurns?: number;
  /**
   * Ends the run (status `max_wall_time`) once this much time has passed: checked before each model call,
   * and a model call in flight is aborted (its signal fires); a running tool call is not interrupted.
   */
  wallTimeMs?: number;
  /** Ends the run (status `max_cost`) before a model call once the cost so far reaches this. */
  maxCostUsd?: number;
  /** Run every call of a reply in order (default: only the first). */
  multipleToolCalls?: boolean;
  /** Default `defaultSafetyPolicy`; a function given here replaces it (it may call it to wrap it). */
  beforeToolCall?: BeforeToolCall;
  /** The working root the safety policy confines tools to (default: the current directory). */
  root?: string;
  /** Longer tool output is cut in the middle with a note. Default 30,000. */
  maxToolOutputChars?: number;
  /** Called with every message appended to the transcript (for progress logs). */
  onMessage?: (message: Message) => void;
};

export type ChatStatus = 'done' | 'max_tool_calls' | 'max_turns' | 'max_wall_time' | 'max_cost' | 'error';

export type ChatOutcome = {
  status: ChatStatus;
  /** Text of the last assistant reply ('' if none). */
  finalText: string;
  /** The whole transcript, system prompt first (what the model was sent may be trimmed; this never is). */
  messages: Message[];
  toolCalls: number;
  turns: number;
  usage: Usage;
  costUsd: number;
  /** Set when status is `error`: why the run could not go on. */
  error?: ModelError;
};

export const CUT_OFF_MESSAGE =
  'Your tool call was cut off before it was complete. Send it again, shorter (for example, split a long file into several smaller edits).';

const CUT_OFF_AFTER_NOTE =
  '\n[Your reply was cut off after this call: the call after it was incomplete and was not run. Send it again, shorter.]';

type Run = ReturnType<typeof prepare>;
type State = { toolCalls: number; turns: number; usage: Usage; costUsd: number; cutOff: boolean };

/**
 * The agent loop: call the model, run the tool calls it makes, feed the results back, until a reply has
 * no tool call or a limit is hit. Never throws for model or tool failures; the outcome says how it ended.
 */
export async function chatWithAgent(options: ChatOptions): Promise<ChatOutcome> {
  const run = prepare(options);
  const messages: Message[] = [];
  const state: State = { toolCalls: 0, turns: 0, usage: zeroUsage(), costUsd: 0, cutOff: false };
  const push = (message: Message) => {
    messages.push(message);
    options.onMessage?.(message);
  };
  const end = (status: ChatStatus, error?: ModelError): ChatOutcome => {
    const finalText = messages.findLast((m) => m.role === 'assistant')?.content ?? '';
    const { toolCalls, turns, usage, costUsd } = state;
    return { status, finalText, messages, toolCalls, turns, usage, costUsd, ...(error ? { error } : {}) };
  };

  push({ role: 'system', content: options.system + run.toolList });
  push({ role: 'user', content: options.user });
  for (;;) {
    const limit = limitReached(state, run);
    if (limit) return end(limit);
    const request = buildRequest(messages, run);
    if (!request.ok) return end('error', request.error);
    const result = await callModel(options.model, request.request, run.deadline);
    state.turns++;
    if (result === 'wall_time') return end('max_wall_time');
    if (!result.ok) return end('error', result.error);
    state.usage = addUsage(state.usage, result.reply.usage);
    state.costUsd += result.reply.costUsd;

    const { calls, cutOff } = readCalls(result.reply, run.tools.length > 0 ? run.protocol : undefined);
    const { content } = result.reply.message;
    const native = run.protocol === 'native' && calls.length > 0;
    push(native ? { role: 'assistant', content, toolCalls: calls } : { role: 'assistant', content });
    if (calls.length === 0) {
      if (!cutOff) return end('done');
      if (state.cutOff) return end('error', cutOffTwice());
      state.cutOff = true;
      push({ role: 'user', content: CUT_OFF_MESSAGE });
      continue;
    }
    state.cutOff = false;
    for (const [index, call] of calls.entries()) {
      const skipped = skipReason(index, run.multiple, state.toolCalls >= run.maxToolCalls);
      if (skipped && run.protocol === 'text') break;
      if (!skipped) state.toolCalls++;
      const last = index === calls.length - 1;
      const note = extraCallsNote(run, calls.length) + (last && cutOff ? CUT_OFF_AFTER_NOTE : '');
      const output = skipped ?? (await runToolCall(call, run.toolRun)) + note;
      push(
        run.protocol === 'native'
          ? { role: 'tool', toolCallId: call.id, name: call.name, content: output }
          : { role: 'user', content: formatToolResult(call.name, output) },
      );
    }
  }
}

/** Everything fixed for the whole run: protocol, tool list, limits, context budget. */
function prepare(options: ChatOptions) {
  const tools = options.tools ?? [];
  const protocol: ToolProtocol = options.protocol ?? (options.modelInfo?.nativeTools ? 'native' : 'text');
  const specs = tools.map(toToolSpec);
  const multiple = options.multipleToolCalls ?? false;
  const sendsSpecs = protocol === 'native' && specs.length > 0;
  const toolRun: ToolRunOptions = {
    tools,
    beforeToolCall: options.beforeToolCall ?? defaultSafetyPolicy,
    root: options.root ?? process.cwd(),
    maxOutputChars: options.maxToolOutputChars ?? 30_000,
  };
  const fields: Omit<ModelRequest, 'messages'> = {
    ...(sendsSpecs ? { tools: specs } : {}),
    ...(options.modelInfo?.id ? { model: options.modelInfo.id } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    ...(options.reasoning !== undefined ? { reasoning: options.reasoning } : {}),
  };
  return {
    tools,
    protocol,
    multiple,
    toolRun,
    fields,
    toolList:
      protocol === 'text' && tools.length > 0
        ? `\n\n${renderToolList(specs, { multipleToolCalls: multiple })}`
        : '',
    budget: contextBudget(options, sendsSpecs ? JSON.stringify(specs).length : 0),
    maxToolCalls: options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
    maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS,
    deadline: options.wallTimeMs === undefined ? undefined : Date.now() + options.wallTimeMs,
    maxCostUsd: options.maxCostUsd,
  };
}

/** The character budget for messages, when the model's context window is known; tool schemas count too. */
function contextBudget(
  options: ChatOptions,
  specChars: number,
): (ContextBudget & { window: number }) | undefined {
  const window = options.modelInfo?.contextWindow;
  if (window === undefined) return undefined;
  const maxOutput = options.modelInfo?.maxOutput ?? Number.POSITIVE_INFINITY;
  const answerTokens = options.maxTokens ?? Math.min(DEFAULT_ANSWER_TOKENS, maxOutput);
  return { maxChars: contextBudgetChars(window, answerTokens) - specChars, window };
}

/** The one place limits are checked, before each model call. */
function limitReached(state: State, run: Run): ChatStatus | undefined {
  if (state.toolCalls >= run.maxToolCalls) return 'max_tool_calls';
  if (state.turns >= run.maxTurns) return 'max_turns';
  if (run.deadline !== undefined && Date.now() >= run.deadline) return 'max_wall_time';
  if (run.maxCostUsd !== undefined && state.costUsd >= run.maxCostUsd) return 'max_cost';
  return undefined;
}

type BuiltRequest = { ok: true; request: ModelRequest } | { ok: false; error: ModelError };

/** The request for the next turn: the transcript trimmed to the context budget, or why it cannot fit. */
function buildRequest(messages: Message[], run: Run): BuiltRequest {
  if (run.budget === undefined) return { ok: true, request: { messages: [...messages], ...run.fields } };
  const trimmed = trimContext(messages, run.budget);
  if (trimmed.fits) return { ok: true, request: { messages: trimmed.messages, ...run.fields } };
  const model = run.fields.model ?? 'the model';
  const message =
    `The conversation does not fit the context window of ${model} (${run.budget.window} tokens, about ` +
    `${run.budget.maxChars} characters of input after reserving room for the reply): even the system ` +
    `prompt, the task and the latest turn with shortened tool outputs take ${trimmed.chars} characters. ` +
    'Use a model with a larger context window, shorten the system prompt or the task, or lower maxTokens.';
  return { ok: false, error: { type: 'context_overflow', message, retryable: false } };
}

/**
 * Calls the model; never throws. A throw, a rejection or a malformed result becomes an `internal` error;
 * past the deadline the call is aborted (its signal fires) and `'wall_time'` comes back.
 */
async function callModel(
  model: ModelFn,
  request: ModelRequest,
  deadline: number | undefined,
): Promise<ModelResult | 'wall_time'> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<'wall_time'>((resolve) => {
    if (deadline === undefined) return;
    timer = setTimeout(
      () => {
        controller.abort();
        resolve('wall_time');
      },
      Math.min(deadline - Date.now(), 2 ** 31 - 1),
    );
  });
  const answer = Promise.resolve()
    .then(() => model(request, { signal: controller.signal }))
    .then(checkResult, (error: unknown) => failed(`the model call threw: ${describe(error)}`));
  try {
    return await Promise.race([answer, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function checkResult(result: unknown): ModelResult {
  const shaped = result as Partial<{ ok: unknown; reply: unknown; error: ModelError }> | null | undefined;
  if (shaped?.ok === false && typeof shaped.error?.message === 'string') return shaped as ModelResult;
  if (shaped?.ok !== true) return failed(`the model returned ${describe(result)} instead of a ModelResult`);
  const reply = modelReplySchema.safeParse(shaped.reply);
  if (reply.success) return { ok: true, reply: reply.data };
  return failed(`the model returned a malformed reply: ${reply.error.message}`);
}

function failed(what: string): ModelResult {
  const message = `${what}. A ModelFn must resolve to { ok: true, reply } or { ok: false, error } and never throw.`;
  return { ok: false, error: { type: 'internal', message, retryable: false } };
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
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
  const closed = content.lastIndexOf('</json>');
  const tail = closed === -1 ? content : content.slice(closed + '</json>'.length);
  const begun = tail.includes('<json') || tail.includes('tool_name');
  return { calls, cutOff: parsed.truncated || (length && begun) };
}

function cutOffTwice(): ModelError {
  return {
    type: 'provider_error',
    message:
      "The model's reply was cut off twice in a row before its tool call was complete (even after being " +
      'asked to send it again, shorter). Raise maxTokens, or ask in the prompt for smaller tool calls.',
    retryable: false,
  };
}

function skipReason(index: number, multiple: boolean, limitReached: boolean): string | undefined {
  if (index > 0 && !multiple)
    return 'Not run: only one tool call per reply is run. Call it again if you still need it.';
  if (limitReached) return 'Not run: the tool-call limit for this run has been reached.';
  return undefined;
}

function extraCallsNote(run: Run, count: number): string {
  if (run.multiple || count < 2 || run.protocol === 'native') return '';
  return `\n[Only the first of your ${count} tool calls was run. Send one tool call per reply.]`;
}
