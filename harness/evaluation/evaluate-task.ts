import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Archive, CachedResult, CacheKey, EvalCache, TaskResultInput } from '../../archive/index.ts';
import type { Domain, GradeContext, Split, Task } from '../../domains/index.ts';
import { resultCacheIdentity } from '../../llm/index.ts';
import type { BatchRounds } from './batch-rounds.ts';
import { type Graded, gradeWorkspace } from './grading.ts';
import type { TaskLimit } from './task-limit.ts';
import { type TaskSettingsRecord, taskSettingsHash } from './task-settings.ts';
import type { TaskPool, TaskRequest, WorkerReply } from './task-workers.ts';
import type { CollectedWorkspace } from './workspace-folders.ts';

/** What one variant's evaluation is made against: where its results go, its workers, and what its tasks run under. */
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
  /** The run's bound on tasks under way (`--eval-workers`), shared with the other evaluations under way. */
  limit: TaskLimit;
  /** Once aborted (the run was interrupted), results are not stored: their workers were stopped. */
  signal?: AbortSignal;
  /** Runs graders' commands in the sandbox. */
  grading: GradeContext;
  /** What every task runs under (the run's TaskSettings): sent with each task, and in the result cache's key. */
  settings: TaskSettingsRecord;
  /**
   * Attempts per task (`--eval-repeats`; default 1). Each is kept as its own result (cached under its own key);
   * a stage's score is the mean over every attempt.
   */
  attempts?: number;
  /** The workers of attempt `attempt` > 0 (a model told which attempt its calls belong to); default `pool`. */
  attemptPool?: (attempt: number) => Promise<TaskPool>;
  onTask?: (done: number, total: number) => void;
  /**
   * With `--batch`: the single-reply tasks' model calls go through batches, in rounds (docs/batch.md); a task
   * whose run stopped at a call waiting for a batch is run again once it is answered.
   */
  batch?: BatchRounds;
}

/** One task of a stage, with where it comes from. */
export interface StageJob {
  domain: Domain;
  split: Split;
  task: Task;
  attempt: number;
}

/**
 * Began the stored error of a task that failed for the infrastructure, when such failures were stored (they
 * no longer are: they are not results); a stored one is run again. An agent's own error never begins with it.
 */
export const INFRA_ERROR = 'infrastructure: ';

/** A TaskAgent's own error as stored: one that reads like the harness's infrastructure failures is marked as its own. */
export function agentError(text: string): string {
  return text.startsWith(INFRA_ERROR) ? `TaskAgent error: ${text}` : text;
}

/** Hash of what a task asks and expects: a changed task (or another file's task with the same id) misses the cache. */
export function taskContentHash(task: Task): string {
  return createHash('sha256')
    .update(
      JSON.stringify(
        task.workspace === undefined ? [task.input, task.answer] : [task.input, task.answer, task.workspace],
      ) ?? '',
    )
    .digest('hex')
    .slice(0, 16);
}

export type Grade = (domain: Domain, task: Task, output: string) => Promise<Graded>;

/** A task's result to store, or the infrastructure failure that left it without one (never stored). */
export type Evaluated =
  | { kind: 'result'; result: TaskResultInput; agentFault?: string }
  | { kind: 'infra'; reason: string }
  /** Its run stopped at a call waiting for the next batch (`--batch`): no result yet, run it again after. */
  | { kind: 'parked' };

/** What a cached result of a workspace task keeps of its final folder, read back. */
function cachedWorkspace(value: unknown): CollectedWorkspace {
  const parsed = z
    .union([
      z.object({
        kind: z.literal('files'),
        files: z.record(z.string(), z.string()),
        skipped: z.array(z.string()),
      }),
      z.object({ kind: z.literal('refused'), reason: z.string() }),
    ])
    .safeParse(value);
  return parsed.success ? parsed.data : { kind: 'refused', reason: 'the cached workspace could not be read' };
}

/** The result cache's key of one task of a stage: what its result depends on (archive/eval-cache.ts). */
function cacheKey(target: EvaluationTarget, { domain, split, task, attempt }: StageJob): CacheKey {
  return {
    codeHash: target.codeHash,
    domain: domain.name,
    split,
    taskId: task.id,
    taskHash: taskContentHash(task),
    graderVersion: domain.graderVersion,
    taskModel: resultCacheIdentity(target.taskModel),
    settingsHash: taskSettingsHash(target.settings),
    seed: target.seed,
    attempt,
  };
}

/** What every result of a task carries: which variant, task and attempt it is of. */
type ResultBase = Pick<
  TaskResultInput,
  'variantId' | 'domain' | 'split' | 'taskId' | 'attempt' | 'codeHash' | 'taskModel'
>;

/**
 * A task's result: reused from the cache when its key is there (graded again), else the TaskAgent's answer,
 * graded and cached. Null when the pool was closed under it: no answer, and nothing to store.
 */
export async function evaluateTask(
  target: EvaluationTarget,
  grade: Grade,
  job: StageJob,
): Promise<Evaluated | null> {
  const { domain, split, task, attempt } = job;
  const key = cacheKey(target, job);
  const base = {
    variantId: target.variantId,
    domain: domain.name,
    split,
    taskId: task.id,
    attempt,
    codeHash: target.codeHash,
    taskModel: target.taskModel,
  };
  const cached = target.cacheable ? target.cache.get(key) : undefined;
  if (cached !== undefined) return reuse(target, grade, job, base, cached);
  const pool = await poolOf(target, attempt);
  // A single-reply task's calls may wait for a batch; a workspace task's (many turns with tools) never do.
  const router = task.workspace === undefined ? target.batch?.router : undefined;
  const batchKey = { variantId: target.variantId, domain: domain.name, taskId: task.id, attempt };
  router?.begin(batchKey);
  const reply = await pool.run(taskRequest(target, job));
  if (router?.parked(batchKey) === true) return { kind: 'parked' };
  router?.end(batchKey);
  if (reply.kind === 'closed') return null;
  // The TaskAgent failed on the task itself, twice: its result, an error that scores 0 (and a stage where
  // every task ends so says why instead of scoring).
  if (reply.kind === 'infra' && reply.agentFault === true) {
    const error = `the TaskAgent failed on this task: ${reply.reason}`;
    const result = { outcome: 'error' as const, prediction: undefined, score: 0, error, detail: null };
    return {
      kind: 'result',
      result: { ...base, ...result, rawOutput: '', latencyMs: reply.latencyMs, costUsd: 0, reused: false },
      agentFault: reply.reason,
    };
  }
  // Not an answer of the agent's: no result to store, and no 0 in a score.
  if (reply.kind === 'infra') return { kind: 'infra', reason: reply.reason };
  return answered(target, grade, job, base, key, reply);
}

/**
 * A cached result graded again: the cache keeps what the model said (and the workspace it left), and
 * grading is the harness's, which may change. No model was called for it: it cost nothing now.
 */
async function reuse(
  target: EvaluationTarget,
  grade: Grade,
  job: StageJob,
  base: ResultBase,
  cached: CachedResult,
): Promise<Evaluated | null> {
  const { domain, task } = job;
  const { workspace: kept, ...record } = cached;
  const graded =
    task.workspace === undefined
      ? await grade(domain, task, cached.rawOutput)
      : await regradeWorkspace(target, job, cachedWorkspace(kept));
  if (graded === null) return null;
  if ('kind' in graded) return graded;
  return {
    kind: 'result',
    result: { ...base, ...record, ...graded, costUsd: 0, inputTokens: 0, outputTokens: 0, reused: true },
  };
}

/** The workers of the job's attempt. */
async function poolOf(target: EvaluationTarget, attempt: number): Promise<TaskPool> {
  return attempt === 0 || !target.attemptPool ? target.pool : await target.attemptPool(attempt);
}

/** What a TaskAgent is sent for one task of a stage. */
function taskRequest(target: EvaluationTarget, { domain, task }: StageJob): TaskRequest {
  return {
    id: task.id,
    domain: domain.name,
    input: task.input,
    ...(domain.formatHint === undefined ? {} : { formatHint: domain.formatHint }),
    settings: target.settings,
    ...(task.workspace === undefined
      ? {}
      : { workspace: task.workspace, limits: { maxToolCalls: target.settings.maxToolCalls } }),
  };
}

/**
 * A kept workspace graded again: by the pool where it grades its tasks (a queue worker), else here. Null
 * when the pool was closed under it; an infrastructure failure when the worker gave no grade.
 */
async function regradeWorkspace(
  target: EvaluationTarget,
  job: StageJob,
  workspace: CollectedWorkspace,
): Promise<Graded | { kind: 'infra'; reason: string } | null> {
  const pool = await poolOf(target, job.attempt);
  if (pool.regrade === undefined) return gradeWorkspace(job.domain, job.task, workspace, target.grading);
  const reply = await pool.regrade(taskRequest(target, job), workspace);
  if (reply.kind === 'closed') return null;
  if (reply.kind === 'infra') return { kind: 'infra', reason: reply.reason };
  return reply.graded ?? { kind: 'infra', reason: 'the worker sent no grade for the kept workspace' };
}

/** The TaskAgent's reply graded (unless a worker graded it), cached when it is a model's answer, with its cost. */
async function answered(
  target: EvaluationTarget,
  grade: Grade,
  { domain, task }: StageJob,
  base: ResultBase,
  key: CacheKey,
  reply: Extract<WorkerReply, { kind: 'reply' }>,
): Promise<Evaluated> {
  const graded =
    reply.error !== null
      ? {
          outcome: 'error' as const,
          prediction: undefined,
          score: 0,
          error: agentError(reply.error),
          detail: null,
        }
      : (reply.graded ??
        (task.workspace === undefined
          ? await grade(domain, task, reply.output)
          : await gradeWorkspace(domain, task, returnedWorkspace(reply.workspace), target.grading)));
  // What the TaskAgent's calls naming this task cost (the gateway ledgered them before answering them).
  const spent = target.archive.taskSpend(target.variantId, { domain: domain.name, id: task.id });
  const result = { ...graded, rawOutput: reply.output, latencyMs: reply.latencyMs, costUsd: spent.costUsd };
  if (target.cacheable && reply.error === null)
    target.cache.put(key, reply.workspace === undefined ? result : { ...result, workspace: reply.workspace });
  const tokens = { inputTokens: spent.inputTokens, outputTokens: spent.outputTokens };
  return { kind: 'result', result: { ...base, ...result, ...tokens, reused: false } };
}

/** The workspace a reply brought back; none is the pool's failure to collect it, a refusal with the reason. */
function returnedWorkspace(collected: CollectedWorkspace | undefined): CollectedWorkspace {
  return collected ?? { kind: 'refused', reason: 'no workspace came back with the reply' };
}
