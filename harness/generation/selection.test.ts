import { describe, expect, it } from 'vitest';
import { createRng } from '../../system/rng.ts';
import {
  type ArchivedVariant,
  type Candidate,
  lowerBound,
  PARENT_SELECTIONS,
  type ParentSelection,
  selectionLag,
  selectionPool,
  selectionWeights,
  selectParent,
} from './selection.ts';

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
const v = (id: number, score: number, children = 0): Candidate => ({ id, score, children });

/** How often each id is chosen over `draws` draws from one seeded stream. */
function frequencies(candidates: Candidate[], strategy: ParentSelection, draws = 4000): Map<number, number> {
  const rng = createRng(`frequencies:${strategy}`);
  const counts = new Map(candidates.map((c) => [c.id, 0]));
  for (let i = 0; i < draws; i++) {
    const { id } = selectParent(candidates, strategy, rng);
    counts.set(id, (counts.get(id) ?? 0) + 1 / draws);
  }
  return counts;
}

describe('selectionWeights', () => {
  it.each([
    ['a lone variant sits at the midpoint', [v(0, 0.5)], true, [0.5]],
    ['eight children cost a factor e', [v(0, 0.5, 8)], true, [0.5 * Math.exp(-1)]],
    ['sixteen children cost a factor e^8', [v(0, 0.5, 16)], true, [0.5 * Math.exp(-8)]],
    ['four children barely count', [v(0, 0.5, 4)], true, [0.5 * Math.exp(-1 / 8)]],
    ['mid is the mean of two scores', [v(0, 1), v(1, 0)], true, [sigmoid(5), sigmoid(-5)]],
    [
      'mid is the mean of the top three scores',
      [v(0, 0.9), v(1, 0.6), v(2, 0.3), v(3, 0)],
      true,
      [sigmoid(3), 0.5, sigmoid(-3), sigmoid(-6)],
    ],
    [
      'the top three are found whatever the order',
      [v(0, 0), v(1, 0.3), v(2, 0.9), v(3, 0.6)],
      true,
      [sigmoid(-6), sigmoid(-3), sigmoid(3), 0.5],
    ],
    [
      'score and children combine',
      [v(0, 0.9, 8), v(1, 0.6, 0), v(2, 0.3, 16)],
      true,
      [sigmoid(3) * Math.exp(-1), 0.5, sigmoid(-3) * Math.exp(-8)],
    ],
    [
      'score_prop has no child penalty',
      [v(0, 0.9, 8), v(1, 0.6, 0), v(2, 0.3, 16)],
      false,
      [sigmoid(3), 0.5, sigmoid(-3)],
    ],
  ])('%s', (_name, candidates, childPenalty, expected) => {
    const weights = selectionWeights(candidates, childPenalty);
    expect(weights).toHaveLength(expected.length);
    for (const [i, w] of weights.entries()) expect(w).toBeCloseTo(expected[i]!, 12);
  });

  it('gives zero weight to variants buried under children', () => {
    expect(selectionWeights([v(0, 0.9, 1000), v(1, 0.1, 1000)], true)).toEqual([0, 0]);
  });
});

describe('selectParent', () => {
  const archive = [v(0, 0.2, 3), v(1, 0.8, 1), v(2, 0.5, 0), v(3, 0.1, 0)];

  it.each([
    ['best picks the highest score', 'best', archive, 1],
    ['best keeps the earlier of a tie', 'best', [v(4, 0.7), v(5, 0.7), v(6, 0.1)], 4],
    ['latest picks the last candidate', 'latest', archive, 3],
    ['latest with one candidate', 'latest', [v(9, 0)], 9],
  ] as const)('%s', (_name, strategy, candidates, expected) => {
    expect(selectParent(candidates, strategy, createRng('x')).id).toBe(expected);
  });

  it.each(PARENT_SELECTIONS)('%s gives the same choice for the same seed', (strategy) => {
    const choices = (seed: string) => {
      const rng = createRng(seed);
      return Array.from({ length: 20 }, () => selectParent(archive, strategy, rng));
    };
    expect(choices('run-42')).toEqual(choices('run-42'));
  });

  it.each(['random', 'score_prop', 'score_child_prop'] as const)(
    '%s draws differ across seeds',
    (strategy) => {
      const first = (seed: number) => selectParent(archive, strategy, createRng(`seed-${seed}`)).id;
      const seen = new Set(Array.from({ length: 50 }, (_, seed) => first(seed)));
      expect(seen.size).toBeGreaterThan(1);
    },
  );

  it.each(PARENT_SELECTIONS)('%s names its strategy in the reason', (strategy) => {
    const selection = selectParent(archive, strategy, createRng('reason'));
    expect(selection.reason.startsWith(`${strategy}: `)).toBe(true);
    expect(archive.map((c) => c.id)).toContain(selection.id);
  });

  it.each(['score_prop', 'score_child_prop'] as const)(
    '%s draws in proportion to the weights',
    (strategy) => {
      const weights = selectionWeights(archive, strategy === 'score_child_prop');
      const total = weights.reduce((sum, w) => sum + w, 0);
      const seen = frequencies(archive, strategy);
      for (const [i, c] of archive.entries()) expect(seen.get(c.id)).toBeCloseTo(weights[i]! / total, 1);
    },
  );

  it.each(['score_prop', 'score_child_prop'] as const)('%s prefers a high score', (strategy) => {
    const seen = frequencies([v(0, 0.2), v(1, 0.8)], strategy);
    expect(seen.get(1)!).toBeGreaterThan(0.9);
  });

  it('score_child_prop shies away from a variant with many children', () => {
    const seen = frequencies([v(0, 0.5, 12), v(1, 0.5, 0)], 'score_child_prop');
    expect(seen.get(1)!).toBeGreaterThan(0.9);
  });

  it('score_prop ignores children', () => {
    const seen = frequencies([v(0, 0.5, 12), v(1, 0.5, 0)], 'score_prop');
    expect(seen.get(0)!).toBeCloseTo(0.5, 1);
  });

  it.each(['random', 'score_child_prop'] as const)(
    '%s draws uniformly when all weights are zero',
    (strategy) => {
      const buried = [v(0, 0.9, 1000), v(1, 0.5, 1000), v(2, 0.1, 1000)];
      const seen = frequencies(buried, strategy, 3000);
      for (const c of buried) expect(seen.get(c.id)!).toBeCloseTo(1 / 3, 1);
      expect(selectParent(buried, strategy, createRng('p')).reason).not.toContain('NaN');
    },
  );

  it('reports the probability of the draw', () => {
    const { reason } = selectParent([v(0, 0.5), v(1, 0.5)], 'score_child_prop', createRng('p'));
    expect(reason).toMatch(/^score_child_prop: drawn with p=0\.500 \(score 0\.500\)$/);
  });

  it('refuses an empty archive', () => {
    expect(() => selectParent([], 'best', createRng('x'))).toThrow(/at least one candidate/);
  });
});

describe('selectionPool with generations in flight', () => {
  const a = (
    id: number,
    parentId: number | null,
    score: number | null,
    blamesParent = false,
  ): ArchivedVariant => ({
    id,
    parentId,
    score,
    blamesParent,
  });
  // Generation 6 with --parallel 2 draws from variants up to 6 − (2·2 − 1) = 3. Variant 4 finished early and
  // 5 is in flight: neither is a candidate, but both count as children of their parents.
  const archive = [a(0, null, 0.5), a(1, 0, 0.8), a(2, 0, null), a(3, 1, 0.6), a(4, 1, 0.9), a(5, 3, null)];
  const probabilities = (pool: ReturnType<typeof selectionPool>): number[] => {
    const w = selectionWeights(pool, true);
    const total = w.reduce((sum, x) => sum + x, 0);
    return w.map((x) => x / total);
  };

  it('takes finished variants up to g − (2K − 1) and counts in-flight children', () => {
    const pool = selectionPool(archive, 6, 2);
    expect(pool).toEqual([
      { id: 0, score: 0.5, children: 2 },
      { id: 1, score: 0.8, children: 2 },
      { id: 3, score: 0.6, children: 1 },
    ]);
    // mid = (0.8 + 0.6 + 0.5) / 3; w = sigmoid(10 (s - mid)) exp(-(children / 8)^3), worked out by hand.
    const p = probabilities(pool);
    for (const [i, expected] of [0.1416, 0.5711, 0.2873].entries()) expect(p[i]).toBeCloseTo(expected, 4);
  });

  it('does not depend on which generation after the horizon finished first', () => {
    const later = archive.map((v) =>
      v.id === 5 ? { ...v, score: 0.1 } : v.id === 4 ? { ...v, score: null } : v,
    );
    expect(selectionPool(later, 6, 2)).toEqual(selectionPool(archive, 6, 2));
  });

  it('drops a parent whose MetaAgent failed a child up to the horizon, not one failed later', () => {
    const blamed = archive.map((v) => (v.id === 2 ? { ...v, blamesParent: true } : v));
    const pool = selectionPool(blamed, 6, 2);
    expect(pool.map((c) => c.id)).toEqual([1, 3]);
    const p = probabilities(pool);
    expect(p[0]).toBeCloseTo(0.7284, 4);
    expect(p[1]).toBeCloseTo(0.2716, 4);
    expect(selectionPool(blamed, 2, 1).map((c) => c.id)).toEqual([0, 1]);
  });

  it('serial runs see every finished variant; the first generations always see variant 0', () => {
    expect(selectionPool(archive, 6, 1).map((c) => c.id)).toEqual([0, 1, 3, 4]);
    expect(selectionPool([a(0, null, 0.5)], 1, 4)).toEqual([{ id: 0, score: 0.5, children: 0 }]);
  });

  it('looks 2K − 1 generations back with K in flight, so a free slot need not wait for the slowest', () => {
    expect([1, 2, 3, 4, 8].map(selectionLag)).toEqual([1, 3, 5, 7, 15]);
    // Generation 6 with --parallel 3: up to 6 − 5 = 1. Both candidates have two children (1, 2 and 3, 4).
    const pool = selectionPool(archive, 6, 3);
    expect(pool).toEqual([
      { id: 0, score: 0.5, children: 2 },
      { id: 1, score: 0.8, children: 2 },
    ]);
    // mid = (0.8 + 0.5) / 2 = 0.65; equal child penalties cancel: sigmoid(∓1.5) = 0.1824 and 0.8176.
    const p = probabilities(pool);
    expect(p[0]).toBeCloseTo(0.1824, 4);
    expect(p[1]).toBeCloseTo(0.8176, 4);
  });
});

describe('lcb selection', () => {
  it.each([
    ['an exact score is its own bound', { score: 0.6 }, 0.6],
    ['0.6 from 24 answers', { score: 0.6, samples: 24 }, 0.6 - Math.sqrt(0.24 / 24)],
    ['0.6 from 96 answers sits closer', { score: 0.6, samples: 96 }, 0.6 - Math.sqrt(0.24 / 96)],
    ['a perfect score has no spread', { score: 1, samples: 10 }, 1],
    ['never below 0', { score: 0.01, samples: 1 }, 0],
  ])('%s', (_name, c, bound) => {
    expect(lowerBound(c)).toBeCloseTo(bound, 10);
  });

  it('prefers a score backed by many answers over a slightly higher one from few', () => {
    const lucky = { id: 1, score: 0.7, children: 0, samples: 5 };
    const steady = { id: 2, score: 0.66, children: 0, samples: 400 };
    const byLcb = frequencies([lucky, steady], 'lcb');
    const byScore = frequencies([lucky, steady], 'score_child_prop');
    expect(byLcb.get(2)!).toBeGreaterThan(0.6);
    expect(byScore.get(1)!).toBeGreaterThan(0.52);
    expect(selectParent([lucky, steady], 'lcb', createRng('x')).reason).toMatch(
      /^lcb: drawn with p=.*lower bound/,
    );
  });
});

describe('confirmed_better selection', () => {
  it('prefers a lineage confirmed better over an unconfirmed variant with the same score', () => {
    const confirmed = { id: 1, score: 0.7, children: 0, confirmed: true };
    const unconfirmed = { id: 2, score: 0.7, children: 0, confirmed: false };
    const freq = frequencies([confirmed, unconfirmed], 'confirmed_better');
    expect(freq.get(1)!).toBeGreaterThan(0.85);
    expect(freq.get(2)!).toBeGreaterThan(0.03);
    expect(selectParent([confirmed, unconfirmed], 'confirmed_better', createRng('x')).reason).toMatch(
      /^confirmed_better: drawn with p=.*(a lineage confirmed better|not confirmed better)/,
    );
  });

  it('draws as score_child_prop when every lineage is confirmed', () => {
    const pool = [
      { id: 0, score: 0.4, children: 2, confirmed: true },
      { id: 1, score: 0.8, children: 0, confirmed: true },
    ];
    const a = frequencies(pool, 'confirmed_better');
    const b = frequencies(pool, 'score_child_prop');
    expect(a.get(1)!).toBeCloseTo(b.get(1)!, 1);
  });
});
