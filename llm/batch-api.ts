import type { ModelProvider, ProviderError, ProviderResponse } from './provider.ts';
import type { ChatRequest } from './types.ts';

/**
 * A provider's batch endpoint: the same requests as `ModelProvider.complete`, answered within hours at the
 * batch price. A batch holds requests for one model; results are matched by `customId`, never by order.
 * Like `ModelProvider`, no method throws: failures are `{ok: false}` values.
 */
export interface BatchApi {
  /** Submits the requests as one batch (the caller keeps within `limits`); returns the provider's batch id. */
  submit(requests: readonly BatchRequest[], signal?: AbortSignal): Promise<BatchResult<{ batchId: string }>>;
  /** The batch's state now. */
  poll(batchId: string, signal?: AbortSignal): Promise<BatchResult<BatchStatus>>;
  /**
   * Every request's outcome, once `poll` said `ended`; a request the batch did not answer is a failure.
   * Gemini names a batch's requests only in its answers: there a request an expired or cancelled batch did
   * not run has no outcome, and the caller (who knows what it submitted) counts it as unanswered.
   */
  collect(batchId: string, signal?: AbortSignal): Promise<BatchResult<BatchOutcome[]>>;
  /** Stops a pending batch (its finished part is still charged and collectable). */
  cancel(batchId: string, signal?: AbortSignal): Promise<BatchResult<void>>;
  /** What one batch may hold: requests and bytes of the submitted body. */
  readonly limits: { maxRequests: number; maxBytes: number };
}

export interface BatchRequest {
  /** Unique within the batch; the harness derives it from the task, attempt and call index. */
  customId: string;
  /** The provider-neutral request, with `model` resolved, exactly as the gateway would send it. */
  request: ChatRequest;
}

export interface BatchStatus {
  /** `pending`: still working (validating, in progress, finalizing); `ended`: results can be collected. */
  state: 'pending' | 'ended';
  /** The provider's own word for the state (`in_progress`, `expired`, `ended`), for messages and the page. */
  providerState: string;
  done: number;
  failed: number;
  total: number;
}

export type BatchOutcome =
  | { customId: string; ok: true; response: ProviderResponse }
  | { customId: string; ok: false; reason: 'errored' | 'expired' | 'canceled'; error: ProviderError };

export type BatchResult<T> = { ok: true; value: T } | { ok: false; error: ProviderError };

/** A provider with a batch endpoint gives both: the ordinary client (for fallbacks) and the batch one. */
export interface BatchCapable {
  provider: ModelProvider;
  batch: BatchApi;
}
