import { type RegressionSummary, summarizeRegressions, variantRegressions } from './regressions.ts';
import {
  bestSoFar,
  bootstrapMedianCI,
  curveArea,
  mannWhitneyU,
  median,
  wilcoxonSignedRank,
} from './stats.ts';
import type { TaskOutcomeRow } from './task-results.ts';

/**
 * The figures that compare configurations over seeds, shared by `hyperagents experiment` and the
 * archive browser's run comparison so both show the same numbers. Pure.
 */

/** One finished run as the summary needs it. */
export interface RunFigures {
  id: string;
  seed: number;
  /** Selection score per generation (index = generation, 0 = the initial agent), null where none. */
  scores: readonly (number | null)[];
  /** Tasks evaluated per generation, same index (see runFigures for what counts). */
  tasksByGeneration: readonly number[];
  costUsd: number;
  /**
   * Test-split scores (the mean over the run's domains) of the run's reported best and of variant 0,
   * null where not evaluated: whether an improvement transfers to tasks selection never saw. `reported`: the
   * validation score the run reported for its best (its confirmed score under `--confirm-top`).
   */
  heldOut?: { best: number | null; initial: number | null; reported?: number | null };
  /** The run's variants flagged for reward hacking (archive/flags.ts); shown, never selected on. */
  flags?: number;
  /**
   * With a noise floor (`--noise-floor`): whether the best's gain over variant 0 lies within its spread, so
   * the run's improvement may be noise. Null without a floor, or while variant 0 is the best.
   */
  withinNoise?: boolean | null;
  /** What its children broke against their parents, task by task (`archive regressions`); absent: not read. */
  regressions?: RegressionSummary;
}

export interface ConfigSummary {
  name: string;
  /** Set for a budget-matched baseline (e.g. `best-of-k`): not evolution, compared like it. */
  baseline?: string;
  runs: string[];
  /** Best score per run (the end of its best-so-far curve), aligned with `runs`; null if never scored. */
  best: (number | null)[];
  medianBest: number | null;
  /** Percentile bootstrap 95% interval of the median best (seeded: the same runs give the same interval). */
  ci95: [number, number] | null;
  /** Median over runs of the area under the best-so-far curve (its mean over generations). */
  aucMedian: number | null;
  /** Tasks evaluated per run, aligned with `runs`. */
  tasksEvaluated: number[];
  costUsd: number[];
  /** With a target: per run, tasks evaluated until the best score first reached it (null: never). */
  tasksToTarget?: (number | null)[];
  /** Per run: the best's test score minus variant 0's (null where either is missing), aligned with `runs`. */
  heldOut: (number | null)[];
  /** Median of `heldOut` over the runs that have it. */
  heldOutGain: number | null;
  /**
   * Per run: the reported best's validation score minus its test score, how much the run's own figure
   * overstates what the best does on tasks it never saw (the winner's curse), aligned with `runs`.
   */
  overestimate: (number | null)[];
  /** Mean and median of `overestimate` over the runs that have it. */
  overestimateMean: number | null;
  overestimateMedian: number | null;
  /** Variants flagged for reward hacking per run (archive/flags.ts), aligned with `runs`: shown, never selected on. */
  flags: number[];
  /** Per run, whether its best's gain lies within its noise floor (null: no floor, or no gain), aligned with `runs`. */
  withinNoise: (boolean | null)[];
  /** Per run: regressed tasks over the tasks the parents passed (null: no child compared), aligned with `runs`. */
  regressionRate: (number | null)[];
  /** Summed over the runs: children compared and those with a regression, regressed and parent-passed tasks. */
  regressions: RegressionSummary;
}

/**
 * Configurations run on the same seeds share the seed's tasks and random draws, so runs pair up by
 * seed: the test is Wilcoxon's signed-rank test on the paired differences (over the seeds both have),
 * with the unpaired Mann-Whitney U test beside it. Without two shared seeds, Mann-Whitney U only.
 */
export interface Comparison {
  a: string;
  b: string;
  deltaMedianBest: number | null;
  /** One-sided: are a's best scores higher than b's? (the test named in `test`) */
  pValue: number | null;
  deltaAucMedian: number | null;
  /** The same test on the areas under the best-so-far curves. */
  pValueAuc: number | null;
  test: string;
  /** One-sided Mann-Whitney U on the same figures, unpaired. */
  pValueMannWhitney: number | null;
  pValueAucMannWhitney: number | null;
}

export interface ExperimentSummary {
  configs: ConfigSummary[];
  comparisons: Comparison[];
}

/** The generation-aligned best-so-far curve of a run. */
export function runCurve(run: RunFigures): (number | null)[] {
  return bestSoFar(run.scores);
}

/** Tasks evaluated until the best-so-far curve first reaches `target`; null if it never does. */
export function tasksToReach(run: RunFigures, target: number): number | null {
  let tasks = 0;
  for (const [g, score] of run.scores.entries()) {
    tasks += run.tasksByGeneration[g] ?? 0;
    if (score !== null && score >= target) return tasks;
  }
  return null;
}

const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);
const numbers = (xs: readonly (number | null)[]): number[] => xs.filter((x): x is number => x !== null);

export function summarizeConfig(name: string, runs: readonly RunFigures[], target?: number): ConfigSummary {
  const curves = runs.map(runCurve);
  const best = curves.map((c) => c.at(-1) ?? null);
  const areas = numbers(curves.map(curveArea));
  const ci = bootstrapMedianCI(numbers(best), { seed: 1 });
  return {
    name,
    runs: runs.map((r) => r.id),
    best,
    medianBest: median(numbers(best)),
    ci95: ci === null ? null : [ci.low, ci.high],
    aucMedian: median(areas),
    tasksEvaluated: runs.map((r) => sum(r.tasksByGeneration)),
    costUsd: runs.map((r) => r.costUsd),
    heldOut: runs.map(heldOutGainOf),
    heldOutGain: median(numbers(runs.map(heldOutGainOf))),
    ...overestimates(runs),
    flags: runs.map((r) => r.flags ?? 0),
    withinNoise: runs.map((r) => r.withinNoise ?? null),
    regressionRate: runs.map((r) => r.regressions?.rate ?? null),
    regressions: pooledRegressions(runs),
    ...(target === undefined ? {} : { tasksToTarget: runs.map((r) => tasksToReach(r, target)) }),
  };
}

/** The arm's regression rate: every run's children pooled. */
function pooledRegressions(runs: readonly RunFigures[]): RegressionSummary {
  const add = (k: 'children' | 'withRegression' | 'regressed' | 'fixed' | 'rebroken' | 'parentPassed') =>
    sum(runs.map((r) => r.regressions?.[k] ?? 0));
  const [regressed, parentPassed] = [add('regressed'), add('parentPassed')];
  return {
    children: add('children'),
    withRegression: add('withRegression'),
    regressed,
    fixed: add('fixed'),
    rebroken: add('rebroken'),
    parentPassed,
    rate: parentPassed === 0 ? null : regressed / parentPassed,
  };
}

function overestimates(
  runs: readonly RunFigures[],
): Pick<ConfigSummary, 'overestimate' | 'overestimateMean' | 'overestimateMedian'> {
  const overestimate = runs.map(({ heldOut }) =>
    heldOut?.reported == null || heldOut.best === null ? null : heldOut.reported - heldOut.best,
  );
  const known = numbers(overestimate);
  return {
    overestimate,
    overestimateMean: known.length === 0 ? null : sum(known) / known.length,
    overestimateMedian: median(known),
  };
}

function heldOutGainOf(run: RunFigures): number | null {
  const { best = null, initial = null } = run.heldOut ?? {};
  return best === null || initial === null ? null : best - initial;
}

interface RunPoint {
  seed: number;
  best: number | null;
  area: number | null;
}

function points(runs: readonly RunFigures[]): RunPoint[] {
  return runs.map((r) => {
    const curve = runCurve(r);
    return { seed: r.seed, best: curve.at(-1) ?? null, area: curveArea(curve) };
  });
}

/** One-sided tests of a > b on one figure: paired by seed where possible, and unpaired. */
function tests(a: readonly RunPoint[], b: readonly RunPoint[], figure: 'best' | 'area') {
  const unpaired = mannWhitneyU(
    numbers(a.map((r) => r[figure])),
    numbers(b.map((r) => r[figure])),
    'greater',
  );
  const pairs = a.flatMap((x) => {
    const y = b.find((r) => r.seed === x.seed);
    const [vx, vy] = [x[figure], y?.[figure] ?? null];
    return vx === null || vy === null ? [] : [[vx, vy] as const];
  });
  if (pairs.length < 2)
    return { p: unpaired?.p ?? null, unpaired: unpaired?.p ?? null, test: unpairedName(unpaired?.method) };
  const paired = wilcoxonSignedRank(
    pairs.map(([x]) => x),
    pairs.map(([, y]) => y),
    'greater',
  );
  return {
    // Every pair equal: no evidence either way.
    p: paired?.p ?? 1,
    unpaired: unpaired?.p ?? null,
    test: `one-sided Wilcoxon signed-rank, paired by seed (${pairs.length} pairs, ${paired?.method ?? 'all equal'})`,
  };
}

const unpairedName = (method: string | undefined) => `one-sided Mann-Whitney U (${method ?? 'too few runs'})`;

/** Every pair of configurations (the earlier one as a), each tested one-sided for a > b. */
export function compareConfigs(
  configs: readonly ConfigSummary[],
  runsOf: ReadonlyMap<string, readonly RunFigures[]>,
): Comparison[] {
  const out: Comparison[] = [];
  const delta = (x: number | null, y: number | null) => (x === null || y === null ? null : x - y);
  configs.forEach((a, i) => {
    const pa = points(runsOf.get(a.name) ?? []);
    for (const b of configs.slice(i + 1)) {
      const pb = points(runsOf.get(b.name) ?? []);
      const best = tests(pa, pb, 'best');
      const area = tests(pa, pb, 'area');
      out.push({
        a: a.name,
        b: b.name,
        deltaMedianBest: delta(a.medianBest, b.medianBest),
        pValue: best.p,
        deltaAucMedian: delta(a.aucMedian, b.aucMedian),
        pValueAuc: area.p,
        test: best.test,
        pValueMannWhitney: best.unpaired,
        pValueAucMannWhitney: area.unpaired,
      });
    }
  });
  return out;
}

/** The whole comparison: configurations in the order given. */
export function summarizeExperiment(
  groups: readonly { name: string; runs: readonly RunFigures[] }[],
  target?: number,
): ExperimentSummary {
  const configs = groups.map((g) => summarizeConfig(g.name, g.runs, target));
  return { configs, comparisons: compareConfigs(configs, new Map(groups.map((g) => [g.name, g.runs]))) };
}

/** What `runFigures` reads; the archive reader satisfies it. */
export interface FiguresSource {
  run(): { id: string; seed: number; costUsd: number; best?: { id: number; score?: number } | null } | null;
  variants(): readonly {
    id: number;
    generation: number;
    parent?: number | null;
    score: number | null;
    scores?: Readonly<Record<string, Readonly<Record<string, { score: number } | undefined>>>>;
  }[];
  taskResults(
    variantId: number,
  ): readonly { codeHash: string; domain: string; split: string; taskId: string }[];
  /** Variant 0's noise floor (`--noise-floor`), when the run measured one. */
  noiseFloor?(): { spread: number } | null;
  /** Every variant's outcome on every task and attempt, for the run's regressions. */
  taskOutcomes?(): readonly TaskOutcomeRow[];
}

/** The mean test score over a variant's domains; null unless every domain has one. */
export function testScore(scores: FiguresVariant['scores']): number | null {
  const domains = Object.values(scores ?? {});
  const tests = domains.map((d) => d.test?.score);
  if (tests.length === 0 || tests.some((t) => t === undefined)) return null;
  return (tests as number[]).reduce((s, x) => s + x, 0) / tests.length;
}

type FiguresVariant = ReturnType<FiguresSource['variants']>[number];

/**
 * Test scores of a run's reported best (`bestId`: the confirmed best of a `--confirm-top` run; by default the
 * highest selection score, the earliest on a tie) and of variant 0.
 */
export function heldOutOf(
  variants: readonly FiguresVariant[],
  bestId?: number,
): {
  best: number | null;
  initial: number | null;
} {
  let best: FiguresVariant | undefined = variants.find((v) => v.id === bestId);
  if (best === undefined)
    for (const v of variants) if (v.score !== null && (best === undefined || v.score > best.score!)) best = v;
  const initial = variants.find((v) => v.id === 0);
  return {
    best: best === undefined ? null : testScore(best.scores),
    initial: initial === undefined ? null : testScore(initial.scores),
  };
}

/**
 * A stored run's figures: scores and evaluated tasks per generation. Test-split tasks do not count: they
 * measure the run (see heldOut), they are not what its search spent. A task counts once per run and
 * task code: a child whose task code is unchanged reuses its parent's results, which costs nothing,
 * while a result another run put in the shared evaluation cache still counts, as this run needed it.
 * Null for an empty archive.
 */
export function runFigures(source: FiguresSource): RunFigures | null {
  const run = source.run();
  if (run === null) return null;
  const variants = source.variants();
  const length = Math.max(0, ...variants.map((v) => v.generation + 1));
  const scores: (number | null)[] = Array.from({ length }, () => null);
  const tasks: number[] = Array.from({ length }, () => 0);
  const seen = new Set<string>();
  for (const v of [...variants].sort((a, b) => a.generation - b.generation)) {
    scores[v.generation] = v.score;
    for (const t of source.taskResults(v.id)) {
      if (t.split === 'test') continue;
      const key = [t.codeHash, t.domain, t.split, t.taskId].join('\u0000');
      if (seen.has(key)) continue;
      seen.add(key);
      tasks[v.generation]! += 1;
    }
  }
  return {
    id: run.id,
    seed: run.seed,
    scores,
    tasksByGeneration: tasks,
    costUsd: run.costUsd,
    heldOut: { ...heldOutOf(variants, run.best?.id), reported: run.best?.score ?? null },
    withinNoise: gainWithinNoise(source.noiseFloor?.() ?? null, variants, run.best?.id),
    ...(source.taskOutcomes === undefined
      ? {}
      : { regressions: regressionsOf(variants, source.taskOutcomes()) }),
  };
}

/** The run's regression rate, as `archive regressions` gives it. */
function regressionsOf(variants: readonly FiguresVariant[], outcomes: readonly TaskOutcomeRow[]) {
  const lineage = variants.map((v) => ({ id: v.id, parent: v.parent ?? null }));
  return summarizeRegressions(variantRegressions(lineage, outcomes));
}

/** Whether the best's raw gain over variant 0 is below the floor's spread, as `archive show` says it. */
function gainWithinNoise(
  floor: { spread: number } | null,
  variants: readonly FiguresVariant[],
  bestId: number | undefined,
): boolean | null {
  const best = variants.find((v) => v.id === bestId);
  const initial = variants.find((v) => v.id === 0);
  if (floor === null || best === undefined || best.id === 0 || best.score === null || initial?.score == null)
    return null;
  const gain = best.score - initial.score;
  return gain > 0 ? gain < floor.spread : null;
}
