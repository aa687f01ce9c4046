import { describe, expect, it } from 'vitest';
import { type CallEstimate, createBudget, type Reservation } from './budget.ts';

/** A call that may cost up to `usd`, of which `inputUsd` is its input. */
const call = (usd: number, inputUsd = 0.01): CallEstimate => ({
  usd,
  inputUsd,
  inputTokens: 100,
  outputTokens: 1000,
});

/** Whether a reservation has been decided yet, without waiting for it. */
async function peek(reservation: Promise<Reservation>): Promise<Reservation | 'waiting'> {
  return Promise.race([
    reservation,
    new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting'))),
  ]);
}

function held(r: Reservation | 'waiting'): Extract<Reservation, { status: 'held' }> {
  if (r === 'waiting' || r.status !== 'held')
    throw new Error(`expected a held reservation, got ${JSON.stringify(r)}`);
  return r;
}

describe('budget', () => {
  it('lets a call that does not fit beside calls in flight wait for them, then go ahead', async () => {
    const budget = createBudget(1);
    // The first call's output cap alone may take the whole budget, so the second's input does not fit.
    const first = held(await budget.reserve(call(1), 'sim'));
    const second = budget.reserve(call(1), 'sim');
    expect(await peek(second)).toBe('waiting');
    expect(budget.waiting()).toBe(1);
    // The first call cost far less than it held: the second now fits.
    first.settle(0.05);
    held(await second).settle(0.05);
    expect(budget.reached()).toBe(false);
    expect(budget.spentUsd()).toBeCloseTo(0.1, 10);
    expect(budget.heldUsd()).toBe(0);
  });

  it('refuses only when a call does not fit with nothing in flight, and says where the money stood', async () => {
    const budget = createBudget(1);
    const first = held(await budget.reserve(call(1), 'sim'));
    const waiting = budget.reserve(call(0.5, 0.2), 'sim');
    const behind = budget.reserve(call(0.1, 0.01), 'sim');
    expect(await peek(waiting)).toBe('waiting');
    first.settle(0.9);
    const refused = await waiting;
    expect(refused).toMatchObject({ status: 'refused' });
    expect(refused.status === 'refused' && refused.message).toMatch(
      /budget of \$1\.0000 \(--budget-usd\) is reached: \$0\.9000 spent, no call in flight, and this call's input alone costs about \$0\.2000/,
    );
    expect(budget.reached()).toBe(true);
    expect(budget.stop()).toEqual({ spentUsd: 0.9, heldUsd: 0, nextUsd: 0.2, model: 'sim' });
    // The calls behind it, and every later one, are refused: the run is stopping.
    expect(await behind).toMatchObject({
      status: 'refused',
      message: expect.stringMatching(/run is stopping/),
    });
    expect(await budget.reserve(call(0.01, 0.001), 'sim')).toMatchObject({ status: 'refused' });
  });

  it('serves waiting calls in the order they came, so small calls do not pass a large one for ever', async () => {
    const budget = createBudget(1);
    const first = held(await budget.reserve(call(0.95), 'sim'));
    const large = budget.reserve(call(1, 0.5), 'sim');
    // This one would fit beside the first, but the large call is waiting ahead of it.
    const small = budget.reserve(call(0.2), 'sim');
    expect(await peek(small)).toBe('waiting');
    first.settle(0.01);
    const largeHeld = held(await large);
    expect(await peek(small)).toBe('waiting');
    largeHeld.settle(0.01);
    held(await small);
  });

  it('forgets a waiting call whose caller went away, holding nothing for it', async () => {
    const budget = createBudget(1);
    const first = held(await budget.reserve(call(0.95), 'sim'));
    const gone = new AbortController();
    const abandoned = budget.reserve(call(0.9, 0.1), 'sim', gone.signal);
    const next = budget.reserve(call(0.05), 'sim');
    gone.abort();
    expect(await abandoned).toEqual({ status: 'cancelled' });
    // The call behind it fits beside the first one now that nothing waits ahead of it.
    held(await next);
    expect(budget.waiting()).toBe(0);
    first.settle(0);
    expect(budget.reached()).toBe(false);
    expect(await budget.reserve(call(0.1), 'sim', AbortSignal.abort())).toEqual({ status: 'cancelled' });
  });

  it('holds each call’s maximum, so calls in flight together cannot overshoot the limit', async () => {
    const budget = createBudget(1);
    const admitted: Reservation[] = [];
    const pending = Array.from({ length: 5 }, () => budget.reserve(call(0.3, 0.05), 'sim'));
    for (const p of pending) {
      const r = await peek(p);
      if (r !== 'waiting') admitted.push(r);
    }
    // 0.3 + 0.3 + 0.3 = 0.9 held; a fourth call's input (0.05) fits, so it goes too: 1.2 held at most.
    expect(admitted).toHaveLength(4);
    expect(budget.heldUsd()).toBeCloseTo(1.2, 10);
    expect(budget.waiting()).toBe(1);
  });

  it('without a limit, never waits and never refuses; it only counts', async () => {
    const budget = createBudget(undefined);
    const calls = await Promise.all(Array.from({ length: 3 }, () => budget.reserve(call(1e6, 1e6), 'sim')));
    for (const c of calls) held(c).settle(10);
    expect(budget.spentUsd()).toBe(30);
    expect(budget.reached()).toBe(false);
  });
});
