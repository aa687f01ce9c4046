import {
  byTask,
  type LineageVariant,
  lineageOrder,
  passedAttempts,
  type RegressionSummary,
  summarizeRegressions,
  type TaskRef,
  variantRegressions,
} from './regressions.ts';
import type { TaskOutcomeRow } from './task-results.ts';

/**
 * The run's task × variant grid, as the run's page shows it: one column per graded variant in lineage order
 * (parent before child), one row per task. A cell is one character, so that 225 tasks × 50 variants stay
 * small to send:
 * - `.` not graded; `p` passed; `f` failed (over all the variant's attempts: at least half correct passes);
 * - `R` regressed: fails where its parent passed; `B` the same, on a task an ancestor had fixed (rebroken);
 * - `F` fixed: passes where its parent failed.
 * A change is decided as `archive regressions` decides it, on the attempts both have.
 */
export interface RegressionGrid {
  variants: { id: number; parent: number | null; depth: number }[];
  tasks: TaskRef[];
  /** One string per task, aligned with `tasks`; character i is the cell of `variants[i]`. */
  cells: string[];
  summary: RegressionSummary;
}

export const GRID_CELLS = {
  notGraded: '.',
  passed: 'p',
  failed: 'f',
  regressed: 'R',
  rebroken: 'B',
  fixed: 'F',
} as const;

const SEP = '\u0000';
const keyOf = (t: TaskRef): string => [t.domain, t.split, t.taskId].join(SEP);

/** The grid of a run's variants and task results. Pure. */
export function regressionGrid(
  variants: readonly LineageVariant[],
  results: readonly TaskOutcomeRow[],
): RegressionGrid {
  const attempts = new Map<string, boolean[]>();
  const tasks = new Map<string, TaskRef>();
  const graded = new Set<number>();
  for (const r of results) {
    const key = keyOf(r);
    tasks.set(key, { domain: r.domain, split: r.split, taskId: r.taskId });
    graded.add(r.variantId);
    const cell = `${r.variantId}${SEP}${key}`;
    attempts.set(cell, [...(attempts.get(cell) ?? []), r.outcome === 'correct']);
  }
  const order = lineageOrder(variants);
  const depth = new Map<number, number>();
  for (const v of order) depth.set(v.id, v.parent === null ? 0 : (depth.get(v.parent) ?? -1) + 1);
  const columns = order.filter((v) => graded.has(v.id));
  const rows = variantRegressions(variants, results);
  const marks = new Map<string, string>();
  for (const row of rows) {
    for (const c of row.changes) {
      const mark =
        c.change === 'fixed'
          ? GRID_CELLS.fixed
          : c.fixedBy === undefined
            ? GRID_CELLS.regressed
            : GRID_CELLS.rebroken;
      marks.set(`${row.variant}${SEP}${keyOf(c)}`, mark);
    }
  }
  const keys = [...tasks.keys()].sort(byTask);
  const cells = keys.map((key) =>
    columns
      .map((v) => {
        const cell = `${v.id}${SEP}${key}`;
        const mark = marks.get(cell);
        if (mark !== undefined) return mark;
        const tries = attempts.get(cell);
        if (tries === undefined) return GRID_CELLS.notGraded;
        return passedAttempts(tries) ? GRID_CELLS.passed : GRID_CELLS.failed;
      })
      .join(''),
  );
  return {
    variants: columns.map((v) => ({ id: v.id, parent: v.parent, depth: depth.get(v.id) ?? 0 })),
    tasks: keys.map((k) => tasks.get(k)!),
    cells,
    summary: summarizeRegressions(rows),
  };
}
