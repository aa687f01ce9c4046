import type { TaskOutcomeRow } from './task-results.ts';

/**
 * Per-task regressions: each variant against its parent on the tasks both were graded on. Parent and child
 * are graded on the same tasks, so a task both pass or both fail says nothing; the tasks that changed are
 * the ones to look at: `regressed` (the parent passed, the child fails) and `fixed` (the reverse). Pure.
 *
 * A task's attempts pair up by number (`--eval-repeats`, and the fresh attempts `--confirm-top` adds to the
 * best): only the attempts both variants have count, and a variant passed a task when at least half of
 * those attempts were correct (pass@1 ≥ 0.5; with one attempt, that attempt was correct).
 */

export interface LineageVariant {
  id: number;
  parent: number | null;
}

/** A task of a run: its id is unique within its domain and split, not across them. */
export interface TaskRef {
  domain: string;
  split: string;
  taskId: string;
}

export interface TaskChange extends TaskRef {
  change: 'regressed' | 'fixed';
  /**
   * For a regression: the nearest ancestor (on this variant's lineage) that had fixed the task against its
   * own parent, so this break undoes a fix; absent otherwise.
   */
  fixedBy?: number;
}

export interface VariantRegressions {
  variant: number;
  parent: number;
  /** Task ids the parent passed and the child fails, in task order. */
  regressed: string[];
  /** Task ids the parent failed and the child passes. */
  fixed: string[];
  /** The regressed task ids that an ancestor had fixed earlier on the lineage (fixed, then broken again). */
  rebroken: string[];
  /** Tasks both were graded on (the only ones compared). */
  shared: number;
  /** Of the shared tasks, how many the parent passed. */
  parentPassed: number;
  /** Tasks graded for one of the two only (a staged sample against a full evaluation): not compared. */
  childOnly: number;
  parentOnly: number;
  /** The regressed and fixed tasks with their domain and split, in task order. */
  changes: TaskChange[];
}

export interface RegressionSummary {
  /** Children compared with their parent on at least one shared task. */
  children: number;
  /** Of those, how many regressed on at least one task. */
  withRegression: number;
  regressed: number;
  fixed: number;
  rebroken: number;
  /** Shared tasks the parents passed, summed over the children. */
  parentPassed: number;
  /** regressed / parentPassed: the share of what parents could do that their children broke; null if none. */
  rate: number | null;
}

const SEP = '\u0000';
const keyOf = (t: TaskRef): string => [t.domain, t.split, t.taskId].join(SEP);
const refOf = (key: string): TaskRef => {
  const [domain = '', split = '', taskId = ''] = key.split(SEP);
  return { domain, split, taskId };
};

/** variant → task key → attempt → correct. */
type Graded = Map<number, Map<string, Map<number, boolean>>>;

function gradedOf(rows: readonly TaskOutcomeRow[]): Graded {
  const graded: Graded = new Map();
  for (const r of rows) {
    const tasks = graded.get(r.variantId) ?? new Map<string, Map<number, boolean>>();
    graded.set(r.variantId, tasks);
    const key = keyOf(r);
    const attempts = tasks.get(key) ?? new Map<number, boolean>();
    tasks.set(key, attempts);
    attempts.set(r.attempt, r.outcome === 'correct');
  }
  return graded;
}

/** Whether attempts passed: at least half correct (pass@1 ≥ 0.5). */
export function passedAttempts(correct: readonly boolean[]): boolean {
  return correct.length > 0 && 2 * correct.filter(Boolean).length >= correct.length;
}

/** Parent's and child's verdicts on a task over the attempts both have; null when they share none. */
function pairedVerdicts(
  parent: ReadonlyMap<number, boolean>,
  child: ReadonlyMap<number, boolean>,
): { parent: boolean; child: boolean } | null {
  const shared = [...child.keys()].filter((a) => parent.has(a));
  if (shared.length === 0) return null;
  return {
    parent: passedAttempts(shared.map((a) => parent.get(a)!)),
    child: passedAttempts(shared.map((a) => child.get(a)!)),
  };
}

const collator = new Intl.Collator('en', { numeric: true });
/** Tasks in reading order: by domain, split and id, numbers in ids by value (val-2 before val-10). */
export const byTask = (a: string, b: string): number => {
  const [x, y] = [a.split(SEP), b.split(SEP)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const order = collator.compare(x[i] ?? '', y[i] ?? '');
    if (order !== 0) return order;
  }
  return 0;
};

/** One child against its parent, without the lineage's history (`rebroken` left empty). */
function compare(
  variant: number,
  parent: number,
  childTasks: ReadonlyMap<string, ReadonlyMap<number, boolean>>,
  parentTasks: ReadonlyMap<string, ReadonlyMap<number, boolean>>,
): VariantRegressions {
  const result: VariantRegressions = {
    variant,
    parent,
    regressed: [],
    fixed: [],
    rebroken: [],
    shared: 0,
    parentPassed: 0,
    childOnly: 0,
    parentOnly: [...parentTasks.keys()].filter((k) => !childTasks.has(k)).length,
    changes: [],
  };
  for (const key of [...childTasks.keys()].sort(byTask)) {
    const theirs = parentTasks.get(key);
    const verdicts = theirs === undefined ? null : pairedVerdicts(theirs, childTasks.get(key)!);
    if (verdicts === null) {
      result.childOnly += 1;
      continue;
    }
    result.shared += 1;
    if (verdicts.parent) result.parentPassed += 1;
    if (verdicts.parent === verdicts.child) continue;
    const ref = refOf(key);
    if (verdicts.parent) result.regressed.push(ref.taskId);
    else result.fixed.push(ref.taskId);
    result.changes.push({ ...ref, change: verdicts.parent ? 'regressed' : 'fixed' });
  }
  return result;
}

/**
 * Variants in lineage order: a depth-first walk from each root (variant 0 first), children by id, so a parent
 * comes before its children and each lineage is contiguous. A variant whose parent is not in the list is a
 * root. Pure.
 */
export function lineageOrder<T extends LineageVariant>(variants: readonly T[]): T[] {
  const ids = new Set(variants.map((v) => v.id));
  const children = new Map<number | null, T[]>();
  for (const v of [...variants].sort((a, b) => a.id - b.id)) {
    const parent = v.parent !== null && ids.has(v.parent) && v.parent !== v.id ? v.parent : null;
    children.set(parent, [...(children.get(parent) ?? []), v]);
  }
  const order: T[] = [];
  const seen = new Set<number>();
  const stack = [...(children.get(null) ?? [])].reverse();
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (seen.has(v.id)) continue;
    seen.add(v.id);
    order.push(v);
    stack.push(...[...(children.get(v.id) ?? [])].reverse());
  }
  return order;
}

/**
 * Every variant that has a parent and task results, against that parent, in lineage order. A regression is
 * `rebroken` when an ancestor on the variant's lineage had fixed the same task against its own parent
 * (fixed, then broken again; or broken, fixed, broken).
 */
export function variantRegressions(
  variants: readonly LineageVariant[],
  results: readonly TaskOutcomeRow[],
): VariantRegressions[] {
  const graded = gradedOf(results);
  const byId = new Map(variants.map((v) => [v.id, v]));
  /** variant → task key → the latest variant on its lineage (itself included) that fixed the task. */
  const lastFix = new Map<number, Map<string, number>>();
  const out: VariantRegressions[] = [];
  for (const v of lineageOrder(variants)) {
    const inherited = v.parent === null ? undefined : lastFix.get(v.parent);
    const fixes = new Map(inherited ?? []);
    lastFix.set(v.id, fixes);
    const childTasks = graded.get(v.id);
    if (v.parent === null || !byId.has(v.parent) || childTasks === undefined) continue;
    const row = compare(v.id, v.parent, childTasks, graded.get(v.parent) ?? new Map());
    for (const change of row.changes) {
      const key = keyOf(change);
      if (change.change === 'fixed') {
        fixes.set(key, v.id);
        continue;
      }
      const fixedBy = inherited?.get(key);
      if (fixedBy === undefined) continue;
      change.fixedBy = fixedBy;
      row.rebroken.push(change.taskId);
      fixes.delete(key);
    }
    out.push(row);
  }
  return out;
}

/** The run's regression rate: children with a regression, and regressed tasks over tasks the parents passed. */
export function summarizeRegressions(rows: readonly VariantRegressions[]): RegressionSummary {
  const compared = rows.filter((r) => r.shared > 0);
  const sum = (f: (r: VariantRegressions) => number) => compared.reduce((s, r) => s + f(r), 0);
  const regressed = sum((r) => r.regressed.length);
  const parentPassed = sum((r) => r.parentPassed);
  return {
    children: compared.length,
    withRegression: compared.filter((r) => r.regressed.length > 0).length,
    regressed,
    fixed: sum((r) => r.fixed.length),
    rebroken: sum((r) => r.rebroken.length),
    parentPassed,
    rate: parentPassed === 0 ? null : regressed / parentPassed,
  };
}
