import type { ModelRecord } from './registry.ts';
import type { ChatRequest, Message, ReasoningEffort, ToolSpec } from './types.ts';

/** Output cap when the request names none: the model's limit, but no more than this. */
export const DEFAULT_MAX_TOKENS = 8192;

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
 * Fits a normalized request to a model (DESIGN §4 "Adaptation"): drops parameters it does not take,
 * clamps the output cap to its limit, and notes the wire-level renames the provider will make.
 */
export function adaptRequest(model: ModelRecord, req: ChatRequest): AdaptedRequest {
  const adapted: string[] = [];
  const out: AdaptedRequest = {
    model,
    messages: req.messages,
    maxTokens: Math.min(req.maxTokens ?? DEFAULT_MAX_TOKENS, model.maxOutput),
    adapted,
  };
  if (req.maxTokens !== undefined && req.maxTokens > model.maxOutput)
    adapted.push(`maxTokens clamped from ${req.maxTokens} to ${model.maxOutput}, ${model.id}'s output limit`);
  if (req.temperature !== undefined) {
    if (model.temperature) out.temperature = req.temperature;
    else adapted.push(`temperature dropped: ${model.id} does not accept it`);
  }
  if (req.reasoning !== undefined) {
    if (model.reasoning) out.reasoning = req.reasoning;
    else adapted.push(`reasoning dropped: ${model.id} is not a reasoning model`);
  }
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
