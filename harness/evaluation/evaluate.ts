import type { EvaluationInput, TaskResultInput, TaskResultRow } from '../../archive/index.ts';
import { CANARY_MARK } from '../../archive/index.ts';
import { type Domain, type Split, selectionSplit, type Task } from '../../domains/index.ts';
import {
  type EvaluationTarget,
  evaluateTask,
  type Grade,
  INFRA_ERROR,
  type StageJob,
} from './evaluate-task.ts';
import { gradeOutput, tally } from './grading.ts';

export {
  agentError,
  type EvaluationTarget,
  INFRA_ERROR,
  taskContentHash,
} from './evaluate-task.ts';

export type Stage = 'staged' | 'full';

export interface DomainTasks {
  domain: Domain;
  /** Tasks per split, already cut to `--eval-samples`. */
  splits: Partial<Record<Split, Task[]>>;
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

/** How one stage of an evaluation ended. */
export type StageOutcome =
  /** Every task has a result, and the stage's evaluation rows are written: the score per domain of its selection split. */
  | { kind: 'scored'; scores: Map<string, number> }
  /** Interrupted: the results that arrived are kept (a resume does not ask them again); no evaluation row is written. */
  | { kind: 'interrupted' }
  /**
   * Every task failed for the infrastructure (the sandbox, a limit, a worker), so no answer was graded: the
   * variant has no score, and no evaluation row is written. `reason` says what failed.
   */
  | { kind: 'unanswered'; reason: string }
  /**
   * Some tasks failed for the infrastructure after their retries (`failed` of them), so the stage has no
   * result for them: no evaluation row is written, the answers that arrived are kept, and the stage is left for
   * a resume to finish. `reason` is what the user reads: "2 tasks could not be run: …; the stage is left for
   * resume".
   */
  | { kind: 'unfinished'; failed: number; reason: string };

/**
 * Evaluates one stage of a variant on every domain and records task results and one evaluation row per
 * (domain, split). Tasks this variant already has results for (the staged ones, in the full stage) and
 * tasks cached under the same TaskAgent code are not run again.
 *
 * Only what a TaskAgent answered and a grader scored is stored: an infrastructure failure (after its retries)
 * is not a result, and never counts as a 0. Once the stage cannot finish (an interrupt, or an error such as a
 * full disk, which is thrown) nothing that arrives later is stored, and evaluation rows are written only when
 * every task of the stage has its result: a stage cut short never reads as a score.
 */
export async function evaluateStage(
  target: EvaluationTarget,
  domains: readonly DomainTasks[],
  stage: Stage,
  evalTest: boolean,
): Promise<StageOutcome> {
  const jobs: StageJob[] = [];
  for (let attempt = 0; attempt < attemptsOf(target); attempt++) {
    for (const { domain, splits } of domains) {
      for (const split of stageSplits(domain, stage, evalTest)) {
        for (const task of stageTasks(splits[split] ?? [], domain, stage))
          jobs.push({ domain, split, task, attempt });
      }
    }
  }
  // An infrastructure failure an earlier version stored is no result: its task is run again.
  const existing = new Set(
    target.archive
      .listTaskResults(target.variantId, { attempt: 'all' })
      .filter((r) => !isInfraFailure(r))
      .map((r) => `${r.domain}\u0000${r.split}\u0000${r.taskId}\u0000${r.attempt}`),
  );
  const { infra, agentFaults } = await runTasksInRounds(
    target,
    jobs.filter((j) => !existing.has(`${j.domain.name}\u0000${j.split}\u0000${j.task.id}\u0000${j.attempt}`)),
  );
  if (target.signal?.aborted) return { kind: 'interrupted' };
  // No task answered at all (the machine failed, or the TaskAgent failed on every one): the stage says why
  // instead of scoring.
  const answered = jobs.length - infra.length - agentFaults.length;
  if (jobs.length > 0 && answered === 0)
    return { kind: 'unanswered', reason: unansweredReason([...infra, ...agentFaults]) };
  if (infra.length > 0) return { kind: 'unfinished', failed: infra.length, reason: unfinishedReason(infra) };
  const { evaluations, scores } = stageEvaluations(target, domains, stage, evalTest);
  target.archive.transaction(() => {
    for (const evaluation of evaluations) target.archive.putEvaluation(evaluation);
  });
  return { kind: 'scored', scores };
}

/** How a set of attempts at the selection split ended (see evaluateAttempts). */
export type AttemptsOutcome =
  | { kind: 'scored'; scores: number[] }
  | { kind: 'interrupted' }
  | { kind: 'unfinished'; reason: string };

/**
 * Makes the given attempts at every task of each domain's selection split (results already stored are not asked
 * again; each is stored under its attempt number) and returns each attempt's score, the mean over domains as the
 * selection score is. No evaluation row is written: these attempts confirm a score or measure its noise, and
 * never change the score a variant was ranked by.
 */
export async function evaluateAttempts(
  target: EvaluationTarget,
  domains: readonly DomainTasks[],
  attempts: readonly number[],
): Promise<AttemptsOutcome> {
  const jobs: StageJob[] = [];
  for (const attempt of attempts) {
    for (const { domain, splits } of domains) {
      const split = selectionSplit(domain);
      for (const task of splits[split] ?? []) jobs.push({ domain, split, task, attempt });
    }
  }
  const key = (domain: string, split: string, taskId: string, attempt: number): string =>
    `${domain}\u0000${split}\u0000${taskId}\u0000${attempt}`;
  const stored = (): TaskResultRow[] =>
    target.archive.listTaskResults(target.variantId, { attempt: 'all' }).filter((r) => !isInfraFailure(r));
  const existing = new Set(stored().map((r) => key(r.domain, r.split, r.taskId, r.attempt)));
  const { infra, agentFaults } = await runTasksInRounds(
    target,
    jobs.filter((j) => !existing.has(key(j.domain.name, j.split, j.task.id, j.attempt))),
  );
  if (target.signal?.aborted) return { kind: 'interrupted' };
  if (infra.length > 0 || (jobs.length > 0 && agentFaults.length === jobs.length))
    return { kind: 'unfinished', reason: unfinishedReason([...infra, ...agentFaults]) };
  const rows = stored();
  const scores = attempts.map((attempt) => {
    let sum = 0;
    for (const { domain, splits } of domains) {
      const split = selectionSplit(domain);
      const ids = new Set((splits[split] ?? []).map((t) => t.id));
      sum += tally(
        rows.filter(
          (r) => r.domain === domain.name && r.split === split && r.attempt === attempt && ids.has(r.taskId),
        ),
      ).score;
    }
    return domains.length === 0 ? 0 : sum / domains.length;
  });
  return { kind: 'scored', scores };
}

/**
 * A stage left unfinished because some of its tasks failed for the infrastructure (see StageOutcome): the run
 * halts as on a harness error, with the generation at its step, so that --resume finishes the stage.
 */
const attemptsOf = (target: EvaluationTarget): number => Math.max(1, target.attempts ?? 1);

export class StageUnfinishedError extends Error {
  override name = 'StageUnfinishedError';
}

/**
 * Runs `todo` (see runStageTasks); with `--batch`, in rounds: the tasks whose run stopped at a call waiting for
 * a batch are run again once the round's batch is answered, until none waits (docs/batch.md).
 */
export async function runTasksInRounds(
  target: EvaluationTarget,
  todo: readonly StageJob[],
): Promise<{ infra: string[]; agentFaults: string[] }> {
  const infra: string[] = [];
  const agentFaults: string[] = [];
  const counter = { done: 0, total: todo.length };
  let jobs = todo;
  for (let round = 1; ; round++) {
    const ran = await runStageTasks(target, jobs, counter);
    infra.push(...ran.infra);
    agentFaults.push(...ran.agentFaults);
    const aborted = (): boolean => target.signal?.aborted === true;
    if (ran.parked.length === 0 || target.batch === undefined || aborted()) break;
    await target.batch.settle(target.variantId, round, target.signal);
    if (aborted()) break;
    jobs = ran.parked;
  }
  return { infra, agentFaults };
}

/**
 * Runs and grades `todo`, storing each result as it arrives, so a run killed mid-stage never pays for a
 * finished task again. After an error (thrown) or an interrupt nothing more is stored. Returns the reasons of
 * the tasks that failed for the infrastructure after their retries: those have no result, stored or counted;
 * and the tasks whose run stopped at a call waiting for a batch (no result yet).
 */
async function runStageTasks(
  target: EvaluationTarget,
  todo: readonly StageJob[],
  counter: { done: number; total: number },
): Promise<{ infra: string[]; agentFaults: string[]; parked: StageJob[] }> {
  const grade: Grade = (domain, task, output) => gradeOutput(domain, task, output, target.grading);
  let failed = false;
  const stopped = (): boolean => failed || target.signal?.aborted === true;
  const infra: string[] = [];
  const agentFaults: string[] = [];
  const parked: StageJob[] = [];
  await Promise.all(
    todo.map((job) =>
      target.limit.run(async () => {
        if (stopped()) return;
        try {
          const result = await evaluateTask(target, grade, job);
          if (result === null || stopped()) return;
          if (result.kind === 'parked') {
            parked.push(job);
            return;
          }
          if (result.kind === 'infra') {
            infra.push(result.reason);
            return;
          }
          if (result.agentFault !== undefined) agentFaults.push(result.agentFault);
          target.archive.putTaskResults([job.task.canary === true ? asCanary(result.result) : result.result]);
          target.onTask?.(++counter.done, counter.total);
        } catch (error) {
          failed = true;
          throw error;
        }
      }),
    ),
  );
  return { infra, agentFaults, parked };
}

/**
 * The stage's evaluation rows, from the stored results of every one of its tasks (throws if one has none, or
 * if one is an infrastructure failure: never a 0 in a score), with the score per domain of its selection split.
 */
function stageEvaluations(
  target: EvaluationTarget,
  domains: readonly DomainTasks[],
  stage: Stage,
  evalTest: boolean,
): { evaluations: EvaluationInput[]; scores: Map<string, number> } {
  const evaluations: EvaluationInput[] = [];
  const scores = new Map<string, number>();
  for (const { domain, splits } of domains) {
    for (const split of stageSplits(domain, stage, evalTest)) {
      // A canary's result is kept (it flags the variant when solved) but never counts in a score.
      const ids = new Set(
        stageTasks(splits[split] ?? [], domain, stage)
          .filter((t) => t.canary !== true)
          .map((t) => t.id),
      );
      const attempts = attemptsOf(target);
      const rows = scoredRows(target, domain.name, split, ids, attempts);
      if (rows.length < ids.size * attempts) {
        throw new Error(
          `the ${stage} evaluation of variant ${target.variantId} ended with ${ids.size * attempts - rows.length} of ` +
            `${ids.size * attempts} ${domain.name} ${split} ${attempts > 1 ? 'task attempts' : 'tasks'} unanswered`,
        );
      }
      const total = (splits[split] ?? []).filter((t) => t.canary !== true).length;
      const evaluation = evaluationOf(target.variantId, domain.name, split, stage, rows, total);
      evaluations.push(evaluation);
      if (split === selectionSplit(domain)) scores.set(domain.name, evaluation.score);
    }
  }
  return { evaluations, scores };
}

/**
 * The variant's stored results that count in a score on `split`: the tasks of `ids`, attempts below
 * `attempts`, infrastructure failures left out (they are no result).
 */
export function scoredRows(
  target: EvaluationTarget,
  domain: string,
  split: Split,
  ids: ReadonlySet<string>,
  attempts: number,
): TaskResultRow[] {
  return target.archive
    .listTaskResults(target.variantId, { domain, split, attempt: 'all' })
    .filter((r) => ids.has(r.taskId) && r.attempt < attempts && !isInfraFailure(r));
}

/** The evaluation row of one split from its scored results (`rows`), of `total` tasks in the split. */
export function evaluationOf(
  variantId: number,
  domain: string,
  split: Split,
  stage: Stage,
  rows: readonly TaskResultRow[],
  total: number,
): EvaluationInput {
  const t = tally(rows);
  return {
    variantId,
    domain,
    split,
    stage,
    score: t.score,
    nTasks: new Set(rows.map((r) => r.taskId)).size,
    nTotal: total,
    correct: t.correct,
    wrong: t.wrong,
    parseFailures: t.parseFailures,
    errors: t.errors,
  };
}

/** A canary's result, its detail marked so that readers know it for one (archive/flags.ts). */
function asCanary(result: TaskResultInput): TaskResultInput {
  return { ...result, detail: `${CANARY_MARK}${result.detail ?? ''}` };
}

/** A stored task result that is an infrastructure failure (written by an earlier version), not an answer. */
export function isInfraFailure(
  row: Pick<TaskResultRow, 'outcome' | 'error'>,
): row is Pick<TaskResultRow, 'outcome'> & { error: string } {
  return row.outcome === 'error' && row.error?.startsWith(INFRA_ERROR) === true;
}

/** "every one of its 8 tasks failed before answering: A (6 tasks); B (2 tasks)", most frequent first. Pure. */
export function unansweredReason(reasons: readonly string[]): string {
  return `every one of its ${reasons.length} tasks failed before answering: ${reasonCounts(reasons)}`;
}

/** "A (6 tasks); B (2 tasks)": distinct reasons with their counts, most frequent first, at most three named. */
function reasonCounts(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const shown = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([reason, n]) => `${reason} (${n} task${n === 1 ? '' : 's'})`);
  const more = counts.size > 3 ? `; and ${counts.size - 3} other reasons` : '';
  return `${shown.join('; ')}${more}`;
}

/** "2 tasks could not be run: A (1 task); B (1 task); the stage is left for resume", most frequent first. Pure. */
export function unfinishedReason(reasons: readonly string[]): string {
  const n = reasons.length;
  return `${n} task${n === 1 ? '' : 's'} could not be run: ${reasonCounts(reasons)}; the stage is left for resume`;
}
