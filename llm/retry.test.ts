import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelProvider, ProviderError, ProviderResult } from './provider.ts';
import { DEFAULT_RETRY_POLICY, type RetryInfo, retryDelay, withRetries } from './retry.ts';
import type { CallContext, ChatRequest } from './types.ts';

const req: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };
const ctx: CallContext = { runId: 'run-1', variantId: 0, role: 'task' };
const ok: ProviderResult = {
  ok: true,
  response: {
    message: { content: '4' },
    stopReason: 'end',
    usage: { input: 5, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  },
};
const overloaded: ProviderError = {
  type: 'provider_error',
  retryable: true,
  status: 529,
  message: 'Anthropic failed (HTTP 529, overloaded): Overloaded',
};
const rateLimited = (retryAfterMs?: number): ProviderError => ({
  type: 'rate_limit',
  retryable: true,
  status: 429,
  message: 'OpenAI is rate limiting (HTTP 429): slow down',
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});
const fail = (error: ProviderError): ProviderResult => ({ ok: false, error });

/** A model boundary that answers from a script (the last entry repeats), and a clock that only sleeping moves. */
function harness(script: ProviderResult[], random = () => 0.5, onCall?: (n: number) => void) {
  let clock = 0;
  const waits: number[] = [];
  const retries: RetryInfo[] = [];
  let calls = 0;
  const provider: ModelProvider = {
    async complete() {
      onCall?.(calls);
      return script[Math.min(calls++, script.length - 1)]!;
    },
  };
  const wrapped = withRetries(provider, {
    now: () => clock,
    random,
    sleep: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
    onRetry: (info) => retries.push(info),
  });
  return { wrapped, waits, retries, calls: () => calls, elapsed: () => clock };
}

describe('retryDelay', () => {
  it('doubles from 1 s with jitter between half and all of the backoff, never over 60 s', () => {
    const policy = DEFAULT_RETRY_POLICY;
    const waits = (r: number) =>
      [1, 2, 3, 4, 5, 6, 7, 8, 20].map((n) => retryDelay(n, overloaded, policy, () => r));
    expect(waits(0)).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(waits(1)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('keeps every jittered wait within its bounds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const backoff = Math.min(60_000, 1000 * 2 ** (n - 1));
          const wait = retryDelay(n, overloaded, DEFAULT_RETRY_POLICY, () => r);
          expect(wait).toBeGreaterThanOrEqual(backoff / 2);
          expect(wait).toBeLessThanOrEqual(backoff);
          expect(wait).toBeLessThanOrEqual(60_000);
        },
      ),
    );
  });

  it('waits what the provider asked for, without jitter, but no more than 60 s', () => {
    expect(retryDelay(1, rateLimited(7000), DEFAULT_RETRY_POLICY, () => 0.9)).toBe(7000);
    expect(retryDelay(5, rateLimited(0), DEFAULT_RETRY_POLICY, () => 0.9)).toBe(0);
    expect(retryDelay(1, rateLimited(3_600_000), DEFAULT_RETRY_POLICY, () => 0.9)).toBe(60_000);
  });
});

describe('withRetries', () => {
  it('retries retryable failures until the call succeeds, backing off between tries', async () => {
    const h = harness([fail(overloaded), fail(rateLimited()), ok], () => 0);
    expect(await h.wrapped.complete(req, ctx)).toEqual({
      ...ok,
      trace: {
        attempts: 3,
        retried: [`provider_error: ${overloaded.message}`, `rate_limit: ${rateLimited().message}`],
      },
    });
    expect(h.calls()).toBe(3);
    expect(h.waits).toEqual([500, 1000]);
    expect(h.retries.map((r) => [r.attempt, r.waitMs, r.error.type])).toEqual([
      [1, 500, 'provider_error'],
      [2, 1000, 'rate_limit'],
    ]);
  });

  it('obeys retry-after', async () => {
    const h = harness([fail(rateLimited(7000)), fail(rateLimited(120_000)), ok]);
    expect((await h.wrapped.complete(req, ctx)).ok).toBe(true);
    expect(h.waits).toEqual([7000, 60_000]);
  });

  it.each([
    [
      'auth',
      { type: 'auth', retryable: false, status: 401, message: 'OpenAI refused the API key (HTTP 401)' },
    ],
    [
      'context overflow',
      { type: 'context_overflow', retryable: false, status: 400, message: 'the conversation is too long' },
    ],
  ] as const)('never retries %s, and leaves its message alone', async (_name, error) => {
    const h = harness([fail(error), ok]);
    expect(await h.wrapped.complete(req, ctx)).toEqual({
      ...fail(error),
      trace: { attempts: 1, retried: [] },
    });
    expect(h.calls()).toBe(1);
    expect(h.waits).toEqual([]);
  });

  it('says how many attempts were made when a retried call ends in an error that is not retried', async () => {
    const auth: ProviderError = {
      type: 'auth',
      retryable: false,
      message: 'OpenAI refused the API key (HTTP 401)',
    };
    const h = harness([fail(overloaded), fail(overloaded), fail(auth)]);
    const result = await h.wrapped.complete(req, ctx);
    expect(result).toMatchObject(
      fail({ ...auth, message: 'OpenAI refused the API key (HTTP 401) (after 3 attempts)' }),
    );
    expect(result.trace?.attempts).toBe(3);
  });

  it('gives up before waiting past 600 s in all, saying after how many attempts and how long', async () => {
    const h = harness([fail(overloaded)], () => 0.999_999);
    const result = await h.wrapped.complete(req, ctx);
    // Waits of ~1, 2, 4, 8, 16, 32 s, then 60 s each: 543 s after 15 attempts; one more 60 s wait would pass 600 s.
    expect(h.calls()).toBe(15);
    expect(h.waits).toHaveLength(14);
    expect(h.elapsed()).toBeLessThanOrEqual(600_000);
    expect(Math.round(h.elapsed() / 1000)).toBe(543);
    expect(result).toMatchObject(
      fail({ ...overloaded, message: `${overloaded.message} (gave up after 15 attempts in 543 s)` }),
    );
    expect(result.trace).toMatchObject({ attempts: 15 });
    expect(result.trace?.retried).toHaveLength(14);
  });

  it('takes a shorter total from the policy', async () => {
    let clock = 0;
    let calls = 0;
    const wrapped = withRetries(
      {
        complete: async () => {
          calls++;
          return fail(overloaded);
        },
      },
      {
        policy: { baseMs: 10, maxWaitMs: 40, totalMs: 100 },
        random: () => 0.999_999,
        now: () => clock,
        sleep: async (ms) => {
          clock += ms;
        },
      },
    );
    const result = await wrapped.complete(req, ctx);
    // Waits of 10, 20, 40 (70 ms), then 40 more would pass 100 ms.
    expect(calls).toBe(4);
    expect(result.ok ? '' : result.error.message).toMatch(/gave up after 4 attempts in 0 s\)$/);
  });

  it('stops when the caller aborts while it waits, saying so, and makes no further attempt', async () => {
    const controller = new AbortController();
    let calls = 0;
    const wrapped = withRetries(
      {
        complete: async () => {
          calls++;
          return fail(overloaded);
        },
      },
      {
        sleep: async () => controller.abort(),
      },
    );
    const result = await wrapped.complete(req, ctx, controller.signal);
    expect(calls).toBe(1);
    expect(result).toMatchObject(
      fail({
        type: 'internal',
        retryable: false,
        message: `the call was cancelled while waiting to retry; the last error was: ${overloaded.message} (after 1 attempt)`,
      }),
    );
  });

  it('does not retry a failure that came back after the caller aborted', async () => {
    const controller = new AbortController();
    const h = harness([fail(overloaded), ok], undefined, () => controller.abort());
    const result = await h.wrapped.complete(req, ctx, controller.signal);
    expect(result).toEqual({ ...fail(overloaded), trace: { attempts: 1, retried: [] } });
    expect(h.calls()).toBe(1);
  });

  it('wakes from a real wait as soon as the caller aborts', async () => {
    const controller = new AbortController();
    const wrapped = withRetries(
      { complete: async () => fail(rateLimited(3_600_000)) },
      { onRetry: () => setImmediate(() => controller.abort()) },
    );
    // The wait asked for is 60 s; the abort ends it long before the test's own timeout.
    const result = await wrapped.complete(req, ctx, controller.signal);
    expect(result).toMatchObject({ ok: false, error: { type: 'internal', retryable: false } });
  });
});
