import { z } from 'zod';

/** Tool call requested by the model. `id` pairs it with the later `tool` message. */
export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const MessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    toolCalls: z.array(ToolCallSchema).optional(),
  }),
  z.object({
    role: z.literal('tool'),
    toolCallId: z.string().min(1),
    name: z.string().min(1),
    content: z.string(),
  }),
]);
export type Message = z.infer<typeof MessageSchema>;

/** `inputSchema` is a JSON Schema object (agents build it with `z.toJSONSchema`). */
export const ToolSpecSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

export const ReasoningEffortSchema = z.enum(['minimal', 'low', 'medium', 'high']);
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

/** Body of `POST /v1/chat`. `model` omitted = the token's assigned model. */
export const ChatRequestSchema = z.object({
  model: z.string().min(1).optional(),
  messages: z.array(MessageSchema).min(1),
  tools: z.array(ToolSpecSchema).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  reasoning: ReasoningEffortSchema.optional(),
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/**
 * Normalized token counts of one call. `input` excludes cache reads and cache writes (each counted apart,
 * so cost is a plain sum); `reasoning` is the part of `output` spent on hidden reasoning.
 */
export const UsageSchema = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheRead: z.number().int().nonnegative(),
  cacheWrite: z.number().int().nonnegative(),
  reasoning: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const ZERO_USAGE: Usage = Object.freeze({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
});

export const StopReasonSchema = z.enum(['end', 'tool_use', 'length']);
export type StopReason = z.infer<typeof StopReasonSchema>;

export const AssistantReplySchema = z.object({
  content: z.string(),
  toolCalls: z.array(ToolCallSchema).optional(),
});
export type AssistantReply = z.infer<typeof AssistantReplySchema>;

/** 200 body of `POST /v1/chat`. */
export const ChatResponseSchema = z.object({
  message: AssistantReplySchema,
  stopReason: StopReasonSchema,
  usage: UsageSchema,
  costUsd: z.number().nonnegative(),
  model: z.string(),
  latencyMs: z.number().nonnegative(),
  /** What was changed to fit the model, e.g. `temperature dropped: o3 does not accept it`. */
  adapted: z.array(z.string()).optional(),
});
export type ChatResponse = z.infer<typeof ChatResponseSchema>;

export const ErrorTypeSchema = z.enum([
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
export type ErrorType = z.infer<typeof ErrorTypeSchema>;

/** HTTP status the gateway answers for each error type. */
export const ERROR_STATUS: Readonly<Record<ErrorType, number>> = {
  auth: 401,
  bad_request: 400,
  unknown_model: 400,
  budget_exceeded: 402,
  context_overflow: 413,
  rate_limit: 429,
  provider_error: 502,
  timeout: 504,
  unreachable: 502,
  internal: 500,
};

/** 4xx/5xx body of the gateway. */
export const GatewayErrorBodySchema = z.object({
  error: z.object({ type: ErrorTypeSchema, message: z.string(), retryable: z.boolean() }),
});
export type GatewayErrorBody = z.infer<typeof GatewayErrorBodySchema>;

/** 200 body of `GET /v1/models`; the token's assigned model first. */
export const ModelsResponseSchema = z.object({
  models: z.array(
    z.object({
      id: z.string(),
      nativeTools: z.boolean(),
      contextWindow: z.number(),
      maxOutput: z.number(),
      simulated: z.boolean(),
    }),
  ),
});
export type ModelsResponse = z.infer<typeof ModelsResponseSchema>;

export const RoleSchema = z.enum(['meta', 'task', 'select']);
export type Role = z.infer<typeof RoleSchema>;

/** Who a call is made for; carried by the gateway token. `variantId` is null outside a generation. */
export interface CallContext {
  runId: string;
  variantId: number | null;
  role: Role;
  /**
   * Which attempt at its tasks a task-role call is part of (0 first; `--eval-repeats` makes more). A model
   * may answer a second attempt differently; the sim's noisy landscape does (`--sim-noise`).
   */
  attempt?: number;
}

/** One row per gateway call, successful or not (calls refused before auth have no row). */
export interface LedgerRow {
  /** ISO 8601 time the call arrived. */
  ts: string;
  runId: string;
  variantId: number | null;
  role: Role;
  /** The model id the call asked for (a registry id). */
  model: string;
  /** The model the provider said served the call (see `ProviderResponse.reportedModel`); absent when none. */
  reportedModel?: string;
  usage: Usage;
  costUsd: number;
  latencyMs: number;
  status: 'ok' | ErrorType;
  error?: string;
}

/**
 * zod issues as `path: message` lines, e.g. `messages.2.content: Invalid input: expected string`. A union
 * reports the branch that matched the value's type, or the types it expected.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return flattenIssues(issues, [])
    .map(({ path, message }) => `  ${path.length > 0 ? path.map(String).join('.') : '(root)'}: ${message}`)
    .join('\n');
}

function flattenIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[],
): { path: PropertyKey[]; message: string }[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code !== 'invalid_union' || issue.errors.length === 0)
      return [{ path, message: issue.message }];
    const wrongType = (branch: z.core.$ZodIssue[]) =>
      branch.length === 1 && branch[0]?.code === 'invalid_type' && branch[0].path.length === 0;
    const near = issue.errors.filter((branch) => !wrongType(branch));
    if (near.length === 1) return flattenIssues(near[0]!, path);
    const expected = issue.errors.flatMap((b) => (b[0]?.code === 'invalid_type' ? [b[0].expected] : []));
    const message =
      expected.length === issue.errors.length ? `expected one of: ${expected.join(', ')}` : issue.message;
    return [{ path, message }];
  });
}
