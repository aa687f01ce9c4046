import type {
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  TextBlockParam,
  ThinkingConfigEnabled,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { type AdaptedRequest, adaptRequest } from '../adapt.ts';
import { type ModelRecord, wireModelName } from '../model-record.ts';
import type { ChatRequest, Message, ReasoningEffort, ToolSpec } from '../types.ts';

/** Thinking budget per reasoning effort, in tokens (the API's minimum is 1024). */
export const THINKING_BUDGET: Readonly<Record<ReasoningEffort, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
};

const MIN_THINKING_BUDGET = 1024;
/** Anthropic's temperature range is 0 to 1 (the normalized request allows up to 2). */
const MAX_TEMPERATURE = 1;

export interface AnthropicRequest {
  body: MessageCreateParamsBase;
  /** Wire-level changes beyond `adaptRequest`'s, in the same one-line form. */
  notes: string[];
}

/**
 * The Messages API body the client sends for `req` on `model`, the one builder for ordinary calls and batch
 * requests alike: adapted to the model, then `toAnthropicRequest`. `notes` lists every change; a request of
 * system messages only is refused with the message to show.
 */
export function messagesBody(
  model: ModelRecord,
  req: ChatRequest,
): { ok: true; body: MessageCreateParamsBase; notes: string[] } | { ok: false; message: string } {
  const adapted = adaptRequest(model, req);
  const { body, notes } = toAnthropicRequest(adapted);
  if (body.messages.length === 0)
    return {
      ok: false,
      message: 'the request has only system messages; Anthropic needs at least one user message.',
    };
  return { ok: true, body, notes: [...adapted.adapted, ...notes] };
}

type Turn = { role: 'user' | 'assistant'; content: ContentBlockParam[] };

/**
 * The Messages API body for an adapted request: system messages in the top-level `system`, turns that
 * alternate user/assistant (consecutive tool results and user texts merged into one user turn), no empty
 * text blocks, the stable prefix marked for caching on `explicit`-caching models, and extended thinking
 * for a reasoning effort. Pure.
 */
export function toAnthropicRequest(req: AdaptedRequest): AnthropicRequest {
  const notes: string[] = [];
  const { system, turns } = toTurns(req.messages);
  const tools = req.tools?.map(toTool);
  let maxTokens = req.maxTokens;
  let temperature = req.temperature;
  if (temperature !== undefined && temperature > MAX_TEMPERATURE) {
    notes.push(`temperature clamped from ${temperature} to ${MAX_TEMPERATURE}, Anthropic's maximum`);
    temperature = MAX_TEMPERATURE;
  }

  let thinking: ThinkingConfigEnabled | undefined;
  if (req.reasoning !== undefined) {
    const plan = planThinking(req.reasoning, maxTokens, req.model.maxOutput, continuesToolCall(turns));
    notes.push(...plan.notes);
    if (plan.budget !== undefined) {
      thinking = { type: 'enabled', budget_tokens: plan.budget };
      maxTokens = plan.maxTokens;
      if (temperature !== undefined) {
        notes.push('temperature dropped: Anthropic does not take it together with extended thinking');
        temperature = undefined;
      }
    }
  }

  if (req.model.caching === 'explicit') markCachePrefix(system, tools, turns);
  const body: MessageCreateParamsBase = {
    model: wireModelName(req.model),
    max_tokens: maxTokens,
    messages: turns as MessageParam[],
    ...(system.length > 0 ? { system } : {}),
    ...(tools && tools.length > 0 ? { tools } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(thinking ? { thinking } : {}),
  };
  return { body, notes };
}

function toTurns(messages: readonly Message[]): { system: TextBlockParam[]; turns: Turn[] } {
  const system: TextBlockParam[] = [];
  const turns: Turn[] = [];
  const add = (role: Turn['role'], blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        system.push(...textBlocks(m.content));
        break;
      case 'user':
        add('user', textBlocks(m.content));
        break;
      case 'assistant':
        add('assistant', [
          ...textBlocks(m.content),
          ...(m.toolCalls ?? []).map((c) => ({
            type: 'tool_use' as const,
            id: c.id,
            name: c.name,
            input: c.input,
          })),
        ]);
        break;
      case 'tool':
        add('user', [
          {
            type: 'tool_result',
            tool_use_id: m.toolCallId,
            ...(m.content.trim() === '' ? {} : { content: m.content }),
          },
        ]);
        break;
    }
  }
  // Within a user turn the tool results answer the previous assistant turn, so they come first.
  for (const turn of turns) if (turn.role === 'user') turn.content.sort((a, b) => rank(a) - rank(b));
  return { system, turns };
}

const rank = (block: ContentBlockParam) => (block.type === 'tool_result' ? 0 : 1);

/** The API refuses empty and whitespace-only text blocks. */
function textBlocks(text: string): TextBlockParam[] {
  return text.trim() === '' ? [] : [{ type: 'text', text }];
}

function toTool(spec: ToolSpec): Tool {
  return {
    name: spec.name,
    ...(spec.description === '' ? {} : { description: spec.description }),
    input_schema: { type: 'object', ...spec.inputSchema } as Tool.InputSchema,
  };
}

/**
 * Breakpoints on the last system block, the last tool and the last block of the last user turn (3 of the
 * API's 4): everything before each is reused by the next call that starts the same way.
 */
function markCachePrefix(system: TextBlockParam[], tools: Tool[] | undefined, turns: Turn[]): void {
  const ephemeral = { type: 'ephemeral' } as const;
  const lastSystem = system.at(-1);
  if (lastSystem) lastSystem.cache_control = ephemeral;
  const lastTool = tools?.at(-1);
  if (lastTool) lastTool.cache_control = ephemeral;
  const lastUser = turns.findLast((t) => t.role === 'user')?.content.at(-1);
  if (lastUser) Object.assign(lastUser, { cache_control: ephemeral });
}

/**
 * With thinking on, the API requires the last assistant turn to start with the thinking block it produced
 * when that turn called tools. Normalized messages do not keep thinking blocks, so such a call goes
 * without thinking.
 */
function continuesToolCall(turns: readonly Turn[]): boolean {
  const lastAssistant = turns.findLast((t) => t.role === 'assistant');
  return lastAssistant?.content.some((b) => b.type === 'tool_use') ?? false;
}

interface ThinkingPlan {
  budget?: number;
  maxTokens: number;
  notes: string[];
}

/**
 * Thinking budget and `max_tokens` for an effort. The budget counts within `max_tokens` and must be below it,
 * so `max_tokens` is raised by the budget (up to the model's limit) to leave the answer its room.
 */
export function planThinking(
  effort: ReasoningEffort,
  maxTokens: number,
  modelMaxOutput: number,
  continuesTool = false,
): ThinkingPlan {
  if (continuesTool)
    return {
      maxTokens,
      notes: [
        `reasoning not sent: this call continues a tool call, and Anthropic then needs that reply's thinking blocks, which are not kept`,
      ],
    };
  const notes: string[] = [];
  let budget = THINKING_BUDGET[effort];
  let max = maxTokens;
  if (budget >= max && modelMaxOutput > max) {
    max = Math.min(modelMaxOutput, budget + maxTokens);
    notes.push(`maxTokens raised from ${maxTokens} to ${max} to hold a ${budget}-token thinking budget`);
  }
  if (budget >= max) {
    budget = Math.floor(max / 2);
    if (budget < MIN_THINKING_BUDGET)
      return {
        maxTokens,
        notes: [
          `reasoning dropped: ${max} output tokens leave no room for a thinking budget of at least 1024`,
        ],
      };
    notes.push(
      `thinking budget cut to ${budget} tokens to fit the model's output limit of ${modelMaxOutput}`,
    );
  }
  notes.push(`reasoning ${effort} sent as a thinking budget of ${budget} tokens`);
  return { budget, maxTokens: max, notes };
}
