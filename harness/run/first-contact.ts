import type { ModelProvider, ProviderError, ProviderResult, RetryInfo } from '../../llm/index.ts';

/** Attempts at reaching a model that has not answered yet before the run gives up on it. */
export const FIRST_CONTACT_ATTEMPTS = 3;

/** A model that could not be reached by the first calls of a run: the run ends with the provider's message. */
export class ModelUnreachableError extends Error {
  override name = 'ModelUnreachableError';
}

/** A retry the terminal is told about: which model, which attempt, how long until the next, and why. */
export interface RetryNotice {
  model: string;
  attempt: number;
  waitMs: number;
  reason: string;
}

/**
 * Until a model has answered once, failing to reach it ends the run instead of being retried for minutes
 * (a wrong base URL or a server that is not running will not fix itself): after `FIRST_CONTACT_ATTEMPTS`
 * attempts every call in flight is cut short and every later call fails at once with the same error.
 * After one answer the provider's own retry policy applies, so a working provider's outage is waited out.
 * `onRetry` goes to the provider's retry policy (see `connectModel`); `wrap` goes around the provider.
 */
export function firstContact(model: string, notify: (notice: RetryNotice) => void = () => {}) {
  let answered = false;
  let failure: ProviderError | null = null;
  const cut = new AbortController();
  const failed = (result: ProviderResult): ProviderResult =>
    failure === null
      ? result
      : { ok: false, error: failure, ...(result.trace ? { trace: result.trace } : {}) };
  return {
    onRetry(info: RetryInfo): void {
      notify({ model, attempt: info.attempt, waitMs: info.waitMs, reason: info.error.message });
      if (answered || failure !== null || info.error.type !== 'unreachable') return;
      if (info.attempt < FIRST_CONTACT_ATTEMPTS) return;
      failure = {
        ...info.error,
        retryable: false,
        message: `${info.error.message} (gave up after ${info.attempt} attempts: the model has not answered once in this run)`,
      };
      cut.abort();
    },
    wrap(provider: ModelProvider): ModelProvider {
      return {
        async complete(req, ctx, signal) {
          if (failure !== null) return failed({ ok: false, error: failure });
          const result = await provider.complete(
            req,
            ctx,
            signal === undefined ? cut.signal : AbortSignal.any([signal, cut.signal]),
          );
          if (result.ok) answered = true;
          return result.ok ? result : failed(result);
        },
      };
    },
    /** The error that ended first contact, or null while the model is reachable (or untried). */
    failure: (): ProviderError | null => failure,
  };
}
