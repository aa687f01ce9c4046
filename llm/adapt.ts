import type { ModelRecord } from './model-record.ts';
import type { ChatRequest, Message, ReasoningEffort, ToolSpec } from './types.ts';

/** Output cap when the request names none: the model's limit, but no more than this. */
export const DEFAULT_MAX_TOKENS = 8192;

/** Anthropic's smallest thinking budget; the budget must also stay below `max_tokens`. */
export const ANTHROPIC_MIN_THINKING_BUDGET = 1024;

/** Anthropic takes temperatures from 0 to 1 (OpenAI and Gemini: 0 to 2). */
const ANTHROPIC_MAX_TEMPERATURE = 1;

const EFFORT_ORDER: readonly ReasoningEffort[] = ['minimal', 'low', 'medium', 'high'];

/** A request fitted to one model: only what it accepts, and notes of what changed. */
export interface AdaptedRequest {
  model: ModelRecord;
  messages: Message[];
  tools?: ToolSpec[];
  temperature?: number;
  /** Always set: Anthropic requires it, and every call's maximum cost depends on it. */
  maxTokens: number;
  reasoning?: ReasoningEffort;
  /** One line per change, e.g. `temperature dropped: openai/o3 does not accept it`. */
  adapted: string[];
}

/**
 * Fits a normalized request to a model (docs/architecture.md, 'Model calls'): drops parameters it does not
 * take, clamps the output cap and the temperature to its limits, moves a reasoning effort it does not take to
 * the nearest one it does, and notes the wire-level renames the provider will make. Pure; the request is
 * not changed.
 */
export function adaptRequest(model: ModelRecord, req: ChatRequest): AdaptedRequest {
  const adapted: string[] = [];
  const maxTokens = Math.min(req.maxTokens ?? DEFAULT_MAX_TOKENS, model.maxOutput);
  const out: AdaptedRequest = { model, messages: req.messages, maxTokens, adapted };
  if (req.maxTokens !== undefined && req.maxTokens > model.maxOutput)
    adapted.push(`maxTokens clamped from ${req.maxTokens} to ${model.maxOutput}, ${model.id}'s output limit`);

  const reasoning = adaptReasoning(model, req.reasoning, maxTokens, adapted);
  if (reasoning !== undefined) out.reasoning = reasoning;
  const temperature = adaptTemperature(model, req.temperature, reasoning !== undefined, adapted);
  if (temperature !== undefined) out.temperature = temperature;

  if (req.tools !== undefined && req.tools.length > 0) {
    if (model.nativeTools) out.tools = req.tools;
    else
      adapted.push(
        `tools dropped: ${model.id} has no native tool calling (agents use the <json> text protocol for it)`,
      );
  }
  if (model.api === 'openai-chat') {
    if (model.maxTokensField === 'max_completion_tokens')
      adapted.push('maxTokens sent as max_completion_tokens');
    if (model.systemRole === 'developer' && req.messages.some((m) => m.role === 'system'))
      adapted.push('system prompt sent with role developer');
  }
  return out;
}

function adaptReasoning(
  model: ModelRecord,
  effort: ReasoningEffort | undefined,
  maxTokens: number,
  adapted: string[],
): ReasoningEffort | undefined {
  if (effort === undefined) return undefined;
  if (!model.reasoning) {
    adapted.push(`reasoning dropped: ${model.id} is not a reasoning model`);
    return undefined;
  }
  if (model.api === 'anthropic-messages' && maxTokens <= ANTHROPIC_MIN_THINKING_BUDGET) {
    adapted.push(
      `reasoning dropped: ${model.id} thinks with a budget of at least ${ANTHROPIC_MIN_THINKING_BUDGET} tokens below maxTokens, and maxTokens is ${maxTokens}`,
    );
    return undefined;
  }
  const accepted = model.reasoningEfforts;
  if (accepted === undefined || accepted.includes(effort)) return effort;
  const rank = EFFORT_ORDER.indexOf(effort);
  const higher = EFFORT_ORDER.filter((e, i) => i > rank && accepted.includes(e));
  const nearest = higher[0] ?? EFFORT_ORDER.filter((e) => accepted.includes(e)).at(-1);
  if (nearest === undefined) return effort;
  adapted.push(`reasoning ${effort} sent as ${nearest}: ${model.id} takes ${accepted.join(', ')}`);
  return nearest;
}

function adaptTemperature(
  model: ModelRecord,
  temperature: number | undefined,
  thinking: boolean,
  adapted: string[],
): number | undefined {
  if (temperature === undefined) return undefined;
  if (!model.temperature) {
    adapted.push(`temperature dropped: ${model.id} does not accept it`);
    return undefined;
  }
  if (model.api !== 'anthropic-messages') return temperature;
  if (thinking) {
    adapted.push(`temperature dropped: ${model.id} does not take one while it thinks (reasoning is on)`);
    return undefined;
  }
  if (temperature > ANTHROPIC_MAX_TEMPERATURE) {
    adapted.push(
      `temperature clamped from ${temperature} to ${ANTHROPIC_MAX_TEMPERATURE}, ${model.id}'s maximum`,
    );
    return ANTHROPIC_MAX_TEMPERATURE;
  }
  return temperature;
}
