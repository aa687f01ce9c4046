/**
 * The paired, anytime-valid test that decides a child against its parent (docs/acceptance.md). Pure.
 *
 * Each task both were graded on gives one paired difference y = child's score − parent's, in [−1, 1] (scores
 * in [0, 1]; pass/fail gives −1, 0 or 1). Two betting e-processes run side by side, each a product of factors
 * whose expectation is at most 1 under its null hypothesis, with bets chosen from past outcomes only
 * (predictable), so each is a nonnegative supermartingale under its null and, by Ville's inequality, crosses
 * 1/rate with probability at most rate however often it is looked at:
 * - `better`, against H0 "the child is no better" (E[y] ≤ 0): E_t = Π (1 + λ_i y_i), λ_i ∈ [0, MAX_BET].
 *   A task both pass or both fail (y = 0) moves it not at all: the discordant tasks carry the evidence.
 * - `worse` (futility), against H0' "the child is better by at least the margin δ" (E[y] ≥ δ):
 *   F_t = Π (1 − μ_i (y_i − δ)), μ_i ∈ [0, MAX_BET]. With δ = 0 this is "the child is at least as good";
 *   with δ > 0 a tie is a little evidence too (it is not a gain of δ), so a child no better than its parent is
 *   stopped early, and one better by δ or more is stopped at most futility-alpha of the time.
 * The bets are the aGRAPA rule of Waudby-Smith and Ramdas (2023): the running mean of the variable bet on over
 * its running second moment, clipped to [0, MAX_BET], and shrunk toward a small prior bet so that the first
 * outcomes are bet on at all. For pass/fail pairs and δ = 0 it is the Kelly bet 2p̂ − 1 on the share p̂ of
 * discordant tasks the child won.
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
  /** Error rate of `worse`: P(decided worse | child better by at least futilityMargin) ≤ futilityAlpha. */
  futilityAlpha: number;
  /** δ, the least gain in mean score a child is kept evaluating for (0: any gain). */
  futilityMargin: number;
}

/** The state of both e-processes: start from `startTest()`, feed outcomes in their order with `observe`. */
export interface TestState {
  /** δ of the futility side (TestRates.futilityMargin). */
  margin: number;
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

export const startTest = (margin = 0): TestState => ({
  margin,
  evidence: 1,
  futility: 1,
  n: 0,
  sum: 0,
  sumSquares: 0,
});

/** The bets on the next outcome, from the outcomes seen only: [λ for better, μ for worse]. */
export function bets(state: TestState): [number, number] {
  const { n, sum, sumSquares, margin } = state;
  const mean = (sum + PRIOR_WEIGHT * PRIOR_MEAN) / (sumSquares + PRIOR_WEIGHT);
  // The futility side bets on z = δ − y: Σz = nδ − Σy and Σz² = nδ² − 2δΣy + Σy².
  const against = n * margin - sum;
  const againstSquares = n * margin * margin - 2 * margin * sum + sumSquares;
  const meanAgainst = (against + PRIOR_WEIGHT * PRIOR_MEAN) / (againstSquares + PRIOR_WEIGHT);
  return [clip(mean), clip(meanAgainst)];
}

const clip = (bet: number): number => Math.min(MAX_BET, Math.max(0, bet));

/** The state after one more paired difference (child − parent, in [−1, 1]). */
export function observe(state: TestState, difference: PairedDifference): TestState {
  if (!(state.margin >= 0 && state.margin < 1))
    throw new Error(`a futility margin is in [0, 1), not ${state.margin}`);
  if (!(difference >= -1 && difference <= 1))
    throw new Error(`a paired difference is in [-1, 1], not ${difference}`);
  const [lambda, mu] = bets(state);
  return {
    evidence: state.evidence * (1 + lambda * difference),
    futility: state.futility * (1 - mu * (difference - state.margin)),
    margin: state.margin,
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
  let state = startTest(rates.futilityMargin);
  for (let start = 0; start < differences.length; start += roundSize) {
    for (const d of differences.slice(start, start + roundSize)) state = observe(state, d);
    const decision = decide(state, rates);
    if (decision !== 'undecided') return { decision, used: state.n, state };
  }
  return { decision: 'undecided', used: state.n, state };
}
