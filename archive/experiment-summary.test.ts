import { describe, expect, it } from 'vitest';
import {
  type RunFigures,
  runFigures,
  summarizeConfig,
  summarizeExperiment,
  tasksToReach,
} from './experiment-summary.ts';

const run = (
  id: string,
  seed: number,
  scores: (number | null)[],
  tasks = scores.map(() => 10),
): RunFigures => ({
  id,
  seed,
  scores,
  tasksByGeneration: tasks,
  costUsd: 0.01,
});

describe('tasksToReach', () => {
  it.each([
    [[0.2, 0.5, 0.4, 0.8], [80, 10, 20, 30], 0.5, 90],
    [[0.2, 0.5, 0.4, 0.8], [80, 10, 20, 30], 0.8, 140],
    [[0.2, null, 0.9], [80, 5, 40], 0.9, 125],
    [[0.2, 0.5], [80, 10], 0.9, null],
    [[0.9], [80], 0.5, 80],
  ])('scores %j, tasks %j, target %d → %j', (scores, tasks, target, expected) => {
    expect(tasksToReach(run('r', 1, scores, tasks), target)).toBe(expected);
  });
});

describe('summarizeExperiment', () => {
  // Best per run: full 0.8, 0.9, 0.7; frozen 0.6, 0.5, 0.7. AUC: means of the best-so-far curves.
  const full = [
    run('full-s1', 1, [0.4, 0.8, 0.6]),
    run('full-s2', 2, [0.5, 0.9, null]),
    run('full-s3', 3, [0.3, 0.3, 0.7]),
  ];
  const frozen = [
    run('frozen-s1', 1, [0.4, 0.6, 0.5]),
    run('frozen-s2', 2, [0.5, 0.4, 0.5]),
    run('frozen-s3', 3, [0.3, 0.7, 0.7]),
  ];
  const summary = summarizeExperiment([
    { name: 'full', runs: full },
    { name: 'frozen', runs: frozen },
  ]);

  it('gives per configuration the best per run, its median and interval, the AUC median and tasks', () => {
    const [a, b] = summary.configs;
    expect(a).toMatchObject({
      name: 'full',
      runs: ['full-s1', 'full-s2', 'full-s3'],
      tasksEvaluated: [30, 30, 30],
    });
    expect(a!.best).toEqual([0.8, 0.9, 0.7]);
    expect(a!.medianBest).toBe(0.8);
    // AUC per run: (0.4+0.8+0.8)/3, (0.5+0.9+0.9)/3, (0.3+0.3+0.7)/3 → median 0.6667
    expect(a!.aucMedian).toBeCloseTo(2 / 3, 12);
    expect(b!.best).toEqual([0.6, 0.5, 0.7]);
    expect(b!.medianBest).toBe(0.6);
    const [lo, hi] = a!.ci95!;
    expect(lo).toBeGreaterThanOrEqual(0.7);
    expect(hi).toBeLessThanOrEqual(0.9);
    expect(lo).toBeLessThanOrEqual(0.8);
    expect(hi).toBeGreaterThanOrEqual(0.8);
  });

  it('tests each pair paired by seed (Wilcoxon) with Mann-Whitney U beside it', () => {
    expect(summary.comparisons).toHaveLength(1);
    const [c] = summary.comparisons;
    expect(c!.a).toBe('full');
    expect(c!.b).toBe('frozen');
    expect(c!.deltaMedianBest).toBeCloseTo(0.2, 12);
    // d = 0.2, 0.4, 0 → the zero is dropped, W+ = 3 of {0, 1, 2, 3}: p = 1/4
    expect(c!.pValue).toBeCloseTo(0.25, 12);
    expect(c!.test).toMatch(/Wilcoxon signed-rank, paired by seed \(3 pairs, exact\)/);
    // a = 0.8, 0.9, 0.7 against b = 0.6, 0.5, 0.7: U = 8.5, exact p over the 20 splits of the midranks
    expect(c!.pValueMannWhitney).toBeCloseTo(0.1, 12);
  });

  it('falls back to Mann-Whitney U when the configurations share fewer than two seeds', () => {
    const other = summarizeExperiment([
      { name: 'a', runs: [run('a-s1', 1, [0.9]), run('a-s2', 2, [0.8])] },
      { name: 'b', runs: [run('b-s3', 3, [0.1]), run('b-s4', 4, [0.2])] },
    ]);
    expect(other.comparisons[0]!.test).toMatch(/Mann-Whitney U \(exact\)/);
    expect(other.comparisons[0]!.pValue).toBeCloseTo(1 / 6, 12);
  });

  it('adds tasks to the target only when asked', () => {
    expect(summary.configs[0]!.tasksToTarget).toBeUndefined();
    const withTarget = summarizeExperiment([{ name: 'full', runs: full }], 0.8);
    expect(withTarget.configs[0]!.tasksToTarget).toEqual([20, 20, null]);
  });
});

describe('runFigures', () => {
  it('reads scores by generation, counts each task once per run and task code, test tasks apart', () => {
    const source = {
      run: () => ({ id: 'r1', seed: 4, costUsd: 0.5, best: { id: 2, score: 0.6 } }),
      variants: () => [
        { id: 0, generation: 0, score: 0.4, scores: { d: { val: { score: 0.4 }, test: { score: 0.3 } } } },
        { id: 1, generation: 1, score: null },
        { id: 2, generation: 2, score: 0.6, scores: { d: { val: { score: 0.6 }, test: { score: 0.35 } } } },
      ],
      // Variant 2 keeps t1's task code (counted once) and changes t2's (counted again).
      taskResults: (id: number) => {
        const r = (code: string, task: string, split = 'val') => ({
          codeHash: code,
          domain: 'd',
          split,
          taskId: task,
        });
        return id === 0
          ? [r('c0', 't1'), r('c0', 't2'), r('c0', 'x1', 'test')]
          : id === 2
            ? [r('c0', 't1'), r('c2', 't2'), r('c2', 'x1', 'test')]
            : [];
      },
    };
    const figures = runFigures(source);
    expect(figures).toEqual({
      id: 'r1',
      seed: 4,
      scores: [0.4, null, 0.6],
      tasksByGeneration: [2, 0, 1],
      costUsd: 0.5,
      heldOut: { best: 0.35, initial: 0.3, reported: 0.6 },
      withinNoise: null,
    });
    const summary = summarizeConfig('c', [
      figures!,
      { ...figures!, id: 'r2', heldOut: { best: 0.5, initial: null } },
    ]);
    expect(summary.heldOut.map((g) => g?.toFixed(2) ?? null)).toEqual(['0.05', null]);
    expect(summary.heldOutGain).toBeCloseTo(0.05);
    // The reported best's val score over its test score: 0.6 against 0.35; r2 reported none.
    expect(summary.overestimate.map((o) => o?.toFixed(2) ?? null)).toEqual(['0.25', null]);
    expect([summary.overestimateMean, summary.overestimateMedian]).toEqual([
      expect.closeTo(0.25),
      expect.closeTo(0.25),
    ]);
    expect(runFigures({ ...source, run: () => null })).toBeNull();
    // With a noise floor: the best gains 0.2 over variant 0, inside a spread of 0.3 and beyond one of 0.1.
    expect(runFigures({ ...source, noiseFloor: () => ({ spread: 0.3 }) })?.withinNoise).toBe(true);
    const beyond = runFigures({ ...source, noiseFloor: () => ({ spread: 0.1 }) })!;
    expect(beyond.withinNoise).toBe(false);
    expect(summarizeConfig('c', [beyond, figures!]).withinNoise).toEqual([false, null]);
  });
});

describe("an arm's regression rate", () => {
  it('is read from each run as archive regressions counts it, and pooled over the runs', () => {
    const outcome = (variantId: number, taskId: string, right: boolean) => ({
      variantId,
      domain: 'd',
      split: 'val',
      taskId,
      attempt: 0,
      outcome: right ? ('correct' as const) : ('wrong' as const),
    });
    const source = {
      run: () => ({ id: 'r1', seed: 1, costUsd: 0, best: null }),
      variants: () => [
        { id: 0, generation: 0, parent: null, score: 0.5 },
        { id: 1, generation: 1, parent: 0, score: 0.5 },
        { id: 2, generation: 2, parent: 0, score: 0.5 },
      ],
      taskResults: () => [],
      // Variant 1 breaks a and fixes c; variant 2 changes nothing.
      taskOutcomes: () => [
        ...[outcome(0, 'a', true), outcome(0, 'b', true), outcome(0, 'c', false)],
        ...[outcome(1, 'a', false), outcome(1, 'b', true), outcome(1, 'c', true)],
        ...[outcome(2, 'a', true), outcome(2, 'b', true), outcome(2, 'c', false)],
      ],
    };
    const figures = runFigures(source)!;
    expect(figures.regressions).toMatchObject({
      children: 2,
      withRegression: 1,
      regressed: 1,
      parentPassed: 4,
    });
    const other = {
      ...figures,
      id: 'r2',
      regressions: { ...figures.regressions!, regressed: 3, rate: 3 / 4 },
    };
    const summary = summarizeConfig('c', [figures, other, { ...figures, id: 'r3', regressions: undefined }]);
    expect(summary.regressionRate).toEqual([0.25, 0.75, null]);
    expect(summary.regressions).toMatchObject({
      children: 4,
      withRegression: 2,
      regressed: 4,
      parentPassed: 8,
      rate: 0.5,
    });
  });
});
