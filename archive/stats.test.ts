import { describe, expect, it } from 'vitest';
import {
  bestSoFar,
  bootstrapMedianCI,
  curveArea,
  mannWhitneyU,
  median,
  midranks,
  normalCdf,
  quantile,
  smallestRankP,
  wilcoxonSignedRank,
} from './stats.ts';

describe('median', () => {
  it.each([
    [[], null],
    [[3], 3],
    [[3, 1], 2],
    [[5, 1, 3], 3],
    [[0.4, 0.4, 0.9, 0.1], 0.4],
    [[2, 2, 2, 2], 2],
  ])('median(%j) = %j', (xs, expected) => expect(median(xs)).toBe(expected));
});

describe('quantile (type 7, as numpy)', () => {
  it.each([
    [[1, 2, 3, 4], 0.025, 1.075],
    [[1, 2, 3, 4], 0.975, 3.925],
    [[1, 2, 3, 4], 0.5, 2.5],
    [[7], 0.3, 7],
  ])('quantile(%j, %d) = %d', (xs, q, expected) => expect(quantile(xs, q)).toBeCloseTo(expected, 12));
});

describe('bootstrapMedianCI', () => {
  it('is null for no values and zero-width for one value or all-equal values', () => {
    expect(bootstrapMedianCI([])).toBeNull();
    expect(bootstrapMedianCI([0.5])).toEqual({ estimate: 0.5, low: 0.5, high: 0.5 });
    expect(bootstrapMedianCI([0.3, 0.3, 0.3])).toEqual({ estimate: 0.3, low: 0.3, high: 0.3 });
  });

  it('gives the same interval for the same seed and brackets the median within the data range', () => {
    const xs = [0.2, 0.4, 0.45, 0.5, 0.55, 0.6, 0.9];
    const a = bootstrapMedianCI(xs, { seed: 7 })!;
    expect(bootstrapMedianCI(xs, { seed: 7 })).toEqual(a);
    expect(a.estimate).toBe(0.5);
    expect(a.low).toBeLessThanOrEqual(0.5);
    expect(a.high).toBeGreaterThanOrEqual(0.5);
    expect(a.low).toBeGreaterThanOrEqual(0.2);
    expect(a.high).toBeLessThanOrEqual(0.9);
    expect(a.high - a.low).toBeGreaterThan(0);
  });

  it('for two values, covers both (each resample median is one of x, mean, y)', () => {
    const ci = bootstrapMedianCI([0, 1], { seed: 3, resamples: 4000 })!;
    expect(ci).toEqual({ estimate: 0.5, low: 0, high: 1 });
  });
});

describe('bestSoFar and curveArea', () => {
  it.each([
    [[], [], null],
    [[0.4, 0.3, 0.6, 0.5], [0.4, 0.4, 0.6, 0.6], 0.5],
    [[null, 0.2, null, 0.1], [null, 0.2, 0.2, 0.2], 0.15],
    [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], 0.5],
  ])('%j → %j, area %j', (scores, curve, area) => {
    expect(bestSoFar(scores)).toEqual(curve);
    const got = curveArea(bestSoFar(scores));
    if (area === null) expect(got).toBeNull();
    else expect(got).toBeCloseTo(area, 12);
  });
});

describe('midranks', () => {
  it.each([
    [
      [10, 30, 20],
      [1, 3, 2],
    ],
    [
      [1, 2, 2, 3],
      [1, 2.5, 2.5, 4],
    ],
    [
      [5, 5, 5],
      [2, 2, 2],
    ],
  ])('midranks(%j) = %j', (xs, ranks) => expect(midranks(xs)).toEqual(ranks));
});

// p-values: reference values enumerated over every assignment of the pooled midranks (exact) and from
// scipy.stats.mannwhitneyu(method="asymptotic", use_continuity=True) (normal).
describe('smallestRankP', () => {
  it.each([
    [3, 3, 'greater', 1 / 20],
    [3, 3, 'two-sided', 1 / 10],
    [2, 2, 'two-sided', 1 / 3],
    [1, 1, 'two-sided', 1],
    [5, 5, 'greater', 1 / 252],
    [0, 4, 'greater', 1],
  ] as const)('%d vs %d runs, %s: at best p = %d', (n1, n2, alternative, p) => {
    expect(smallestRankP(n1, n2, alternative)).toBeCloseTo(p, 12);
    if (n1 > 0 && n2 > 0 && n1 + n2 <= 40) {
      // Reached when every value of one group is above every value of the other.
      const low = Array.from({ length: n2 }, (_, i) => i);
      const high = Array.from({ length: n1 }, (_, i) => 100 + i);
      expect(mannWhitneyU(high, low, alternative)!.p).toBeCloseTo(p, 12);
    }
  });
});

describe('mannWhitneyU', () => {
  it.each([
    [[4, 5, 6], [1, 2, 3], 'greater', 9, 0.05],
    [[4, 5, 6], [1, 2, 3], 'less', 9, 1],
    [[1, 2], [2, 3], 'greater', 0.5, 1],
    [[1, 2], [2, 3], 'less', 0.5, 1 / 3],
    [[0.5, 0.7, 0.7, 0.9], [0.5, 0.6, 0.7], 'greater', 8.5, 0.2857142857142857],
    [[0.5, 0.7, 0.7, 0.9], [0.5, 0.6, 0.7], 'less', 8.5, 0.8857142857142857],
    [[0.8, 0.8, 0.8], [0.8, 0.8, 0.8], 'greater', 4.5, 1],
    [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3, 5], 'greater', 6.5, 0.9567099567099567],
    [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3, 5], 'less', 6.5, 0.0735930735930736],
  ] as const)('exact: a=%j b=%j %s → U=%d p=%d', (a, b, alternative, u, p) => {
    const test = mannWhitneyU(a, b, alternative)!;
    expect(test.method).toBe('exact');
    expect(test.u).toBe(u);
    expect(test.p).toBeCloseTo(p, 12);
  });

  const a = [
    0.1, 0.2, 0.8, 0.6, 0.1, 0.4, 0.5, 0.2, 0.7, 0.1, 0.4, 0.5, 0.4, 0.6, 0.7, 1.0, 0.3, 0.6, 0.7, 0.3, 0.0,
    1.0, 0.3, 0.3, 0.9,
  ];
  const b = [
    0.5, 0.4, 0.7, -0.1, 0.6, 0.3, 0.0, 0.6, 0.8, 0.1, 0.5, 0.2, 0.6, 0.6, 0.1, 0.7, 0.6, 0.6, 0.7, 0.3, 0.7,
    0.8,
  ];
  it.each([
    ['greater', 0.5975659865115354],
    ['less', 0.4107682635452609],
  ] as const)('normal approximation with ties (25 + 22 values), %s', (alternative, p) => {
    const test = mannWhitneyU(a, b, alternative)!;
    expect(test.method).toBe('normal');
    expect(test.u).toBe(264);
    expect(test.p).toBeCloseTo(p, 6);
  });

  it.each([
    [[4, 5, 6], [1, 2, 3], 0.1],
    [[1, 2, 3], [4, 5, 6], 0.1],
    [[3, 1, 4, 1, 5], [9, 2, 6, 5, 3, 5], 0.1471861471861472],
    [[0.8, 0.8, 0.8], [0.8, 0.8, 0.8], 1],
  ] as const)('two-sided: a=%j b=%j → twice the smaller tail, p=%d', (a, b, p) => {
    expect(mannWhitneyU(a, b, 'two-sided')!.p).toBeCloseTo(p, 12);
  });

  it('two-sided under the normal approximation is twice the smaller tail (25 + 22 values)', () => {
    expect(mannWhitneyU(a, b, 'two-sided')!.p).toBeCloseTo(0.8215365270905218, 6);
  });

  it('gives p = 1/2 for one value against one (the smallest sample)', () => {
    expect(mannWhitneyU([2], [1], 'greater')).toEqual({ u: 1, p: 0.5, method: 'exact' });
    expect(mannWhitneyU([1], [1], 'greater')).toEqual({ u: 0.5, p: 1, method: 'exact' });
  });

  it('is null when a sample is empty', () => {
    expect(mannWhitneyU([], [1])).toBeNull();
    expect(mannWhitneyU([1], [])).toBeNull();
  });
});

describe('normalCdf', () => {
  it.each([
    [0, 0.5],
    [1.959963984540054, 0.975],
    [-1, 0.15865525393145707],
  ])('Φ(%d) = %d', (z, p) => expect(normalCdf(z)).toBeCloseTo(p, 6));
});

const zeros = (n: number) => Array.from({ length: n }, () => 0);

// Exact p-values: scipy.stats.wilcoxon(d, alternative=..., method="exact") where it applies (no ties),
// and by enumerating the 2^n sign assignments of the midranks by hand where there are ties or zeros.
describe('wilcoxonSignedRank', () => {
  it.each([
    [[1, 2, 3, 4, 5], 'greater', 15, 5, 0.03125],
    [[1, -2, 3, 4, 5], 'greater', 13, 5, 0.09375],
    [[1, -2, 3, 4, 5], 'less', 13, 5, 0.9375],
    [[0.3, -0.1, 0.25, 0.05, 0.4, 0.15, -0.2, 0.35], 'greater', 30, 8, 0.0546875],
    // ties: |d| = 1, 1, 2 → midranks 1.5, 1.5, 3; W+ over the 8 sign assignments: 0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6
    [[1, 1, 2], 'greater', 6, 3, 0.125],
    [[1, -1, 2], 'greater', 4.5, 3, 0.375],
    [[-1, -1, -2], 'less', 0, 3, 0.125],
    // zeros are dropped: d = 0, 1, 2 → n = 2, W+ = 3 of {0, 1, 2, 3}
    [[0, 1, 2], 'greater', 3, 2, 0.25],
    [[4], 'greater', 1, 1, 0.5],
  ] as const)('exact: d=%j %s → W+=%d n=%d p=%d', (d, alternative, wPlus, n, p) => {
    const test = wilcoxonSignedRank(d, zeros(d.length), alternative)!;
    expect(test.method).toBe('exact');
    expect(test.wPlus).toBe(wPlus);
    expect(test.n).toBe(n);
    expect(test.p).toBeCloseTo(p, 12);
  });

  it('pairs a with b by position: d = a − b', () => {
    expect(wilcoxonSignedRank([0.9, 0.8, 0.7], [0.5, 0.5, 0.5], 'greater')!.p).toBeCloseTo(0.125, 12);
    expect(wilcoxonSignedRank([0.5, 0.5, 0.5], [0.9, 0.8, 0.7], 'greater')!.p).toBeCloseTo(1, 12);
  });

  const d = [
    0.1, 0.4, -0.2, -0.8, -0.4, -0.9, 0.2, 1.4, -0.4, -0.5, 0.6, 0.5, 0.2, -0.8, 0.1, 0.8, -1.2, -0.4, -1.8,
    -1.2, -1.7, -0.1, -1.2, 0.4, 0.3, -0.1, -2.4, -0.4, 0.1, 0.2, -1.4, -0.4, -0.9, -0.7, 1.2, -0.7, 0.1, 1.0,
    -0.5, 0.2, 0.2, -1.1, 0.2, 1.5, -1.4, 1.0, 0.2, -0.5, 2.1, 0.9, -1.1, 0.2, 0.7, -0.1, 0.8, 0.8, 1.5, -0.6,
  ];
  // scipy.stats.wilcoxon(d, alternative=..., method="asymptotic", correction=True) (tie-corrected variance)
  it.each([
    ['greater', 0.7842705509496534],
    ['less', 0.21800549637205174],
  ] as const)('normal approximation with ties (58 pairs), %s', (alternative, p) => {
    const test = wilcoxonSignedRank(d, zeros(d.length), alternative)!;
    expect(test.method).toBe('normal');
    expect(test.wPlus).toBe(754.5);
    expect(test.p).toBeCloseTo(p, 6);
  });

  it('is null for samples of different lengths or without a non-zero difference', () => {
    expect(wilcoxonSignedRank([1, 2], [1])).toBeNull();
    expect(wilcoxonSignedRank([0.5, 0.5], [0.5, 0.5])).toBeNull();
    expect(wilcoxonSignedRank([], [])).toBeNull();
  });
});
