/**
 * The comparison of runs in two groups, A and B: which runs are in each, which are left out (stopped or
 * short), the median best-so-far per generation with its interval, and a rank test in a chosen direction.
 * Pure: the server and the report give it the runs' pages.
 */

import type { RunView, VariantView } from '../archive/index.ts';
import {
  type Alternative,
  bestSoFar,
  bootstrapMedianCI,
  curveArea,
  type ExperimentSummary,
  type Interval,
  mannWhitneyU,
  type RankTest,
  type RunFigures,
  smallestRankP,
  summarizeExperiment,
} from '../archive/index.ts';
import type { RunHealth } from './health.ts';

/** The test's direction: A's final scores higher than B's, B's higher than A's, or different either way. */
export const DIRECTIONS = ['a-better', 'b-better', 'two-sided'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Below this many runs in a group, the page warns that the groups are too small to separate. */
export const SMALL_GROUP = 5;

export interface CompareChoice {
  /** Run ids of group A and B; both absent: by configuration (the first two, by label). */
  a?: readonly string[];
  b?: readonly string[];
  /** Keep stopped and short runs in their group (left out by default). */
  includeShort?: boolean;
  direction?: Direction;
}

export interface ComparedRun {
  id: string;
  seed: number;
  /** Its configuration (see conditionOf). */
  condition: string;
  group: 'A' | 'B' | null;
  generations: number;
  state: RunView['state'];
  /** Why it may not be comparable (stopped, or fewer generations than others in its group); null if not. */
  flag: string | null;
  /** Counted in its group's figures. */
  included: boolean;
  curve: (number | null)[];
  final: number | null;
  area: number | null;
}

export interface ComparedGroup {
  name: 'A' | 'B';
  /** The configurations of its runs. */
  label: string;
  /** The runs counted (included), by id. */
  runs: string[];
  /** Per generation: median of the counted runs' best-so-far (a shorter run's last value carried) and its 95% interval. */
  median: (Interval | null)[];
}

export interface RunComparison {
  runs: ComparedRun[];
  groups: [ComparedGroup, ComparedGroup];
  choice: { a: string[]; b: string[]; includeShort: boolean; direction: Direction; byConfiguration: boolean };
  /** Mann–Whitney U on the final scores of the counted runs, in the chosen direction; null if a group is empty. */
  test: RankTest | null;
  /** The smallest p the test can give with these group sizes: what it can tell at best. */
  smallestP: number;
  /**
   * The figures `hyperagents experiment` prints, over groups A and B (one-sided, the chosen direction, A
   * first for a two-sided test): present when every counted run came with its figures.
   */
  summary: ExperimentSummary | null;
}

type ComparedInput = {
  run: RunView;
  variants: readonly VariantView[];
  health?: Pick<RunHealth, 'why'>;
  figures?: RunFigures | null;
};

/** What tells a run's condition apart from another's (seed and id aside): the label runs are grouped by. */
export function conditionOf(run: RunView): string {
  const config = (typeof run.config === 'object' && run.config !== null ? run.config : {}) as Record<
    string,
    unknown
  >;
  const parts = [run.model, run.domains.join('+')];
  if (typeof config.parentSelection === 'string') parts.push(config.parentSelection);
  if (config.freezeMeta === true) parts.push('freeze-meta');
  if (config.skipStagedEval === true) parts.push('skip-staged-eval');
  return parts.join(' · ');
}

/** Scores per generation of a run (index = generation), null where the generation has no score. Pure. */
export function scoresByGeneration(
  variants: readonly Pick<VariantView, 'generation' | 'score'>[],
): (number | null)[] {
  const last = Math.max(-1, ...variants.map((v) => v.generation));
  const scores: (number | null)[] = Array.from({ length: last + 1 }, () => null);
  for (const v of variants) scores[v.generation] = v.score;
  return scores;
}

const ENDED_EARLY = new Set<RunView['state']>(['stopped', 'failed', 'interrupted']);

/** Groups by configuration: the runs of the first configuration (by label) in A, of the second in B. */
function byConfiguration(runs: readonly RunView[]): { a: string[]; b: string[] } {
  const labels = [...new Set(runs.map(conditionOf))].sort();
  const of = (label: string | undefined) =>
    runs.filter((r) => label !== undefined && conditionOf(r) === label).map((r) => r.id);
  return { a: of(labels[0]), b: of(labels[1]) };
}

/**
 * Compares runs in groups A and B (as chosen, or by configuration). A run that ended early (stopped by a
 * control, Ctrl-C or its budget, failed, interrupted) or has fewer generations than the longest of its
 * group is flagged and left out unless `includeShort`. The test compares the final best scores of the
 * counted runs in the chosen direction (two-sided by default).
 */
export function compareRuns(runs: readonly ComparedInput[], choice: CompareChoice = {}): RunComparison {
  const chosen = choice.a !== undefined || choice.b !== undefined;
  const { a, b } = chosen
    ? { a: [...(choice.a ?? [])], b: [...(choice.b ?? [])] }
    : byConfiguration(runs.map((r) => r.run));
  const includeShort = choice.includeShort === true;
  const direction = choice.direction ?? 'two-sided';
  const groupOf = (id: string): 'A' | 'B' | null => (a.includes(id) ? 'A' : b.includes(id) ? 'B' : null);
  const measured = runs.map(({ run, variants, health }) => {
    const curve = bestSoFar(scoresByGeneration(variants));
    return { run, health, curve, group: groupOf(run.id) };
  });
  const longest = (group: 'A' | 'B' | null) =>
    Math.max(0, ...measured.filter((m) => m.group === group).map((m) => m.curve.length));
  const compared: ComparedRun[] = measured.map(({ run, health, curve, group }) => {
    const flag = ENDED_EARLY.has(run.state)
      ? (health?.why ?? `${run.state} before its end`)
      : group !== null && curve.length < longest(group)
        ? `short: ${curve.length} of the ${longest(group)} generations of the longest run in group ${group}`
        : null;
    return {
      id: run.id,
      seed: run.seed,
      condition: conditionOf(run),
      group,
      generations: curve.length,
      state: run.state,
      flag,
      included: group !== null && (flag === null || includeShort),
      curve,
      final: curve.at(-1) ?? null,
      area: curveArea(curve),
    };
  });
  const group = (name: 'A' | 'B'): ComparedGroup => {
    const members = compared.filter((r) => r.group === name && r.included);
    const length = Math.max(0, ...members.map((m) => m.curve.length));
    const median = Array.from({ length }, (_, g) => {
      const values = members
        .map((m) => m.curve[Math.min(g, m.curve.length - 1)])
        .filter((x): x is number => x != null);
      return bootstrapMedianCI(values, { seed: 1 + g });
    });
    const labels = [...new Set(compared.filter((r) => r.group === name).map((r) => r.condition))];
    return { name, label: labels.join(' / ') || 'no runs', runs: members.map((m) => m.id), median };
  };
  const groups: [ComparedGroup, ComparedGroup] = [group('A'), group('B')];
  const finals = (g: ComparedGroup) =>
    g.runs.map((id) => compared.find((r) => r.id === id)!.final).filter((x): x is number => x !== null);
  const alternative: Alternative =
    direction === 'a-better' ? 'greater' : direction === 'b-better' ? 'less' : 'two-sided';
  const [fa, fb] = [finals(groups[0]), finals(groups[1])];
  return {
    runs: compared,
    groups,
    choice: { a, b, includeShort, direction, byConfiguration: !chosen },
    test: mannWhitneyU(fa, fb, alternative),
    smallestP: smallestRankP(fa.length, fb.length, alternative),
    summary: experimentSummary(runs, groups, direction),
  };
}

/** The experiment's figures over the counted runs, the group expected higher first. */
function experimentSummary(
  runs: readonly ComparedInput[],
  groups: readonly ComparedGroup[],
  direction: Direction,
): ExperimentSummary | null {
  const ordered = direction === 'b-better' ? [groups[1]!, groups[0]!] : [groups[0]!, groups[1]!];
  if (ordered.some((g) => g.runs.length === 0)) return null;
  const figures = (g: ComparedGroup) => g.runs.map((id) => runs.find((r) => r.run.id === id)?.figures);
  if (ordered.some((g) => figures(g).some((f) => f == null))) return null;
  return summarizeExperiment(
    ordered.map((g) => ({ name: `${g.name}: ${g.label}`, runs: figures(g) as RunFigures[] })),
  );
}

/**
 * The comparison chosen in a query (`a=ID,ID&b=ID,ID&short=include&test=a-better`), checked against the
 * runs compared: a one-line error saying what to do, or the choice.
 */
export function parseCompareChoice(
  query: (key: string) => string | undefined,
  runIds: readonly string[],
): { ok: true; choice: CompareChoice } | { ok: false; error: string } {
  const list = (key: 'a' | 'b') => {
    const raw = query(key);
    return raw === undefined ? undefined : raw.split(',').filter((s) => s !== '');
  };
  const [a, b] = [list('a'), list('b')];
  for (const [name, ids] of [
    ['A', a],
    ['B', b],
  ] as const) {
    const unknown = (ids ?? []).find((id) => !runIds.includes(id));
    if (unknown !== undefined)
      return {
        ok: false,
        error: `run ${unknown} is in group ${name} but not among the runs compared (runs=${runIds.join(',')}): add it to runs or leave it out of ${name.toLowerCase()}`,
      };
  }
  const both = (a ?? []).find((id) => (b ?? []).includes(id));
  if (both !== undefined) return { ok: false, error: `run ${both} is in both groups: put it in a or in b` };
  const test = query('test');
  if (test !== undefined && !(DIRECTIONS as readonly string[]).includes(test))
    return { ok: false, error: `test must be one of ${DIRECTIONS.join(', ')} (got ${test})` };
  const short = query('short');
  if (short !== undefined && short !== 'include' && short !== 'exclude')
    return { ok: false, error: `short must be include or exclude (got ${short})` };
  return {
    ok: true,
    choice: {
      ...(a === undefined && b === undefined ? {} : { a: a ?? [], b: b ?? [] }),
      includeShort: short === 'include',
      direction: (test as Direction | undefined) ?? 'two-sided',
    },
  };
}
