import { describe, expect, it } from 'vitest';
import { median } from '../archive/index.ts';
import { loadArithmetic } from '../domains/arithmetic/index.ts';
import { reportedBest, walk } from './sim-walk.ts';

// The generation loop in memory (test/sim-walk.ts) on the noisy sim (--sim-noise 1): each variant's val score
// is one attempt at 10 tasks, as a staged sample with a real model at a temperature above zero. Seeds the
// landscape tests do not use.
const domain = {
  name: 'arithmetic',
  train: loadArithmetic('train'),
  val: loadArithmetic('val').slice(0, 10),
  test: loadArithmetic('test'),
};
const SEEDS = [101, 102, 103, 104, 105, 106, 107, 108];

describe('scores under noise', () => {
  it("the plain best's val score overestimates its test score; confirming the top 3 halves that at least", async () => {
    const plain = [];
    const confirmed = [];
    for (const seed of SEEDS) {
      const opts = { seed, generations: 15, domain, noise: 1 };
      const { variants } = await walk(opts);
      plain.push(await reportedBest(opts, variants, null));
      confirmed.push(await reportedBest(opts, variants, { top: 3, attempts: 4 }));
    }
    // The bias of the reported score: its mean excess over the test score (one test draw per run is noisy,
    // so the median of 8 moves by a task or two).
    const overestimate = (runs: { val: number; test: number }[]) =>
      runs.reduce((s, r) => s + r.val - r.test, 0) / runs.length;
    const testScore = (runs: { test: number }[]) => median(runs.map((r) => r.test))!;
    // The winner's curse: the highest of many noisy scores is high partly by luck.
    expect(overestimate(plain)).toBeGreaterThan(0.03);
    expect(overestimate(confirmed)).toBeLessThanOrEqual(overestimate(plain) / 2);
    expect(testScore(confirmed)).toBeGreaterThanOrEqual(testScore(plain));
  }, 300_000);
});
