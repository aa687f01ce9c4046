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

export type Reservation = { ok: true; settle(actualUsd: number): void } | { ok: false; message: string };

export interface Budget {
  /** Holds `estimate` until the call settles; refused when it could take the run over its limit. */
  reserve(estimate: CallEstimate, model: string): Reservation;
  spentUsd(): number;
  /** True once a call was refused: from then on every call is refused and the run stops. */
  reached(): boolean;
  limitUsd: number | undefined;
}

/**
 * A run's spending limit. A call is refused when the spend so far, plus the maximum cost held by calls in
 * progress, plus this call's input would go over the limit. Its output cannot be known in advance, so the
 * run ends at most one call's output over the limit: each admitted call holds its maximum cost until it
 * settles, so parallel calls cannot overshoot together. Reserving every call's full maximum instead would
 * refuse a small budget outright (8192 output tokens at $15/M are $0.12 before anything is spent).
 * Without a limit nothing is refused and only the spend is counted.
 */
export function createBudget(limitUsd: number | undefined): Budget {
  let spent = 0;
  let held = 0;
  let reached = false;
  const money = (usd: number): string => `$${usd.toFixed(4)}`;
  return {
    limitUsd,
    spentUsd: () => spent,
    reached: () => reached,
    reserve(estimate, model) {
      if (limitUsd !== undefined && (reached || spent + held + estimate.inputUsd > limitUsd)) {
        const first = !reached;
        reached = true;
        return {
          ok: false,
          message: first
            ? `The run's budget of ${money(limitUsd)} (--budget-usd) is reached: ${money(spent)} spent` +
              (held > 1e-9 ? ` and ${money(held)} held by calls in progress` : '') +
              `, and this call's input alone costs about ${money(estimate.inputUsd)} (about ` +
              `${estimate.inputTokens} tokens at ${model}'s prices). The run stops here; ` +
              'raise --budget-usd to let it go further.'
            : `The run's budget of ${money(limitUsd)} (--budget-usd) is reached (${money(spent)} spent) and ` +
              'the run is stopping: no more model calls are allowed.',
        };
      }
      held += estimate.usd;
      let settled = false;
      return {
        ok: true,
        settle(actualUsd) {
          if (settled) return;
          settled = true;
          held -= estimate.usd;
          spent += actualUsd;
        },
      };
    },
  };
}
