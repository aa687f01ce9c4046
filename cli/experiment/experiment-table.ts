import type { ExperimentSummary } from '../../archive/index.ts';
import { median } from '../../archive/index.ts';
import { fmtScore, fmtUsd, renderTable } from '../shared/text-table.ts';

const fmtP = (p: number | null): string => (p === null ? '-' : p < 0.0001 ? '<0.0001' : p.toFixed(4));
const fmtDelta = (d: number | null): string => (d === null ? '-' : `${d >= 0 ? '+' : ''}${d.toFixed(3)}`);
const fmtCount = (n: number | null): string => (n === null ? '-' : String(Math.round(n)));

/** The experiment's comparison as two plain-text tables. Pure. */
export function renderExperiment(summary: ExperimentSummary, target?: number): string {
  const parts = [configTable(summary, target)];
  const comparisons = comparisonTable(summary);
  if (comparisons !== null) parts.push('', comparisons);
  parts.push('', legend(summary, target));
  return parts.join('\n');
}

/** One row per configuration: its runs' best scores, areas, tasks, cost and held-out figures. */
function configTable(summary: ExperimentSummary, target: number | undefined): string {
  const withTarget = target !== undefined;
  const header = [
    'CONFIG',
    'RUNS',
    'MEDIAN BEST',
    '95% CI',
    'AUC MEDIAN',
    'TASKS MEDIAN',
    ...(withTarget ? [`TASKS TO ${target} MEDIAN (reached)`] : []),
    'COST',
    'HELD-OUT MEDIAN',
    'VAL − TEST',
    'WITHIN NOISE',
    'FLAGGED',
    'REGRESSIONS',
    'BEST PER RUN',
    'HELD-OUT PER RUN',
  ];
  const rows = summary.configs.map((c) => {
    const reached = (c.tasksToTarget ?? []).filter((t): t is number => t !== null);
    return [
      c.baseline === undefined ? c.name : `${c.name} (${c.baseline})`,
      String(c.runs.length),
      fmtScore(c.medianBest),
      c.ci95 === null ? '-' : `[${fmtScore(c.ci95[0])}, ${fmtScore(c.ci95[1])}]`,
      fmtScore(c.aucMedian),
      fmtCount(median(c.tasksEvaluated)),
      ...(withTarget ? [`${fmtCount(median(reached))} (${reached.length}/${c.runs.length})`] : []),
      fmtUsd(c.costUsd.reduce((s, x) => s + x, 0)),
      fmtDelta(c.heldOutGain),
      c.overestimateMean === null
        ? '-'
        : `${fmtDelta(c.overestimateMean)} (median ${fmtDelta(c.overestimateMedian)})`,
      withinNoiseText(c.withinNoise),
      String((c.flags ?? []).reduce((s, x) => s + x, 0)),
      regressionText(c.regressions),
      c.best.map(fmtScore).join(' '),
      c.heldOut.map(fmtDelta).join(' '),
    ];
  });
  return renderTable(header, rows);
}

/** One row per pair of configurations compared, with its p-values; null when there is none. */
function comparisonTable(summary: ExperimentSummary): string | null {
  const tests = summary.comparisons.map((t) => [
    `${t.a} > ${t.b}`,
    fmtDelta(t.deltaMedianBest),
    fmtP(t.pValue),
    fmtDelta(t.deltaAucMedian),
    fmtP(t.pValueAuc),
    `${fmtP(t.pValueMannWhitney)} / ${fmtP(t.pValueAucMannWhitney)}`,
    t.test,
  ]);
  if (tests.length === 0) return null;
  return renderTable(
    ['COMPARISON', 'Δ MEDIAN BEST', 'p', 'Δ AUC MEDIAN', 'p (AUC)', 'MANN-WHITNEY p (BEST / AUC)', 'TEST'],
    tests,
  );
}

/** What each column means. */
function legend(summary: ExperimentSummary, target: number | undefined): string {
  const withTarget = target !== undefined;
  return (
    'Best: the highest selection score of a run. AUC: the mean of its best-so-far curve over generations. ' +
    "Held-out: the best's test-split score minus variant 0's (a gain that does not transfer is near 0). " +
    "Val − test: the best's reported validation score minus its test score (the winner's curse). " +
    'Within noise: runs whose best gains less over variant 0 than its --noise-floor spread, of those with one. ' +
    'Regressions: the tasks children broke (their parent passed, they fail) over the tasks their parents passed, ' +
    'pooled over the runs, and (children with one or more / children compared); per run: hyperagents archive regressions RUN. ' +
    "Flagged: the runs' variants with a sign of reward hacking, such as answers caught tampering with the grader (hyperagents archive show lists them; never selected on). " +
    (summary.configs.some((c) => c.baseline !== undefined)
      ? 'best-of-k: attempts of variant 0 alone for the spend of the reference run of the same seed, ' +
        'one per "generation". '
      : '') +
    'p: one-sided, is the first configuration higher? (paired by seed where both have the seed)' +
    (withTarget
      ? ` Tasks to ${target}: evaluated tasks until a run's best first reached it, over the runs that did.`
      : '')
  );
}

/** "3.4% (12/38)": regressed of parent-passed tasks, and children that broke any of children compared. */
function regressionText(r: ExperimentSummary['configs'][number]['regressions']): string {
  if (r.rate === null) return '-';
  return `${(100 * r.rate).toFixed(1)}% (${r.withRegression}/${r.children})`;
}

/** "2/5": runs whose best gain lies within their noise floor, of the runs that measured one; "-" for none. */
function withinNoiseText(marks: readonly (boolean | null)[]): string {
  const measured = marks.filter((m): m is boolean => m !== null);
  return measured.length === 0 ? '-' : `${measured.filter(Boolean).length}/${measured.length}`;
}
