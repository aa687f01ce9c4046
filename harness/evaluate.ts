import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import type { Archive, TaskResultInput } from '../archive/archive.ts';
import type { EvalCache } from '../archive/eval-cache.ts';
import { type Domain, type Split, selectionSplit, type Task } from '../domains/define-domain.ts';
import type { GradeContext } from '../domains/grade-context.ts';
import { resultCacheIdentity } from '../llm/registry.ts';
import { type Graded, gradeOutput, tally } from './grading.ts';
import type { TaskPool } from './task-workers.ts';

export type Stage = 'staged' | 'full';

export interface DomainTasks {
  domain: Domain;
  /** Tasks per split, already cut to `--eval-samples`. */
  splits: Partial<Record<Split, Task[]>>;
}

export interface EvaluationTarget {
  archive: Archive;
  cache: EvalCache;
  pool: TaskPool;
  variantId: number;
  codeHash: string;
  taskModel: string;
  seed: number;
  /** Whether model replies may be cached (false for scripted runs, whose replies depend on call order). */
  cacheable: boolean;
  concurrency: number;
  /** Shared with other evaluations under way, so that together they run and grade at most `concurrency` tasks. */
  limit?: <T>(run: () => Promise<T>) => Promise<T>;
  /** Once aborted (the run was interrupted), results are not stored: their workers were stopped. */
  signal?: AbortSignal;
  /** Runs graders' commands in the sandbox. */
  grading: GradeContext;
  onTask?: (done: number, total: number) => void;
}

/** Splits a stage evaluates: staged looks at train and the selection split; full adds test on request. */
export function stageSplits(domain: Domain, stage: Stage, evalTest: boolean): Split[] {
  const wanted: Split[] = stage === 'staged' ? ['train', selectionSplit(domain)] : ['train', 'val'];
  if (stage === 'full' && evalTest) wanted.push('test');
  return [...new Set(wanted)].filter((s) => domain.splits.includes(s));
}

export function stageTasks(tasks: readonly Task[], domain: Domain, stage: Stage): Task[] {
  return stage === 'staged' ? tasks.slice(0, domain.stagedSamples) : [...tasks];
}

/** How many tasks `stage` evaluates over `domains`, so no more workers are started than a stage can use. */
export function stageSize(domains: readonly DomainTasks[], stage: Stage, evalTest: boolean): number {
  let tasks = 0;
  for (const { domain, splits } of domains) {
    for (const split of stageSplits(domain, stage, evalTest))
      tasks += stageTasks(splits[split] ?? [], domain, stage).length;
  }
  return tasks;
}

/**
 * Evaluates one stage of a variant on every domain and records task results and one evaluation row per
 * (domain, split). Tasks this variant already has results for (the staged ones, in the full stage) and
 * tasks cached under the same TaskAgent code are not run again. Returns the score per domain of the
 * selection split.
 */
export async function evaluateStage(
  target: EvaluationTarget,
  domains: readonly DomainTasks[],
  stage: Stage,
  evalTest: boolean,
): Promise<Map<string, number>> {
  const jobs: { domain: Domain; split: Split; task: Task }[] = [];
  for (const { domain, splits } of domains) {
    for (const split of stageSplits(domain, stage, evalTest)) {
      for (const task of stageTasks(splits[split] ?? [], domain, stage)) jobs.push({ domain, split, task });
    }
  }
  const existing = new Set(
    target.archive
      .listTaskResults(target.variantId)
      .map((r) => `${r.domain}\u0000${r.split}\u0000${r.task_id}`),
  );
  const own = pLimit(target.concurrency);
  const limit = target.limit ?? (<T>(run: () => Promise<T>) => own(run));
  const grade: Grade = (domain, task, output) => gradeOutput(domain, task, output, target.grading);
  let done = 0;
  // Each result is stored as it arrives, so a run killed mid-stage never pays for a finished task again.
  await Promise.all(
    jobs
      .filter((j) => !existing.has(`${j.domain.name}\u0000${j.split}\u0000${j.task.id}`))
      .map((job) =>
        limit(async () => {
          if (target.signal?.aborted) return;
          const result = await evaluateTask(target, grade, job.domain, job.split, job.task);
          if (target.signal?.aborted) return;
          target.archive.putTaskResults([result]);
          target.onTask?.(++done, jobs.length - existing.size);
        }),
      ),
  );

  const selection = new Map<string, number>();
  for (const { domain, splits } of domains) {
    for (const split of stageSplits(domain, stage, evalTest)) {
      const ids = new Set(stageTasks(splits[split] ?? [], domain, stage).map((t) => t.id));
      const rows = target.archive
        .listTaskResults(target.variantId, { domain: domain.name, split })
        .filter((r) => ids.has(r.task_id));
      const t = tally(rows);
      target.archive.putEvaluation({
        variant_id: target.variantId,
        domain: domain.name,
        split,
        stage,
        score: t.score,
        n_tasks: t.n,
        n_total: (splits[split] ?? []).length,
        correct: t.correct,
        wrong: t.wrong,
        parse_failures: t.parseFailures,
        errors: t.errors,
      });
      if (split === selectionSplit(domain)) selection.set(domain.name, t.score);
    }
  }
  return selection;
}

/** Hash of what a task asks and expects: a changed task (or another file's task with the same id) misses the cache. */
export function taskContentHash(task: Task): string {
  return createHash('sha256')
    .update(JSON.stringify([task.input, task.answer]) ?? '')
    .digest('hex')
    .slice(0, 16);
}

type Grade = (domain: Domain, task: Task, output: string) => Promise<Graded>;

async function evaluateTask(
  target: EvaluationTarget,
  grade: Grade,
  domain: Domain,
  split: Split,
  task: Task,
): Promise<TaskResultInput> {
  const key = {
    codeHash: target.codeHash,
    domain: domain.name,
    split,
    taskId: task.id,
    taskHash: taskContentHash(task),
    graderVersion: domain.graderVersion,
    taskModel: resultCacheIdentity(target.taskModel),
    seed: target.seed,
  };
  const base = {
    variantId: target.variantId,
    domain: domain.name,
    split,
    taskId: task.id,
    codeHash: target.codeHash,
    taskModel: target.taskModel,
  };
  const cached = target.cacheable ? target.cache.get(key) : undefined;
  if (cached !== undefined) {
    // Graded again: the cache keeps what the model said, and grading is the harness's, which may change.
    const graded = await grade(domain, task, cached.rawOutput);
    return { ...base, ...cached, ...graded, reused: true };
  }

  const reply = await target.pool.run({
    id: task.id,
    domain: domain.name,
    input: task.input,
    ...(domain.formatHint === undefined ? {} : { formatHint: domain.formatHint }),
  });
  if (reply.kind === 'infra') {
    return {
      ...base,
      outcome: 'error',
      prediction: undefined,
      rawOutput: '',
      score: 0,
      error: `infrastructure: ${reply.reason}`,
      detail: null,
      latencyMs: reply.latencyMs,
      costUsd: 0,
      reused: false,
    };
  }
  const graded =
    reply.error !== null
      ? { outcome: 'error' as const, prediction: undefined, score: 0, error: reply.error, detail: null }
      : (reply.graded ?? (await grade(domain, task, reply.output)));
  const result = { ...graded, rawOutput: reply.output, latencyMs: reply.latencyMs, costUsd: 0 };
  if (target.cacheable && reply.error === null) target.cache.put(key, result);
  return { ...base, ...result, reused: false };
}
