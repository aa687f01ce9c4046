import type { ModelRecord } from './registry.ts';

/** Characters per token for estimates before a call (the usual ~4 for English text and code). */
export const CHARS_PER_TOKEN = 4;

export interface CallEstimate {
  /** Upper estimate of the call's cost in USD. */
  usd: number;
  /** The part of it the input costs: known before the call, unlike the output. */
  inputUsd: number;
  inputTokens: number;
  /** The most output tokens the call may produce (the adapted `maxTokens`). */
  outputTokens: number;
}

/**
 * The most a call may cost: its input estimated from the request's size (`requestChars`, e.g. the body's
 * length) at the model's input price, plus its output cap (`adaptRequest(...).maxTokens`) at its output price.
 */
export function maxCallCost(model: ModelRecord, outputTokens: number, requestChars: number): CallEstimate {
  const inputTokens = Math.ceil(requestChars / CHARS_PER_TOKEN);
  const inputUsd = (inputTokens * model.price.input) / 1_000_000;
  const usd = inputUsd + (outputTokens * model.price.output) / 1_000_000;
  return { usd, inputUsd, inputTokens, outputTokens };
}

export type Reservation =
  /** The call may go ahead; `settle` with what it cost (0 when it failed) releases what it held. */
  | { status: 'held'; settle(actualUsd: number): void }
  | { status: 'refused'; message: string }
  /** The caller's signal aborted while the call waited: nothing is held, and the call must not be made. */
  | { status: 'cancelled' };

/** Where the money stood when the budget refused its first call (the run's stop message reports it). */
export interface BudgetStop {
  spentUsd: number;
  /** Held by calls in flight at that moment; none are, as a call is refused only once all have settled. */
  heldUsd: number;
  /** What the refused call's input alone would have cost. */
  nextUsd: number;
  model: string;
}

export interface Budget {
  /**
   * Holds `estimate` until the call settles. A call that does not fit while others are in flight waits for
   * them to settle; it is refused only when it does not fit with none in flight. Calls are served in the
   * order they came, so a large call is not passed over for ever by small ones.
   */
  reserve(estimate: CallEstimate, model: string, signal?: AbortSignal): Promise<Reservation>;
  spentUsd(): number;
  /** The maximum cost held by calls in flight. */
  heldUsd(): number;
  /** Calls waiting for calls in flight to settle. */
  waiting(): number;
  /** True once a call was refused: from then on every call is refused and the run stops. */
  reached(): boolean;
  /** Where the money stood when the first call was refused; null while none was. */
  stop(): BudgetStop | null;
  limitUsd: number | undefined;
  /**
   * A new limit for the rest of the run (the run's `budget` control). Calls waiting are served again under
   * it; one below the spend so far refuses the next call, and the run stops as at any budget stop.
   */
  setLimit(usd: number): void;
}

const money = (usd: number): string => `$${usd.toFixed(4)}`;

/**
 * A run's spending limit. A call goes ahead when the spend so far, plus the maximum cost held by calls in
 * flight, plus this call's input fits the limit; otherwise it waits for calls in flight to settle (their
 * actual cost is usually far below what they held), and it is refused only when nothing is in flight and
 * its input still does not fit: then the budget is truly spent. Its output cannot be known in advance, so
 * the run ends at most one call's output over the limit: each admitted call holds its maximum cost until it
 * settles, so parallel calls cannot overshoot together. Reserving every call's full maximum instead would
 * refuse a small budget outright (8192 output tokens at $15/M are $0.12 before anything is spent).
 * A waiting call holds nothing, and every call in flight settles by itself (the provider's retries are
 * bounded), so waiting cannot deadlock. Without a limit nothing waits or is refused; the spend is counted.
 */
export function createBudget(initialLimitUsd: number | undefined): Budget {
  let limitUsd = initialLimitUsd;
  let spent = 0;
  let held = 0;
  let inFlight = 0;
  let stop: BudgetStop | null = null;
  const queue: Waiter[] = [];

  const fits = (estimate: CallEstimate): boolean =>
    limitUsd === undefined || spent + held + estimate.inputUsd <= limitUsd;

  const hold = (estimate: CallEstimate): Reservation => {
    held += estimate.usd;
    inFlight++;
    let settled = false;
    return {
      status: 'held',
      settle(actualUsd) {
        if (settled) return;
        settled = true;
        inFlight--;
        // Exactly nothing once nothing is in flight (no float residue of the sums).
        held = inFlight === 0 ? 0 : Math.max(0, held - estimate.usd);
        spent += actualUsd;
        serveQueue();
      },
    };
  };

  const refusal = (): Reservation => ({ status: 'refused', message: refusedMessage(limitUsd ?? 0, spent) });

  const firstRefusal = (estimate: CallEstimate, model: string): Reservation => {
    stop = { spentUsd: spent, heldUsd: held, nextUsd: estimate.inputUsd, model };
    return { status: 'refused', message: firstRefusedMessage(limitUsd ?? 0, estimate, stop) };
  };

  /** Admits waiting calls in order while they fit; refuses them all once the first cannot fit with none in flight. */
  function serveQueue(): void {
    while (queue.length > 0) {
      const next = queue[0]!;
      if (stop === null && fits(next.estimate)) {
        queue.shift();
        next.done(hold(next.estimate));
      } else if (stop !== null || inFlight === 0) {
        queue.shift();
        next.done(stop === null ? firstRefusal(next.estimate, next.model) : refusal());
      } else return;
    }
  }

  return {
    get limitUsd() {
      return limitUsd;
    },
    setLimit(usd) {
      limitUsd = usd;
      serveQueue();
    },
    spentUsd: () => spent,
    heldUsd: () => held,
    waiting: () => queue.length,
    reached: () => stop !== null,
    stop: () => stop,
    reserve(estimate, model, signal) {
      if (signal?.aborted) return Promise.resolve({ status: 'cancelled' });
      if (stop !== null) return Promise.resolve(refusal());
      if (queue.length === 0 && fits(estimate)) return Promise.resolve(hold(estimate));
      return waitInQueue(queue, { estimate, model, signal }, serveQueue);
    },
  };
}

/**
 * A call put at the end of `queue`, answered when `serve` admits or refuses it, or cancelled when its signal
 * aborts first (then `serve` runs again: the call that waited behind it may fit now).
 */
function waitInQueue(
  queue: Waiter[],
  call: { estimate: CallEstimate; model: string; signal: AbortSignal | undefined },
  serve: () => void,
): Promise<Reservation> {
  const { estimate, model, signal } = call;
  return new Promise<Reservation>((resolve) => {
    const onAbort = (): void => {
      const at = queue.indexOf(waiter);
      if (at < 0) return;
      queue.splice(at, 1);
      resolve({ status: 'cancelled' });
      serve();
    };
    const waiter: Waiter = {
      estimate,
      model,
      done(reservation) {
        signal?.removeEventListener('abort', onAbort);
        resolve(reservation);
      },
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    queue.push(waiter);
    serve();
  });
}

/** Every call's refusal once the run's budget was reached. */
function refusedMessage(limitUsd: number, spent: number): string {
  return (
    `The run's budget of ${money(limitUsd)} (--budget-usd) is reached (${money(spent)} spent) and ` +
    'the run is stopping: no more model calls are allowed.'
  );
}

/** The refusal of the call that found the budget reached: what was spent, held, and what this call needed. */
function firstRefusedMessage(limitUsd: number, estimate: CallEstimate, stop: BudgetStop): string {
  return (
    `The run's budget of ${money(limitUsd)} (--budget-usd) is reached: ${money(stop.spentUsd)} spent, ` +
    `${stop.heldUsd > 1e-9 ? `${money(stop.heldUsd)} held by calls in flight` : 'no call in flight'}, and this call's ` +
    `input alone costs about ${money(estimate.inputUsd)} (about ${estimate.inputTokens} tokens at ` +
    `${stop.model}'s prices). The run stops here; raise --budget-usd to let it go further.`
  );
}

interface Waiter {
  estimate: CallEstimate;
  model: string;
  done(reservation: Reservation): void;
}
