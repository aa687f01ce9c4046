import type { ModelProvider, ProviderError } from './provider.ts';
import type { ErrorType } from './types.ts';

/** How long a model may fail every attempt before it is reported, and then again each time as long. */
export const FAILING_REPORT_MS = 30_000;

/** What a failure watch reports: a model failing for a while (and being retried), and its recovery. */
export type ModelHealthEvent =
  | { type: 'model_failing'; model: string; forMs: number; reason: string }
  | { type: 'model_answering'; model: string; afterMs: number };

const TYPE_WORDS: Partial<Record<ErrorType, string>> = {
  rate_limit: 'rate limited',
  provider_error: 'provider error',
  timeout: 'timed out',
  unreachable: 'unreachable',
  internal: 'internal error',
};

/** `429 rate limited`, `timed out`: an attempt's failure in a few words, for a progress line. Pure. */
export function failureReason(error: ProviderError): string {
  const words = TYPE_WORDS[error.type] ?? error.type.replace(/_/g, ' ');
  return error.status === undefined ? words : `${error.status} ${words}`;
}

/**
 * Watches the attempts of the models a run calls, so that a model that has failed every attempt for
 * `afterMs` is reported while its calls are retried (and again each further `afterMs`), and its first
 * answer after that too. Feed it every failed attempt that will be retried (`failed`, from the retry
 * policy's `onRetry`) and every call's outcome (`wrap` around the retried provider). Never throws: a
 * throwing `report` is ignored.
 */
export function createFailureWatch(opts: {
  report(event: ModelHealthEvent): void;
  afterMs?: number;
  now?: () => number;
}) {
  const afterMs = opts.afterMs ?? FAILING_REPORT_MS;
  const now = opts.now ?? Date.now;
  const models = new Map<string, { since: number; reported: number | null }>();
  const report = (event: ModelHealthEvent): void => {
    try {
      opts.report(event);
    } catch {
      // A progress display must not break a model call.
    }
  };
  const watch = {
    failed(model: string, error: ProviderError): void {
      const at = now();
      const state = models.get(model) ?? { since: at, reported: null };
      models.set(model, state);
      if (at - state.since < afterMs) return;
      if (state.reported !== null && at - state.reported < afterMs) return;
      state.reported = at;
      report({ type: 'model_failing', model, forMs: at - state.since, reason: failureReason(error) });
    },
    answered(model: string): void {
      const state = models.get(model);
      if (state === undefined) return;
      models.delete(model);
      if (state.reported !== null) report({ type: 'model_answering', model, afterMs: now() - state.since });
    },
    /** The provider with each call's outcome told to the watch; a call its caller aborted tells nothing. */
    wrap(model: string, provider: ModelProvider): ModelProvider {
      return {
        async complete(req, ctx, signal) {
          const result = await provider.complete(req, ctx, signal);
          if (result.ok) watch.answered(model);
          else if (result.error.retryable && signal?.aborted !== true) watch.failed(model, result.error);
          return result;
        },
      };
    },
  };
  return watch;
}

export type FailureWatch = ReturnType<typeof createFailureWatch>;
