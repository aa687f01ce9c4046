import type { AssistantReply, CallContext, ChatRequest, ErrorType, StopReason, Usage } from './types.ts';

export interface ProviderResponse {
  message: AssistantReply;
  stopReason: StopReason;
  usage: Usage;
  /** Cost the provider itself determined (billed cost, or the sim's nominal price); else the registry's. */
  costUsd?: number;
  /** What adaptation changed in the request (see `adaptRequest`), for the response and the ledger. */
  adapted?: string[];
  /**
   * The model the provider says served the call, as it named it (OpenAI's `model`, e.g. "gpt-4o-2024-08-06";
   * Anthropic's `model`; Gemini's `modelVersion`); absent when it named none.
   */
  reportedModel?: string;
}

export interface ProviderError {
  type: ErrorType;
  message: string;
  retryable: boolean;
  /** Upstream HTTP status, when there was one. */
  status?: number;
  /** How long the provider asked us to wait (`retry-after` / `retry-after-ms`), in ms. */
  retryAfterMs?: number;
}

/** What `withRetries` adds to a result: how many attempts the call took, and why the earlier ones failed. */
export interface RetryTrace {
  attempts: number;
  /** `type: message` of each failed attempt that was retried. */
  retried: string[];
}

export type ProviderResult = (
  | { ok: true; response: ProviderResponse }
  | { ok: false; error: ProviderError }
) & {
  trace?: RetryTrace;
};

/**
 * One model backend. `req.model` is already resolved to a registry id.
 * Contract: never throws and never rejects; every failure (network, HTTP, parse, abort) is a
 * `{ok: false}` result.
 */
export interface ModelProvider {
  complete(req: ChatRequest, ctx: CallContext, signal?: AbortSignal): Promise<ProviderResult>;
}

export function providerError(type: ErrorType, message: string, retryable = false): ProviderResult {
  return { ok: false, error: { type, message, retryable } };
}
