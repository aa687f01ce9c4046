import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../system/rng.ts';
import { bets, decide, MAX_BET, observe, pairedDifference, runRounds, startTest } from './paired-test.ts';

/** `count` sequences of `tasks` paired differences, child and parent passing each task with their own rate. */
function sequences(child: number, parent: number, tasks: number, count: number, seed: number): number[][] {
  const next = mulberry32(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: tasks }, () => (next() < child ? 1 : 0) - (next() < parent ? 1 : 0)),
  );
}

/**
 * Pass/fail pairs of an equal child under noise, as the simulated model's `--sim-noise`: the child answers each
 * task as its parent did, except that a share `redrawn` of its answers are drawn afresh at the same rate.
 */
function noisyCopies(rate: number, redrawn: number, tasks: number, count: number, seed: number): number[][] {
  const next = mulberry32(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: tasks }, () => {
      const parent = next() < rate ? 1 : 0;
      const child = next() < redrawn ? (next() < rate ? 1 : 0) : parent;
      return child - parent;
    }),
  );
}

/** Scores in [0, 1] (a partial-credit grader): uniform around each side's mean. */
function scoredSequences(
  child: number,
  parent: number,
  tasks: number,
  count: number,
  seed: number,
): number[][] {
  const next = mulberry32(seed);
  const score = (mean: number) => Math.min(1, Math.max(0, mean + (next() - 0.5) * 0.8));
  return Array.from({ length: count }, () =>
    Array.from({ length: tasks }, () => pairedDifference(score(child), score(parent))),
  );
}

const RATES = { alpha: 0.05, futilityAlpha: 0.2, futilityMargin: 0 };
const RUNS = 4000;
/** Three standard errors of a rate `p` estimated from RUNS sequences: the margin for simulation error. */
const margin = (p: number) => 3 * Math.sqrt((p * (1 - p)) / RUNS);

function shares(seqs: number[][], roundSize = 8, rates = RATES) {
  let better = 0;
  let worse = 0;
  let used = 0;
  for (const s of seqs) {
    const r = runRounds(s, roundSize, rates);
    if (r.decision === 'better') better++;
    if (r.decision === 'worse') worse++;
    used += r.used;
  }
  return { better: better / seqs.length, worse: worse / seqs.length, used: used / seqs.length };
}

describe('the paired test', () => {
  it('learns nothing from a task both pass or both fail', () => {
    const after = [0, 0, 0, 0].reduce(observe, startTest());
    expect(after.evidence).toBe(1);
    expect(after.futility).toBe(1);
    expect(decide(after, RATES)).toBe('undecided');
  });

  it('bets from past outcomes only, never more than MAX_BET', () => {
    const wins = Array.from({ length: 50 }, () => 1).reduce(observe, startTest());
    expect(bets(wins)[0]).toBe(MAX_BET);
    expect(bets(wins)[1]).toBe(0);
    expect(bets(startTest())[0]).toBeGreaterThan(0);
  });

  it('refuses a difference outside [-1, 1], and a margin outside [0, 1)', () => {
    expect(() => observe(startTest(), 1.5)).toThrow(/\[-1, 1\]/);
    expect(() => observe(startTest(1), 0)).toThrow(/\[0, 1\)/);
  });

  it('with a margin, takes a tie as evidence against a gain of the margin, and never as evidence of better', () => {
    const after = [0, 0, 0, 0].reduce(observe, startTest(0.1));
    expect(after.evidence).toBe(1);
    expect(after.futility).toBeGreaterThan(1);
  });

  // Under the null ("the child is no better"), however often it is looked at, a false `better` is at most alpha.
  it.each([
    ['both pass half the tasks', 0.5, 0.5],
    ['both pass most tasks', 0.85, 0.85],
    ['the child slightly worse', 0.45, 0.5],
  ])('decides better at most alpha of the time when %s', (_name, child, parent) => {
    for (const roundSize of [1, 8]) {
      const { better } = shares(sequences(child, parent, 100, RUNS, 11), roundSize);
      expect(better).toBeLessThanOrEqual(RATES.alpha + margin(RATES.alpha));
    }
  });

  it('keeps alpha on scores in [0, 1]', () => {
    const { better } = shares(scoredSequences(0.6, 0.6, 100, RUNS, 12));
    expect(better).toBeLessThanOrEqual(RATES.alpha + margin(RATES.alpha));
  });

  it('decides worse at most futilityAlpha of the time when the child is as good (no margin)', () => {
    const { worse } = shares(sequences(0.6, 0.6, 100, RUNS, 13));
    expect(worse).toBeLessThanOrEqual(RATES.futilityAlpha + margin(RATES.futilityAlpha));
  });

  // With a margin δ, the futility side's null is "the child is better by δ or more".
  const MARGIN = { ...RATES, futilityMargin: 0.1 };

  it.each([
    ['better by exactly the margin', 0.6, 0.5],
    ['better by more than the margin', 0.75, 0.5],
  ])('decides worse at most futilityAlpha of the time when the child is %s', (_name, child, parent) => {
    const { worse } = shares(sequences(child, parent, 100, RUNS, 16), 8, MARGIN);
    expect(worse).toBeLessThanOrEqual(MARGIN.futilityAlpha + margin(MARGIN.futilityAlpha));
  });

  it('with a margin, stops most children no better than their parent under noise before their last task', () => {
    const { worse, used } = shares(noisyCopies(0.5, 0.3, 80, RUNS, 17), 8, MARGIN);
    expect(worse).toBeGreaterThan(0.5);
    expect(used).toBeLessThan(65);
    // Without the margin such a child is stopped at most futilityAlpha of the time.
    expect(shares(noisyCopies(0.5, 0.3, 80, RUNS, 17)).worse).toBeLessThanOrEqual(
      RATES.futilityAlpha + margin(RATES.futilityAlpha),
    );
  });

  it('finds a clearly better child better in most runs of 80 tasks', () => {
    const { better } = shares(sequences(0.8, 0.5, 80, RUNS, 14));
    expect(better).toBeGreaterThan(0.75);
  });

  it('stops a clearly worse child early, on about half its tasks', () => {
    const { worse, used } = shares(sequences(0.4, 0.7, 80, RUNS, 15));
    expect(worse).toBeGreaterThan(0.85);
    expect(used).toBeLessThan(45);
  });
});
