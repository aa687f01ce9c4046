/**
 * The paired, anytime-valid test that decides a child against its parent (docs/acceptance.md). Pure.
 *
 * Each task both were graded on gives one paired outcome x = (1 + child − parent) / 2 in [0, 1] (scores in
 * [0, 1]; pass/fail gives 0, 1/2 or 1), and y = 2x − 1 = child − parent in [−1, 1]. A task both pass or both
 * fail gives y = 0 and moves neither wealth below: the discordant tasks carry all the evidence.
 *
 * Two betting e-processes run side by side, each a product of factors whose expectation is at most 1 under
 * its null hypothesis, with bets chosen from past outcomes only (predictable), so each is a nonnegative
 * supermartingale under its null and, by Ville's inequality, crosses 1/rate with probability at most rate
 * however often it is looked at:
 * - for `better`, against H0 "the child is no better" (E[y] ≤ 0): E_t = Π (1 + λ_i y_i), λ_i ∈ [0, MAX_BET];
 * - for `worse`, against H0' "the child is at least as good" (E[y] ≥ 0): F_t = Π (1 − μ_i y_i),
 *   μ_i ∈ [0, MAX_BET].
 * The bets are the aGRAPA rule of Waudby-Smith and Ramdas (2023), λ = clip(mean y / mean y², 0, MAX_BET),
 * shrunk toward a small prior bet so that the first outcomes are bet on at all; for pass/fail pairs it is
 * the Kelly bet 2p̂ − 1 on the share p̂ of discordant tasks the child won.
 */

/** How a child's full evaluation ends (`--accept`): every task, or tasks in rounds until the test decides. */
export const ACCEPT_POLICIES = ['full', 'sequential'] as const;
export type AcceptPolicy = (typeof ACCEPT_POLICIES)[number];

/** A paired outcome: the child's score minus the parent's on one task, both in [0, 1]. */
export type PairedDifference = number;

/** The largest fraction of wealth bet on one outcome: a loss at this bet keeps 1 − MAX_BET of the wealth. */
export const MAX_BET = 0.75;
/** Pseudo-outcomes the bet starts from, each with y = PRIOR_MEAN and y² = 1. */
const PRIOR_WEIGHT = 2;
const PRIOR_MEAN = 0.25;

/** What the test says after the outcomes seen so far. */
export type AcceptanceDecision = 'better' | 'worse' | 'undecided';

export interface TestRates {
  /** Error rate of `better`: P(decided better | child no better) ≤ alpha. */
  alpha: number;
  /** Error rate of `worse`: P(decided worse | child at least as good) ≤ futilityAlpha. */
  futilityAlpha: number;
}

/** The state of both e-processes: start from `startTest()`, feed outcomes in their order with `observe`. */
export interface TestState {
  /** E_t, the evidence that the child is better (1 at the start; `better` at 1/alpha). */
  evidence: number;
  /** F_t, the evidence that the child is worse (1 at the start; `worse` at 1/futilityAlpha). */
  futility: number;
  /** Outcomes seen. */
  n: number;
  /** Σ y and Σ y² over the outcomes seen: all the bets need. */
  sum: number;
  sumSquares: number;
}

export const startTest = (): TestState => ({ evidence: 1, futility: 1, n: 0, sum: 0, sumSquares: 0 });

/** The bets on the next outcome, from the outcomes seen only: [λ for better, μ for worse]. */
export function bets(state: TestState): [number, number] {
  const mean = (state.sum + PRIOR_WEIGHT * PRIOR_MEAN) / (state.sumSquares + PRIOR_WEIGHT);
  const meanAgainst = (-state.sum + PRIOR_WEIGHT * PRIOR_MEAN) / (state.sumSquares + PRIOR_WEIGHT);
  return [clip(mean), clip(meanAgainst)];
}

const clip = (bet: number): number => Math.min(MAX_BET, Math.max(0, bet));

/** The state after one more paired difference (child − parent, in [−1, 1]). */
export function observe(state: TestState, difference: PairedDifference): TestState {
  if (!(difference >= -1 && difference <= 1))
    throw new Error(`a paired difference is in [-1, 1], not ${difference}`);
  const [lambda, mu] = bets(state);
  return {
    evidence: state.evidence * (1 + lambda * difference),
    futility: state.futility * (1 - mu * difference),
    n: state.n + 1,
    sum: state.sum + difference,
    sumSquares: state.sumSquares + difference * difference,
  };
}

/** What the evidence decides at these rates: `better` first (it is the one whose error matters more). */
export function decide(state: TestState, rates: TestRates): AcceptanceDecision {
  if (state.evidence >= 1 / rates.alpha) return 'better';
  if (state.futility >= 1 / rates.futilityAlpha) return 'worse';
  return 'undecided';
}

/** The paired difference of one task: child's score minus parent's, each clamped to [0, 1]. */
export function pairedDifference(child: number, parent: number): PairedDifference {
  const unit = (s: number) => Math.min(1, Math.max(0, s));
  return unit(child) - unit(parent);
}

/**
 * Runs the test over outcomes in rounds (the test looks after each round, as the evaluation does) and stops at
 * the first decision; `used` is how many outcomes were seen when it stopped (all of them when undecided).
 */
export function runRounds(
  differences: readonly PairedDifference[],
  roundSize: number,
  rates: TestRates,
): { decision: AcceptanceDecision; used: number; state: TestState } {
  let state = startTest();
  for (let start = 0; start < differences.length; start += roundSize) {
    for (const d of differences.slice(start, start + roundSize)) state = observe(state, d);
    const decision = decide(state, rates);
    if (decision !== 'undecided') return { decision, used: state.n, state };
  }
  return { decision: 'undecided', used: state.n, state };
}
