import type { ModelProvider, ProviderError, ProviderResult } from './provider.ts';
import type { CallContext, ChatRequest } from './types.ts';

/**
 * Exponential backoff with jitter, at most `maxWaitMs` per wait and `totalMs` in all (ms)
 * (docs/architecture.md, 'Model calls').
 */
export interface RetryPolicy {
  /** First wait before jitter (doubles each retry). */
  baseMs: number;
  /** Longest single wait, `retry-after` included. */
  maxWaitMs: number;
  /** No retry is started whose wait would end later than this after the first attempt began. */
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
  /** Waits `ms`; resolves early (without error) when the signal aborts. Injected by tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** In [0, 1), for jitter. */
  random?: () => number;
  /** Clock in ms, for the total cap. */
  now?: () => number;
  /** Told before each wait. */
  onRetry?: (info: RetryInfo) => void;
}

/**
 * How long to wait before retry number `attempt` (1-based), in ms: the provider's `retry-after` when given,
 * else `baseMs` doubling per attempt; either way at most `maxWaitMs`. The backoff is jittered to between
 * half and all of that, so callers that failed together do not retry together.
 */
export function retryDelay(
  attempt: number,
  error: ProviderError,
  policy: RetryPolicy,
  random: () => number,
): number {
  if (error.retryAfterMs !== undefined) return Math.min(Math.max(0, error.retryAfterMs), policy.maxWaitMs);
  const backoff = Math.min(policy.maxWaitMs, policy.baseMs * 2 ** (attempt - 1));
  return backoff * (0.5 + random() / 2);
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

function plural(n: number): string {
  return `${n} attempt${n === 1 ? '' : 's'}`;
}

/**
 * Wraps a provider so retryable failures are tried again per the policy (docs/architecture.md, 'Model
 * calls'): never auth errors or context overflow, which providers mark not retryable. A failure after more
 * than one attempt says how many were made; giving up at `totalMs` keeps the error's type. When the caller's
 * signal aborts, no further attempt is made. Never throws (the wrapped provider must not either).
 */
export function withRetries(provider: ModelProvider, options: RetryOptions = {}): ModelProvider {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  return {
    async complete(req: ChatRequest, ctx: CallContext, signal?: AbortSignal): Promise<ProviderResult> {
      const started = now();
      const retried: string[] = [];
      const trace = (attempts: number) => ({ attempts, retried });
      const fail = (error: ProviderError, attempts: number, note?: string): ProviderResult => ({
        ok: false,
        error: note === undefined ? error : { ...error, message: `${error.message} (${note})` },
        trace: trace(attempts),
      });
      for (let attempt = 1; ; attempt++) {
        const result = await provider.complete(req, ctx, signal);
        if (result.ok) return { ...result, trace: trace(attempt) };
        const after = attempt === 1 ? undefined : `after ${plural(attempt)}`;
        if (!result.error.retryable || signal?.aborted) return fail(result.error, attempt, after);
        const waitMs = retryDelay(attempt, result.error, policy, random);
        const elapsedMs = now() - started;
        if (elapsedMs + waitMs > policy.totalMs)
          return fail(
            result.error,
            attempt,
            `gave up after ${plural(attempt)} in ${Math.round(elapsedMs / 1000)} s`,
          );
        retried.push(`${result.error.type}: ${result.error.message}`);
        options.onRetry?.({ attempt, waitMs, error: result.error });
        await sleep(waitMs, signal);
        if (signal?.aborted) {
          const message = `the call was cancelled while waiting to retry; the last error was: ${result.error.message}`;
          return fail({ type: 'internal', retryable: false, message }, attempt, `after ${plural(attempt)}`);
        }
      }
    },
  };
}
