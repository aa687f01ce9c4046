import {
  type RegressionSummary,
  summarizeRegressions,
  type TaskChange,
  type VariantRegressions,
  variantRegressions,
} from '../../archive/index.ts';
import { renderTable } from '../shared/text-table.ts';
import { UsageError } from '../shared/usage-error.ts';
import { out, printJson } from './archive-output.ts';
import type { OpenedRun } from './archive-refs.ts';

export const REGRESSIONS_HELP = `Each variant against its parent, on the tasks both were graded
on (same domain, split, task id and attempt): "regressed" lists the tasks
the parent passed and the child fails, "fixed" the reverse. A task passed
when at least half of its attempts were correct (pass@1 >= 0.5): with one
attempt, when it was correct; with --eval-repeats N, attempts pair up by
number and only those both variants have count. A regression marked *
(rebroken in --json) undoes a fix an ancestor made on the same lineage. A
variant evaluated on a staged sample only is compared on the tasks it
shares with its parent, and the output says on how many.`;

/** `archive regressions RUN`: what every child broke and fixed against its parent. Returns the exit code. */
export function showRegressions(
  run: OpenedRun,
  filter: { domain?: string | undefined; split?: string | undefined },
  json: boolean,
): number {
  const domains = run.reader.run()?.domains ?? [];
  if (filter.domain !== undefined && !domains.includes(filter.domain)) {
    throw new UsageError(
      `--domain ${filter.domain}: run ${run.id} has no such domain (it has ${domains.join(', ') || 'none'}).`,
    );
  }
  const variants = run.reader.variants();
  const outcomes = run.reader
    .taskOutcomes()
    .filter(
      (r) =>
        (filter.domain === undefined || r.domain === filter.domain) &&
        (filter.split === undefined || r.split === filter.split),
    );
  const rows = variantRegressions(variants, outcomes);
  if (json) printJson(rows);
  else
    out(
      nothingToCompare(run.id, variants.length, rows) ??
        regressionsText(rows, summarizeRegressions(rows), domains.length > 1),
    );
  return 0;
}

/** Why there is nothing to show, or null when there is. */
function nothingToCompare(
  runId: string,
  variants: number,
  rows: readonly VariantRegressions[],
): string | null {
  if (variants === 0) return `Run ${runId} has no variants yet: it has not evaluated its initial agent.`;
  if (rows.length === 0) {
    return (
      `Run ${runId} has no child with task results yet (${variants} variant${variants === 1 ? '' : 's'} in all): ` +
      'regressions compare a child with its parent, once both were evaluated.'
    );
  }
  return null;
}

/** A task as the text names it: its id, with its domain when the run has several. */
const taskName = (c: TaskChange, withDomain: boolean): string =>
  `${withDomain ? `${c.domain}:` : ''}${c.taskId}${c.fixedBy === undefined ? '' : '*'}`;

const percent = (n: number, of: number): string => (of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`);

/** The table of counts, each child's tasks, the staged notes and the summary line. */
export function regressionsText(
  rows: readonly VariantRegressions[],
  summary: RegressionSummary,
  withDomain: boolean,
): string {
  const table = renderTable(
    ['variant', 'parent', 'compared', 'parent passed', 'regressed', 'fixed', 'rebroken'],
    rows.map((r) => [
      String(r.variant),
      String(r.parent),
      r.childOnly + r.parentOnly > 0
        ? `${r.shared} (of ${r.shared + Math.max(r.childOnly, r.parentOnly)})`
        : String(r.shared),
      String(r.parentPassed),
      String(r.regressed.length),
      String(r.fixed.length),
      String(r.rebroken.length),
    ]),
  );
  const lines = [table, ''];
  for (const r of rows) {
    if (r.changes.length === 0) continue;
    const names = (change: TaskChange['change']) =>
      r.changes.filter((c) => c.change === change).map((c) => taskName(c, withDomain));
    const parts = [
      r.regressed.length > 0 ? `regressed ${names('regressed').join(', ')}` : '',
      r.fixed.length > 0 ? `fixed ${names('fixed').join(', ')}` : '',
    ].filter(Boolean);
    lines.push(`variant ${r.variant} (parent ${r.parent}): ${parts.join('; ')}`);
  }
  if (rows.some((r) => r.rebroken.length > 0))
    lines.push(
      '* rebroken: an ancestor on this lineage had fixed the task, and this variant broke it again.',
    );
  for (const r of rows) {
    const note = partialNote(r);
    if (note !== null) lines.push(note);
  }
  lines.push('', summaryLine(summary));
  return lines.join('\n').replace(/\n\n\n+/g, '\n\n');
}

/** What a child and its parent were not both graded on (a staged sample on one side), or null. */
function partialNote(r: VariantRegressions): string | null {
  const [child, parent] = [r.shared + r.childOnly, r.shared + r.parentOnly];
  const v = `variant ${r.variant}`;
  if (r.shared === 0) return `${v}: no task in common with its parent ${r.parent}, not compared.`;
  if (r.parentOnly > 0 && r.childOnly === 0)
    return `${v}: evaluated on part of its parent's tasks (a staged sample): compared on the ${r.shared} of ${parent} both were graded on.`;
  if (r.childOnly > 0 && r.parentOnly === 0)
    return `${v}: its parent ${r.parent} was evaluated on part of its tasks (a staged sample): compared on the ${r.shared} of ${child} both were graded on.`;
  if (r.childOnly > 0)
    return `${v} (${child} tasks) and its parent ${r.parent} (${parent}) were graded on different tasks: compared on the ${r.shared} both were graded on.`;
  return null;
}

/** The run's regression rate in one line. */
export function summaryLine(s: RegressionSummary): string {
  return (
    `Regression rate: ${s.withRegression} of ${s.children} children (${percent(s.withRegression, s.children)}) ` +
    `broke at least one task; ${s.regressed} regressed of ${s.parentPassed} tasks their parents passed ` +
    `(${percent(s.regressed, s.parentPassed)}); ${s.fixed} fixed; ${s.rebroken} rebroken.`
  );
}
