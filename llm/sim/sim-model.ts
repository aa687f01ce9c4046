import { type ModelProvider, type ProviderResult, providerError } from '../provider.ts';
import { costUsd, type ModelRecord, resolveModel } from '../registry.ts';
import type { CallContext, ChatRequest, StopReason, ToolCall } from '../types.ts';
import { createCallPlanner, type SimKnobs } from './faults.ts';
import type { SimLandscape } from './landscape.ts';
import { metaAction } from './meta-role.ts';
import { type ParsedSimReply, type ParsedSimScript, parseSimScript, type SimScript } from './script.ts';
import { type SimTask, TaskBook, taskTurn } from './task-role.ts';
import { assistantCount } from './transcript.ts';

export interface SimModelOptions {
  /** The run seed: equal seeds give equal replies to equal requests. */
  seed: number | string;
  /** The run's domains; the meta role proposes edits that help (or hurt) these. */
  domains: readonly string[];
  /** Replay exact replies for the roles it covers (see `SimScript`). */
  script?: SimScript;
  /** Nominal $ per million input and output tokens (default 0), so budgets can be exercised offline. */
  pricePerMTok?: number;
  /** Fixed delay per call in ms (default 0); honours the abort signal. Shorthand for `knobs.latency`. */
  latencyMs?: number;
  /**
   * The landscape's noise (0 to 1, default 0): the share of task answers drawn afresh on each attempt
   * (CallContext.attempt), so the same prompt scores differently on a second attempt (TaskBook.attemptThreshold).
   */
  noise?: number;
  /** Latency distribution and injected faults (docs/architecture.md, 'The simulated model'). */
  knobs?: SimKnobs;
  /** The task-side landscape (default: `default`); see landscape.ts. */
  landscape?: SimLandscape;
  /** Injected for tests: waits `ms`, resolving false when the signal aborts first. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<boolean>;
}

export interface SimModel extends ModelProvider {
  /** The `sim` registry record with this instance's price. */
  readonly model: ModelRecord;
  /** Makes tasks known to the task role: their inputs (to recognise a request) and gold answers. */
  registerTasks(domain: string, tasks: readonly SimTask[]): void;
}

interface Reply {
  content: string;
  toolCalls?: { name: string; input: Record<string, unknown> }[];
}

type ReplyOrError = { ok: true; reply: Reply } | { ok: false; result: ProviderResult };

/** The simulated model (docs/architecture.md, 'The simulated model'): deterministic, offline, never throws. */
// Over 80 lines: its roles share the seed, the script's cursors, the registered tasks and the fault plan.
export function createSimModel(opts: SimModelOptions): SimModel {
  const base = resolveModel('sim');
  if (!base.ok) throw new Error('the registry has no sim model');
  const price = opts.pricePerMTok ?? 0;
  const model: ModelRecord = { ...base.model, price: { ...base.model.price, input: price, output: price } };
  const script: ParsedSimScript | undefined = opts.script ? parseSimScript(opts.script) : undefined;
  const book = new TaskBook();
  const cursors = { task: 0, select: 0 };
  const knobs: SimKnobs = {
    ...(opts.latencyMs ? { latency: { kind: 'fixed', ms: opts.latencyMs } } : {}),
    ...opts.knobs,
  };
  const plan = createCallPlanner(opts.seed, knobs);
  const wait = opts.sleep ?? sleep;

  const cycle = (replies: ParsedSimReply[], role: 'task' | 'select'): Reply => {
    const reply = replies[cursors[role]++ % replies.length]!;
    return typeof reply === 'string' ? { content: reply } : reply;
  };

  const replyFor = (req: ChatRequest, ctx: CallContext): ReplyOrError => {
    switch (ctx.role) {
      case 'task':
        return {
          ok: true,
          reply: script?.task
            ? cycle(script.task, 'task')
            : taskTurn(
                req,
                opts.seed,
                book,
                { attempt: ctx.attempt ?? 0, noise: opts.noise ?? 0 },
                opts.landscape,
              ),
        };
      case 'select':
        return {
          ok: true,
          reply: script?.select
            ? cycle(script.select, 'select')
            : { content: 'Simulated selection (sim model): no preference among the candidates.' },
        };
      case 'meta':
        return script?.meta
          ? scriptedMeta(script.meta, req, ctx)
          : { ok: true, reply: simulatedMeta(req, ctx) };
    }
  };

  const simulatedMeta = (req: ChatRequest, ctx: CallContext): Reply => {
    const action = metaAction(req, { seed: opts.seed, variantId: ctx.variantId, domains: opts.domains });
    if (action.kind === 'final') return { content: action.content };
    const offered = req.tools?.map((t) => t.name);
    if (offered && offered.length > 0 && !offered.includes(action.call.name)) {
      return {
        content: `Simulated meta agent (sim model): the ${action.call.name} tool is not offered (tools: ${offered.join(', ')}), so I made no change.`,
      };
    }
    return { content: action.note, toolCalls: [action.call] };
  };

  return {
    model,
    registerTasks: (domain, tasks) => book.register(domain, tasks),
    async complete(req, ctx, signal) {
      try {
        if (signal?.aborted) return providerError('timeout', 'the call was aborted', true);
        const inputTokens = estimateInputTokens(req);
        if (inputTokens > model.contextWindow) {
          return providerError(
            'context_overflow',
            `the request is about ${inputTokens} tokens, over the sim's context window of ${model.contextWindow}`,
          );
        }
        const call = plan(req, ctx);
        if (call.latencyMs > 0 && !(await wait(call.latencyMs, signal))) {
          return providerError('timeout', 'the call was aborted', true);
        }
        if (call.fault) return { ok: false, error: call.fault };
        const chosen = replyFor(req, ctx);
        if (!chosen.ok) return chosen.result;
        return { ok: true, response: toResponse(req, chosen.reply, inputTokens, model) };
      } catch (error) {
        return providerError('internal', `sim model failed: ${(error as Error).message}`);
      }
    },
  };
}

function scriptedMeta(meta: ParsedSimReply[][], req: ChatRequest, ctx: CallContext): ReplyOrError {
  // The first list is generation 1, the one that creates variant 1.
  const generation = ctx.variantId ?? 1;
  const replies = meta[generation - 1];
  const index = assistantCount(req.messages);
  const reply = replies?.[index];
  if (reply === undefined) {
    const message = replies
      ? `sim script: generation ${generation} has ${replies.length} meta replies, call ${index + 1} asked for another`
      : `sim script: no meta replies for generation ${generation} (the script covers ${meta.length})`;
    return { ok: false, result: providerError('provider_error', message) };
  }
  return { ok: true, reply: typeof reply === 'string' ? { content: reply } : reply };
}

/**
 * Native protocol (request has tools): structured tool calls with ids. Text protocol: the calls are
 * written as `<json>{"tool_name", "tool_input"}</json>` blocks after the text.
 */
function toResponse(req: ChatRequest, reply: Reply, inputTokens: number, model: ModelRecord) {
  const step = assistantCount(req.messages);
  const native = (req.tools?.length ?? 0) > 0;
  const calls = reply.toolCalls ?? [];
  let content = reply.content;
  let toolCalls: ToolCall[] | undefined;
  if (native && calls.length > 0) {
    toolCalls = calls.map((c, i) => ({ id: `sim_${step}_${i}`, name: c.name, input: c.input }));
  } else if (calls.length > 0) {
    // "</" is written "<\/" (the same JSON) so a closing tag inside an argument cannot end the block.
    const blocks = calls.map(
      (c) =>
        `<json>${JSON.stringify({ tool_name: c.name, tool_input: c.input }).replaceAll('</', '<\\/')}</json>`,
    );
    content = [content, ...blocks].filter((s) => s.length > 0).join('\n');
  }
  let stopReason: StopReason = toolCalls ? 'tool_use' : 'end';
  let output = estimateTokens(content.length + (toolCalls ? JSON.stringify(toolCalls).length : 0));
  const limit = Math.min(req.maxTokens ?? model.maxOutput, model.maxOutput);
  if (output > limit) {
    content = content.slice(0, limit * 4);
    toolCalls = undefined;
    output = limit;
    stopReason = 'length';
  }
  const usage = { input: inputTokens, output, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  return {
    message: toolCalls ? { content, toolCalls } : { content },
    stopReason,
    usage,
    costUsd: costUsd(model, usage),
    // The sim serves every call itself: its own id is the one it reports.
    reportedModel: model.id,
  };
}

function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function estimateInputTokens(req: ChatRequest): number {
  let chars = req.tools ? JSON.stringify(req.tools).length : 0;
  for (const m of req.messages) {
    chars += m.content.length;
    if (m.role === 'assistant' && m.toolCalls) chars += JSON.stringify(m.toolCalls).length;
  }
  return estimateTokens(chars);
}

function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
