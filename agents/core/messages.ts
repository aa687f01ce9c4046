import { z } from 'zod';

/** Agent-side copy of the gateway wire protocol (POST /v1/chat, GET /v1/models). */

export type ToolCall = { id: string; name: string; input: unknown };

export type SystemMessage = { role: 'system'; content: string };
export type UserMessage = { role: 'user'; content: string };
export type AssistantMessage = { role: 'assistant'; content: string; toolCalls?: ToolCall[] };
export type ToolResultMessage = { role: 'tool'; toolCallId: string; name: string; content: string };
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

/** A tool as the model sees it; `inputSchema` is a JSON Schema object. */
export type ToolSpec = { name: string; description: string; inputSchema: Record<string, unknown> };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

/** Body of `POST /v1/chat`. `model` omitted = the token's assigned model. */
export type ModelRequest = {
  model?: string;
  messages: Message[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  reasoning?: ReasoningEffort;
};

const usageSchema = z.object({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  reasoning: z.number(),
});
export type Usage = z.infer<typeof usageSchema>;

const toolCallSchema = z.object({ id: z.string(), name: z.string(), input: z.unknown() });

export const modelReplySchema = z.object({
  message: z.object({ content: z.string(), toolCalls: z.array(toolCallSchema).optional() }),
  stopReason: z.enum(['end', 'tool_use', 'length']),
  usage: usageSchema,
  costUsd: z.number(),
  model: z.string(),
  latencyMs: z.number(),
  /** What the gateway changed to fit the model, e.g. `temperature dropped: o3 does not accept it`. */
  adapted: z.array(z.string()).optional(),
});
export type ModelReply = z.infer<typeof modelReplySchema>;
export type StopReason = ModelReply['stopReason'];

export const modelErrorTypeSchema = z.enum([
  'auth',
  'bad_request',
  'unknown_model',
  'budget_exceeded',
  'rate_limit',
  'context_overflow',
  'provider_error',
  'timeout',
  'unreachable',
  'internal',
]);
export type ModelErrorType = z.infer<typeof modelErrorTypeSchema>;

export const modelErrorSchema = z.object({
  type: modelErrorTypeSchema,
  message: z.string(),
  retryable: z.boolean(),
});
export type ModelError = z.infer<typeof modelErrorSchema>;

/** What a model call returns: failures are data, never exceptions. */
export type ModelResult = { ok: true; reply: ModelReply } | { ok: false; error: ModelError };

/** Per-call options; `signal` aborts when the caller stops waiting (e.g. the loop's wall-time limit). */
export type ModelCallOptions = { signal?: AbortSignal };

/**
 * A model as the agent loop sees it. Must not throw: failures come back as `{ ok: false, error }` (the
 * loop still turns a throw into an `error` outcome, as a safety net).
 */
export type ModelFn = (request: ModelRequest, options?: ModelCallOptions) => Promise<ModelResult>;

export const modelInfoSchema = z.object({
  id: z.string(),
  nativeTools: z.boolean(),
  contextWindow: z.number(),
  maxOutput: z.number(),
  simulated: z.boolean(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;

export function zeroUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
}

export function addUsage(total: Usage, more: Usage): Usage {
  return {
    input: total.input + more.input,
    output: total.output + more.output,
    cacheRead: total.cacheRead + more.cacheRead,
    cacheWrite: total.cacheWrite + more.cacheWrite,
    reasoning: total.reasoning + more.reasoning,
  };
}
