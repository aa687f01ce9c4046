import type { AcceptanceInput, EvaluationInput, TaskResultRow } from '../../archive/index.ts';
import { type Split, selectionSplit } from '../../domains/index.ts';
import { hashString } from '../../system/rng.ts';
import {
  type DomainTasks,
  evaluationOf,
  isInfraFailure,
  runTasksInRounds,
  type StageOutcome,
  scoredRows,
  stageSplits,
  stageTasks,
  unfinishedReason,
} from './evaluate.ts';
import type { EvaluationTarget, StageJob } from './evaluate-task.ts';
import {
  type AcceptanceDecision,
  decide,
  observe,
  pairedDifference,
  startTest,
  type TestRates,
  type TestState,
} from './paired-test.ts';

/** How a child's full evaluation is decided against its parent (`--accept sequential`). */
export interface SequentialPlan {
  parentId: number;
  /** Task results run between two looks of the test (the run's `--eval-workers`). */
  roundSize: number;
  rates: TestRates;
}

/** How a sequential full stage ended: decided (its rows and decision written), or as a stage does. */
export type SequentialOutcome =
  | { kind: 'decided'; scores: Map<string, number>; acceptance: AcceptanceInput }
  | Exclude<StageOutcome, { kind: 'scored' }>;

const keyOf = (domain: string, split: string, taskId: string, attempt: number): string =>
  `${domain}\u0000${split}\u0000${taskId}\u0000${attempt}`;
const jobKey = (j: StageJob): string => keyOf(j.domain.name, j.split, j.task.id, j.attempt);
const rowKey = (r: TaskResultRow): string => keyOf(r.domain, r.split, r.taskId, r.attempt);

/** The splits a child is decided on: the full stage's, never test (held out: it never decides anything). */
const decisionSplits = (domain: DomainTasks['domain']): Split[] =>
  stageSplits(domain, 'full', false).filter((s) => s !== 'test');

/**
 * The order a child's tasks are used in, as rounds. First the tasks its staged evaluation already ran (no
 * call is paid for them), then the tasks its parent has a result on, then the rest (they carry no evidence:
 * they are run only when the test ended undecided, so that the child's score is over every task). Within each
 * group the order is seeded by the run's seed and the child's id, so a resume walks the same order.
 */
export function acceptanceRounds(
  jobs: readonly StageJob[],
  staged: ReadonlySet<string>,
  parentHas: ReadonlySet<string>,
  seed: number,
  variantId: number,
  roundSize: number,
): StageJob[][] {
  const rank = (j: StageJob) => hashString(`${seed}\u0000${variantId}\u0000${jobKey(j)}`);
  const shuffled = [...jobs].sort((a, b) => rank(a) - rank(b) || jobKey(a).localeCompare(jobKey(b)));
  const first = shuffled.filter((j) => staged.has(jobKey(j)));
  const paired = shuffled.filter((j) => !staged.has(jobKey(j)) && parentHas.has(jobKey(j)));
  const rest = shuffled.filter((j) => !staged.has(jobKey(j)) && !parentHas.has(jobKey(j)));
  const chunks = (list: StageJob[]) =>
    Array.from({ length: Math.ceil(list.length / roundSize) }, (_, i) =>
      list.slice(i * roundSize, (i + 1) * roundSize),
    );
  return [...(first.length > 0 ? [first] : []), ...chunks(paired), ...chunks(rest)];
}

/**
 * The full stage under `--accept sequential`: the child's train and val tasks in rounds (acceptanceRounds),
 * each task paired with the parent's stored result on the same task, split and attempt; after each round the
 * paired test (paired-test.ts) looks. A decision, `better` or `worse`, stops the evaluation: the answer is
 * known. A `worse` child's score is then an estimate from the tasks used; a `better` one is evaluated on the rest
 * of its selection split first, so its score is over every task of it (only its other splits are estimates).
 * Its own children are paired on the tasks it has; those it has no result on carry no evidence. Test, when asked, is evaluated in full afterwards and never decides.
 * The evaluation rows and the decision are written together. Tasks already stored are not run again, so a
 * resumed child walks the same rounds to where it stopped, and the test reads the same evidence.
 */
export async function evaluateSequential(
  target: EvaluationTarget,
  domains: readonly DomainTasks[],
  plan: SequentialPlan,
  evalTest: boolean,
): Promise<SequentialOutcome> {
  const attempts = Math.max(1, target.attempts ?? 1);
  const jobs: StageJob[] = [];
  const staged = new Set<string>();
  for (let attempt = 0; attempt < attempts; attempt++) {
    for (const { domain, splits } of domains) {
      for (const split of decisionSplits(domain)) {
        const tasks = splits[split] ?? [];
        for (const task of tasks) jobs.push({ domain, split, task, attempt });
        if (stageSplits(domain, 'staged', false).includes(split))
          for (const task of stageTasks(tasks, domain, 'staged'))
            staged.add(keyOf(domain.name, split, task.id, attempt));
      }
    }
  }
  const parentScores = new Map(
    target.archive
      .listTaskResults(plan.parentId, { attempt: 'all' })
      .filter((r) => !isInfraFailure(r))
      .map((r) => [rowKey(r), r.score] as const),
  );
  const rounds = acceptanceRounds(
    jobs,
    staged,
    new Set(parentScores.keys()),
    target.seed,
    target.variantId,
    plan.roundSize,
  );
  let state: TestState = startTest(plan.rates.futilityMargin);
  let decided: { decision: AcceptanceDecision; state: TestState; tasks: number } | null = null;
  let used = 0;
  let paired = 0;
  for (const round of rounds) {
    const ran = await runMissing(target, round, used, jobs.length);
    if (ran !== null) return ran;
    const child = storedScores(target);
    for (const job of round) {
      used++;
      const parentScore = parentScores.get(jobKey(job));
      const childScore = child.get(jobKey(job));
      if (parentScore === undefined || childScore === undefined || job.task.canary === true) continue;
      paired++;
      if (decided === null) state = observe(state, pairedDifference(childScore, parentScore));
    }
    if (decided === null) {
      const decision = decide(state, plan.rates);
      if (decision !== 'undecided') decided = { decision, state, tasks: used };
    }
    if (decided !== null) break;
  }
  // A child decided better runs the rest of its selection split: the score that ranks it is never cut at a high.
  const rest = decided?.decision === 'better' ? jobs.filter((j) => j.split === selectionSplit(j.domain)) : [];
  const ran = await runMissing(target, rest, used, jobs.length);
  if (ran !== null) return ran;
  const heldOut = await runHeldOut(target, domains, evalTest, attempts);
  if (heldOut !== null) return heldOut;
  const end = decided ?? { decision: 'undecided' as const, state, tasks: used };
  const acceptance: AcceptanceInput = {
    variantId: target.variantId,
    parentId: plan.parentId,
    decision: end.decision,
    evidence: end.state.evidence,
    futility: end.state.futility,
    tasks: end.tasks,
    of: jobs.length,
    paired,
  };
  const { evaluations, scores } = sequentialEvaluations(target, domains, evalTest, attempts);
  target.archive.transaction(() => {
    for (const evaluation of evaluations) target.archive.putEvaluation(evaluation);
    target.archive.putAcceptance(acceptance);
  });
  return { kind: 'decided', scores, acceptance };
}

/** The child's stored scores by task key (infrastructure failures are no result). */
function storedScores(target: EvaluationTarget): Map<string, number> {
  return new Map(
    target.archive
      .listTaskResults(target.variantId, { attempt: 'all' })
      .filter((r) => !isInfraFailure(r))
      .map((r) => [rowKey(r), r.score] as const),
  );
}

/** Runs the jobs of `round` not yet stored; null when each has its result, else how the stage stops. */
async function runMissing(
  target: EvaluationTarget,
  round: readonly StageJob[],
  before: number,
  total: number,
): Promise<Exclude<SequentialOutcome, { kind: 'decided' }> | null> {
  const have = storedScores(target);
  const todo = round.filter((j) => !have.has(jobKey(j)));
  if (todo.length === 0) return null;
  const counted: EvaluationTarget = {
    ...target,
    onTask: (done) => target.onTask?.(before + round.length - todo.length + done, total),
  };
  const { infra } = await runTasksInRounds(counted, todo);
  if (target.signal?.aborted) return { kind: 'interrupted' };
  if (infra.length > 0) return { kind: 'unfinished', failed: infra.length, reason: unfinishedReason(infra) };
  return null;
}

/** The held-out test split, run in full when asked (`--eval-test`); it never decides anything. */
async function runHeldOut(
  target: EvaluationTarget,
  domains: readonly DomainTasks[],
  evalTest: boolean,
  attempts: number,
): Promise<Exclude<SequentialOutcome, { kind: 'decided' }> | null> {
  const jobs: StageJob[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    for (const { domain, splits } of domains) {
      if (!stageSplits(domain, 'full', evalTest).includes('test')) continue;
      for (const task of splits.test ?? []) jobs.push({ domain, split: 'test', task, attempt });
    }
  }
  return runMissing(target, jobs, 0, jobs.length);
}

/**
 * The evaluation rows of the full stage from the tasks the child was evaluated on: on a split cut short by a
 * decision, `nTasks` is fewer than `nTotal` and the score an estimate from those tasks. A split with no
 * task used has no row.
 */
function sequentialEvaluations(
  target: EvaluationTarget,
  domains: readonly DomainTasks[],
  evalTest: boolean,
  attempts: number,
): { evaluations: EvaluationInput[]; scores: Map<string, number> } {
  const evaluations: EvaluationInput[] = [];
  const scores = new Map<string, number>();
  for (const { domain, splits } of domains) {
    for (const split of stageSplits(domain, 'full', evalTest)) {
      const tasks = (splits[split] ?? []).filter((t) => t.canary !== true);
      const ids = new Set(tasks.map((t) => t.id));
      const rows = scoredRows(target, domain.name, split, ids, attempts);
      if (rows.length === 0) continue;
      const evaluation = evaluationOf(target.variantId, domain.name, split, 'full', rows, tasks.length);
      evaluations.push(evaluation);
      if (split === selectionSplit(domain)) scores.set(domain.name, evaluation.score);
    }
  }
  return { evaluations, scores };
}
