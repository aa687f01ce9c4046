import type { ModelProvider, ProviderError, ProviderResult } from './provider.ts';
import type { CallContext, ChatRequest } from './types.ts';

/** DESIGN §4: exponential backoff with jitter, at most `maxWaitMs` per wait and `totalMs` in all. */
export interface RetryPolicy {
  /** First wait before jitter (doubles each retry). */
  baseMs: number;
  maxWaitMs: number;
  totalMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  baseMs: 1000,
  maxWaitMs: 60_000,
  totalMs: 600_000,
});

export interface RetryInfo {
  attempt: number;
  waitMs: number;
  error: ProviderError;
}

export interface RetryOptions {
  policy?: Partial<RetryPolicy>;
  /** Injected for tests; resolves early (without error) when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  onRetry?: (info: RetryInfo) => void;
}

/** How long to wait before retry number `attempt` (1-based): `retry-after` when given, else backoff with jitter. */
export function retryDelay(
  attempt: number,
  error: ProviderError,
  policy: RetryPolicy,
  random: () => number,
): number {
  if (error.retryAfterMs !== undefined) return Math.min(Math.max(0, error.retryAfterMs), policy.maxWaitMs);
  const exponential = policy.baseMs * 2 ** (attempt - 1);
  return Math.min(policy.maxWaitMs, exponential * (0.5 + random() / 2));
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Wraps a provider so retryable failures are tried again per the policy. The final failure's message says
 * how many attempts were made. Never throws (the wrapped provider must not either).
 */
export function withRetries(provider: ModelProvider, options: RetryOptions = {}): ModelProvider {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  return {
    async complete(req: ChatRequest, ctx: CallContext, signal?: AbortSignal): Promise<ProviderResult> {
      const started = now();
      for (let attempt = 1; ; attempt++) {
        const result = await provider.complete(req, ctx, signal);
        if (result.ok || !result.error.retryable || signal?.aborted) return result;
        const waitMs = retryDelay(attempt, result.error, policy, random);
        if (now() - started + waitMs > policy.totalMs) {
          const seconds = Math.round((now() - started) / 1000);
          return {
            ok: false,
            error: {
              ...result.error,
              message: `${result.error.message} (gave up after ${attempt} attempt${attempt === 1 ? '' : 's'} in ${seconds} s)`,
            },
          };
        }
        options.onRetry?.({ attempt, waitMs, error: result.error });
        await sleep(waitMs, signal);
        if (signal?.aborted) return result;
      }
    },
  };
}
