import { describe, expect, it } from 'vitest';
import { createFailureWatch, failureReason, type ModelHealthEvent } from './failure-watch.ts';
import type { ModelProvider, ProviderError, ProviderResult } from './provider.ts';
import { withRetries } from './retry.ts';

const RATE_LIMITED: ProviderError = {
  type: 'rate_limit',
  message: 'slow down',
  retryable: true,
  status: 429,
};

describe('failureReason', () => {
  it.each<[ProviderError, string]>([
    [RATE_LIMITED, '429 rate limited'],
    [{ type: 'provider_error', message: 'overloaded', retryable: true, status: 529 }, '529 provider error'],
    [{ type: 'timeout', message: 'timed out', retryable: true }, 'timed out'],
    [{ type: 'unreachable', message: 'ECONNREFUSED', retryable: true }, 'unreachable'],
  ])('%j → %s', (error, words) => {
    expect(failureReason(error)).toBe(words);
  });
});

describe('the failure watch', () => {
  /** A clock the test moves, and the watch's reports. */
  function setup() {
    let clock = 0;
    const events: ModelHealthEvent[] = [];
    const watch = createFailureWatch({ report: (e) => events.push(e), now: () => clock });
    const at = (ms: number): void => {
      clock = ms;
    };
    return { watch, events, at };
  }

  it('reports a model that failed every attempt for 30 s, again every 30 s, and its first answer after', () => {
    const { watch, events, at } = setup();
    for (const ms of [0, 10_000, 29_999]) {
      at(ms);
      watch.failed('openai/gpt-4o', RATE_LIMITED);
    }
    expect(events).toEqual([]);
    at(35_000);
    watch.failed('openai/gpt-4o', RATE_LIMITED);
    at(40_000);
    watch.failed('openai/gpt-4o', RATE_LIMITED);
    at(66_000);
    watch.failed('openai/gpt-4o', RATE_LIMITED);
    at(70_000);
    watch.answered('openai/gpt-4o');
    expect(events).toEqual([
      { type: 'model_failing', model: 'openai/gpt-4o', forMs: 35_000, reason: '429 rate limited' },
      { type: 'model_failing', model: 'openai/gpt-4o', forMs: 66_000, reason: '429 rate limited' },
      { type: 'model_answering', model: 'openai/gpt-4o', afterMs: 70_000 },
    ]);
  });

  it('counts from the last answer: failures between answers are not an outage', () => {
    const { watch, events, at } = setup();
    for (let ms = 0; ms <= 120_000; ms += 5_000) {
      at(ms);
      if (ms % 20_000 === 0) watch.answered('sim');
      else watch.failed('sim', RATE_LIMITED);
    }
    expect(events).toEqual([]);
  });

  it('keeps each model apart', () => {
    const { watch, events, at } = setup();
    watch.failed('a', RATE_LIMITED);
    at(31_000);
    watch.answered('b');
    watch.failed('a', RATE_LIMITED);
    expect(events.map((e) => e.model)).toEqual(['a']);
  });

  it('sees each attempt of a retried provider: its retried failures and the outcome of each call', async () => {
    let clock = 0;
    const events: ModelHealthEvent[] = [];
    const watch = createFailureWatch({ report: (e) => events.push(e), now: () => clock });
    let failures = 4;
    const flaky: ModelProvider = {
      async complete(): Promise<ProviderResult> {
        clock += 10_000;
        if (failures-- > 0) return { ok: false, error: RATE_LIMITED };
        return {
          ok: true,
          response: {
            message: { content: 'ok' },
            stopReason: 'end',
            usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
          },
        };
      },
    };
    const provider = watch.wrap(
      'sim',
      withRetries(flaky, {
        sleep: async () => undefined,
        now: () => clock,
        onRetry: (info) => watch.failed('sim', info.error),
      }),
    );
    const result = await provider.complete(
      { messages: [{ role: 'user', content: 'hi' }] },
      {
        runId: 'r',
        variantId: 1,
        role: 'task',
      },
    );
    expect(result.ok).toBe(true);
    // Failed attempts at 10, 20, 30 and 40 s; the outage is reported at 40 s, the answer at 50 s.
    expect(events).toEqual([
      { type: 'model_failing', model: 'sim', forMs: 30_000, reason: '429 rate limited' },
      { type: 'model_answering', model: 'sim', afterMs: 40_000 },
    ]);
  });

  it('never lets a throwing display break a call', () => {
    const watch = createFailureWatch({
      report: () => {
        throw new Error('display broke');
      },
      afterMs: 0,
    });
    expect(() => watch.failed('sim', RATE_LIMITED)).not.toThrow();
  });
});
