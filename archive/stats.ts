/**
 * Statistics for comparing variants and runs. Pure functions; randomness only through a seed.
 */
import { mulberry32 } from '../system/rng.ts';

/** The median of `xs` (mean of the two middle values for an even count); null for no values. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A seeded generator of uniform numbers in [0, 1) (mulberry32): the same seed gives the same draws. */
export function seededRandom(seed: number): () => number {
  return mulberry32(seed);
}

export interface Interval {
  estimate: number;
  low: number;
  high: number;
}

/**
 * Percentile bootstrap confidence interval of the median: `resamples` resamples with replacement,
 * the interval between the (1 − level)/2 and (1 + level)/2 quantiles of their medians. Seeded, so the
 * same input gives the same interval. Null for no values; a single value gives a zero-width interval.
 */
export function bootstrapMedianCI(
  xs: readonly number[],
  options: { seed?: number; resamples?: number; level?: number } = {},
): Interval | null {
  const estimate = median(xs);
  if (estimate === null) return null;
  const { seed = 1, resamples = 2000, level = 0.95 } = options;
  const random = seededRandom(seed);
  const medians: number[] = [];
  const sample = new Array<number>(xs.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < xs.length; i++) sample[i] = xs[Math.floor(random() * xs.length)]!;
    medians.push(median(sample)!);
  }
  medians.sort((a, b) => a - b);
  return { estimate, low: quantile(medians, (1 - level) / 2), high: quantile(medians, (1 + level) / 2) };
}

/** Linear-interpolation quantile of sorted values (the "type 7" definition numpy and R use by default). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('quantile of no values');
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/**
 * The best score so far after each generation: `scores[g]` is the score of generation g's variant
 * (null when it has none), the curve is the running maximum, null until the first score.
 */
export function bestSoFar(scores: readonly (number | null)[]): (number | null)[] {
  let best: number | null = null;
  return scores.map((s) => {
    if (s !== null && (best === null || s > best)) best = s;
    return best;
  });
}

/**
 * The area under a best-so-far curve, normalised by its length: the mean of its points, a generation
 * before any score counting as 0. One number that rewards improving early as well as ending high.
 * Null for an empty curve.
 */
export function curveArea(curve: readonly (number | null)[]): number | null {
  if (curve.length === 0) return null;
  return curve.reduce<number>((sum, v) => sum + (v ?? 0), 0) / curve.length;
}

/** Ranks of `values` (1-based), ties sharing the mean of the ranks they span (midranks). */
export function midranks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]![0] === order[start]![0]) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]![1]] = rank;
    start = end + 1;
  }
  return ranks;
}

export interface RankTest {
  /** Mann–Whitney U of `a`: pairs (x from a, y from b) with x > y, ties counting one half. */
  u: number;
  /** p-value for the alternative asked (one-sided, or two-sided: twice the smaller tail, at most 1). */
  p: number;
  method: 'exact' | 'normal';
}

/** `greater`: a above b; `less`: a below b; `two-sided`: either way. */
export type Alternative = 'greater' | 'less' | 'two-sided';

/** Up to this many values in both samples together the p-value is exact. */
export const EXACT_LIMIT = 40;

/**
 * Mann–Whitney U test. `greater`: are values of `a` larger than values of `b`? (`less` the other way;
 * `two-sided`: either way, twice the smaller one-sided p, at most 1.)
 * Exact for small samples (up to EXACT_LIMIT values together), ties included: the p-value is taken
 * from the permutation distribution of the midranks actually observed. Larger samples use the
 * normal approximation with the tie correction of the variance and a continuity correction.
 * Null when either sample is empty.
 */
export function mannWhitneyU(
  a: readonly number[],
  b: readonly number[],
  alternative: Alternative = 'greater',
): RankTest | null {
  if (alternative === 'two-sided') {
    const up = mannWhitneyU(a, b, 'greater');
    const down = mannWhitneyU(a, b, 'less');
    if (up === null || down === null) return null;
    return { ...up, p: Math.min(1, 2 * Math.min(up.p, down.p)) };
  }
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) return null;
  const ranks = midranks([...a, ...b]);
  const rankSumA = ranks.slice(0, n1).reduce((s, r) => s + r, 0);
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const n = n1 + n2;
  if (n <= EXACT_LIMIT) {
    // Midranks are multiples of 1/2: count subsets of size n1 by twice their rank sum.
    const doubled = ranks.map((r) => Math.round(r * 2));
    const maxSum = doubled.reduce((s, r) => s + r, 0);
    let counts: Float64Array[] = Array.from({ length: n1 + 1 }, () => new Float64Array(maxSum + 1));
    counts[0]![0] = 1;
    for (const r of doubled) {
      const next = counts.map((row) => row.slice());
      for (let k = 1; k <= n1; k++) {
        const from = counts[k - 1]!;
        const to = next[k]!;
        for (let s = r; s <= maxSum; s++) to[s]! += from[s - r]!;
      }
      counts = next;
    }
    return { u, p: tailShare(counts[n1]!, Math.round(rankSumA * 2), alternative), method: 'exact' };
  }
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieSum(ranks) / (n * (n - 1)));
  return { u, p: normalTail(u, mean, variance, alternative), method: 'normal' };
}

/**
 * The smallest p-value the exact Mann–Whitney U test can give for groups of n1 and n2 values (no ties):
 * one ordering of the C(n1 + n2, n1) possible, every value of one group above every value of the other.
 * Doubled (at most 1) for a two-sided test. 1 when a group is empty.
 */
export function smallestRankP(n1: number, n2: number, alternative: Alternative = 'greater'): number {
  if (n1 <= 0 || n2 <= 0) return 1;
  let orderings = 1;
  for (let k = 1; k <= Math.min(n1, n2); k++) orderings = (orderings * (n1 + n2 - k + 1)) / k;
  const p = 1 / orderings;
  return alternative === 'two-sided' ? Math.min(1, 2 * p) : p;
}

/** Share of a count distribution (indexed by twice the statistic) at or beyond `observed`. */
function tailShare(counts: Float64Array, observed: number, alternative: 'greater' | 'less'): number {
  let total = 0;
  let tail = 0;
  for (let s = 0; s < counts.length; s++) {
    total += counts[s]!;
    if (alternative === 'greater' ? s >= observed : s <= observed) tail += counts[s]!;
  }
  return tail / total;
}

/** Σ (t³ − t) over groups of tied ranks, for the variance's tie correction. */
function tieSum(ranks: readonly number[]): number {
  const ties = new Map<number, number>();
  for (const r of ranks) ties.set(r, (ties.get(r) ?? 0) + 1);
  return [...ties.values()].reduce((s, t) => s + t ** 3 - t, 0);
}

/** One-sided p of a statistic under the normal approximation, with a continuity correction of 1/2. */
function normalTail(stat: number, mean: number, variance: number, alternative: 'greater' | 'less'): number {
  if (variance <= 0) return 1;
  const z = (alternative === 'greater' ? stat - mean - 0.5 : mean - stat - 0.5) / Math.sqrt(variance);
  return 1 - normalCdf(z);
}

/** Standard normal CDF via the complementary error function (absolute error below 1.2e-7). */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** Complementary error function, Chebyshev fit from Numerical Recipes (erfcc), fractional error < 1.2e-7. */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

export interface SignedRankTest {
  /** Wilcoxon's W+: the sum of the midranks of |d| over the positive differences d = a − b. */
  wPlus: number;
  /** Pairs left after dropping zero differences (Wilcoxon's convention). */
  n: number;
  /** One-sided p-value for the alternative asked. */
  p: number;
  method: 'exact' | 'normal';
}

/** Up to this many non-zero pairs the signed-rank p-value is exact. */
export const SIGNED_RANK_EXACT_LIMIT = 50;

/**
 * One-sided Wilcoxon signed-rank test on paired samples (a[i] with b[i]). `greater`: does a tend to
 * exceed b? Zero differences are dropped; tied |d| share midranks, and the exact p-value is taken from
 * the distribution of W+ over all 2^n sign assignments of the midranks actually observed. Beyond
 * SIGNED_RANK_EXACT_LIMIT pairs: normal approximation with tie correction and continuity correction.
 * Null when the samples differ in length or no non-zero difference is left.
 */
export function wilcoxonSignedRank(
  a: readonly number[],
  b: readonly number[],
  alternative: 'greater' | 'less' = 'greater',
): SignedRankTest | null {
  if (a.length !== b.length) return null;
  const d = a.map((x, i) => x - b[i]!).filter((x) => x !== 0);
  const n = d.length;
  if (n === 0) return null;
  const ranks = midranks(d.map(Math.abs));
  const wPlus = ranks.reduce((s, r, i) => s + (d[i]! > 0 ? r : 0), 0);
  if (n <= SIGNED_RANK_EXACT_LIMIT) {
    // Midranks are multiples of 1/2: count sign assignments by twice their W+.
    const doubled = ranks.map((r) => Math.round(r * 2));
    const maxSum = doubled.reduce((s, r) => s + r, 0);
    let counts = new Float64Array(maxSum + 1);
    counts[0] = 1;
    for (const r of doubled) {
      const next = counts.slice();
      for (let s = r; s <= maxSum; s++) next[s]! += counts[s - r]!;
      counts = next;
    }
    return { wPlus, n, p: tailShare(counts, Math.round(wPlus * 2), alternative), method: 'exact' };
  }
  const mean = (n * (n + 1)) / 4;
  const variance = (n * (n + 1) * (2 * n + 1)) / 24 - tieSum(ranks) / 48;
  return { wPlus, n, p: normalTail(wPlus, mean, variance, alternative), method: 'normal' };
}
