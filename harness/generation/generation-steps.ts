import path from 'node:path';
import type {
  AcceptanceInput,
  FailureCause,
  MovedStep,
  StepEventInput,
  VariantPatch,
  VariantRow,
  VariantStatus,
} from '../../archive/index.ts';
import type { WorkerReply } from '../evaluation/index.ts';
import {
  evaluateSequential,
  evaluateStage,
  type SequentialPlan,
  type Stage,
  StageUnfinishedError,
  selectionScore,
} from '../evaluation/index.ts';
import type { DiffSummary } from '../process/index.ts';
import { agentEnv, inspectTree, treeLimits } from '../process/index.ts';
import {
  checkDiff,
  checkTree,
  type GateResult,
  loadsEntryPoint,
  typecheck,
  typecheckCommand,
  typecheckNeeded,
} from './gate.ts';
import {
  type GenerationSession,
  harnessLog,
  META_ENTRY,
  TASK_ENTRY,
  taskPolicy,
} from './generation-session.ts';
import { editOnWorker } from './meta-agent-remote.ts';
import { editWithMetaAgent } from './meta-agent-run.ts';
import { logDir, type RunContext } from './run-context.ts';

type NextStep = Exclude<MovedStep, 'done' | 'failed'>;

/** What a step decided: the next step with what it learned, or the end of the generation. */
export type StepOutcome =
  | { kind: 'next'; to: NextStep; patch?: VariantPatch; event?: StepEventInput<NextStep> }
  | { kind: 'done'; status: Extract<VariantStatus, 'evaluated' | 'staged_only'>; score: number | null }
  | {
      kind: 'failed';
      status: Extract<VariantStatus, 'rejected' | 'failed'>;
      reason: string;
      cause: FailureCause | null;
    }
  /** The run was interrupted (or halted) during the step: nothing is written, and a resume redoes the step. */
  | { kind: 'interrupted' };

/** One step: reads the variant as stored, does the step's work, and says where the generation goes next. */
export type Step = (ctx: RunContext, variant: VariantRow, session: GenerationSession) => Promise<StepOutcome>;

type Failed = Extract<StepOutcome, { kind: 'failed' }>;

const budgetFailure = (step: string): Failed => ({
  kind: 'failed',
  status: 'failed',
  reason: `stopped by the budget during ${step}: the run's --budget-usd was reached, so this variant is incomplete and not scored`,
  cause: 'budget',
});

const stored = <T>(value: T | null, what: string, id: number): T => {
  if (value === null) throw new Error(`variant ${id} has no stored ${what}`);
  return value;
};

/** `selected → editing`: a fresh worktree of the parent's commit, where the MetaAgent will work. */
export const prepareEdit: Step = async (_ctx, variant, session) => {
  await session.checkout(stored(variant.parentCommit, 'parent commit', variant.id), true);
  return { kind: 'next', to: 'editing' };
};

/**
 * `editing → gating`: the parent's MetaAgent edits the worktree, and the result is committed as the child.
 * A resumed edit starts again from the parent's commit: a half-done edit is never kept.
 */
export const runEdit: Step = async (ctx, variant, session) => {
  const id = variant.id;
  const parentCommit = stored(variant.parentCommit, 'parent commit', id);
  await session.checkout(parentCommit);
  const edit =
    ctx.remoteEdits === undefined
      ? await editWithMetaAgent(ctx, variant, session.worktree)
      : await editOnWorker(ctx, ctx.remoteEdits, variant, session.worktree);
  if (session.budgetRefused('meta')) return budgetFailure("the MetaAgent's edit");
  if (!edit.ok) return { kind: 'failed', status: 'failed', reason: edit.reason, cause: edit.cause };
  // Nothing the agent left is committed until it is known to hold no links, special or oversized files.
  const tree =
    edit.refused === undefined
      ? checkTree(inspectTree(session.worktree, treeLimits(ctx.config.limits)))
      : { ok: false as const, reason: edit.refused };
  if (!tree.ok) return { kind: 'failed', status: 'rejected', reason: tree.reason, cause: null };
  const committed = await ctx.repo.commitWorktree(
    session.worktree,
    parentCommit,
    `variant ${id} (parent ${variant.parentId})`,
  );
  if (committed === null) {
    const gate = checkDiff(null);
    return { kind: 'failed', status: 'rejected', reason: gate.ok ? 'no change' : gate.reason, cause: null };
  }
  await ctx.repo.tagVariant(id, committed.sha);
  return {
    kind: 'next',
    to: 'gating',
    patch: {
      commitSha: committed.sha,
      diffStat: JSON.stringify(committed.diff),
      taskCodeHash: await ctx.repo.taskCodeHash(committed.sha),
    },
    event: { changed: committed.diff.files },
  };
};

/**
 * `gating → staged | full`: before paying for evaluation the child must differ from its parent only under
 * `agents/`, typecheck, load both entry points and answer one smoke task.
 */
export const gate: Step = async (ctx, variant, session) => {
  const id = variant.id;
  const diff = JSON.parse(stored(variant.diffStat, 'diff', id)) as DiffSummary;
  const diffGate = checkDiff(diff);
  if (!diffGate.ok) return { kind: 'failed', status: 'rejected', reason: diffGate.reason, cause: null };
  // From here on everything runs on a clean checkout of the commit, never on what the MetaAgent left.
  await session.checkout(stored(variant.commitSha, 'commit', id), true);
  const checked = await checkEntryPoints(ctx, id, session, typecheckNeeded(diff));
  if (ctx.signal.aborted) return { kind: 'interrupted' };
  if (!checked.ok) return { kind: 'failed', status: 'rejected', reason: checked.reason, cause: null };
  ctx.archive.recordEvent(id, 'entry_points_loaded', {});
  const smoke = await smokeTest(ctx, session);
  if (session.budgetRefused('task')) return budgetFailure('the smoke task');
  if (!smoke.ok) return { kind: 'failed', status: 'rejected', reason: smoke.reason, cause: null };
  return { kind: 'next', to: ctx.config.skipStagedEval ? 'full' : 'staged', event: { gate: 'passed' } };
};

/** `staged → full | done`: a small sample per domain; the full evaluation only if every domain scores. */
export const evaluateStaged: Step = async (ctx, variant, session) => {
  const stage = await evaluate(ctx, variant, session, 'staged');
  if (stage.kind !== 'scored') return stage;
  ctx.progress(`variant ${variant.id}: staged ${formatScores(stage.scores)}`);
  const failing = [...stage.scores].filter(([, score]) => !(score > 0)).map(([d]) => d);
  if (failing.length > 0) return { kind: 'done', status: 'staged_only', score: storedScore(ctx, variant.id) };
  return { kind: 'next', to: 'full' };
};

/**
 * `full → done`: every task of every split; the staged results are reused. Under `--accept sequential` a child
 * is evaluated in rounds and decided against its parent (docs/acceptance.md); variant 0 has no parent to be
 * decided against and is evaluated in full.
 */
export const evaluateFull: Step = async (ctx, variant, session) => {
  const stage = await evaluate(ctx, variant, session, 'full');
  if (stage.kind !== 'scored') return stage;
  const a = stage.acceptance;
  const against =
    a === undefined ? '' : a.decision === 'undecided' ? 'undecided against' : `${a.decision} than`;
  const decided =
    a === undefined
      ? ''
      : ` (${against} variant ${a.parentId}${a.decision === 'worse' ? ', an estimate' : ''}: evidence ` +
        `${a.evidence.toPrecision(3)}, futility ${a.futility.toPrecision(3)}, at ${a.tasks} of ${a.of} tasks)`;
  ctx.progress(`variant ${variant.id}: full ${formatScores(stage.scores)}${decided}`);
  return { kind: 'done', status: 'evaluated', score: storedScore(ctx, variant.id) };
};

/** How a variant's full stage is decided: against its parent under `--accept sequential`, else null (in full). */
function sequentialPlan(ctx: RunContext, variant: VariantRow): SequentialPlan | null {
  if (ctx.config.accept !== 'sequential' || variant.parentId === null) return null;
  const { alpha, futilityAlpha, futilityMargin } = ctx.config;
  const rates = { alpha, futilityAlpha, futilityMargin };
  return { parentId: variant.parentId, roundSize: ctx.config.evalWorkers, rates };
}

/**
 * Runs one stage; the generation ends here when the stage has no score: cut short by the budget (its evaluation
 * rows are dropped, since its refused calls are not answers), or with no task answered for the infrastructure's
 * reasons (it wrote none). An interrupted stage is redone by a resume. A stage some of whose tasks failed for
 * the infrastructure (after their retries) has no result for them and is not scored: the run halts (thrown) with
 * the generation at this step, so that a resume runs those tasks again instead of counting them as zeros.
 */
async function evaluate(
  ctx: RunContext,
  variant: VariantRow,
  session: GenerationSession,
  stage: Stage,
): Promise<
  | Failed
  | { kind: 'interrupted' }
  | { kind: 'scored'; scores: Map<string, number>; acceptance?: AcceptanceInput }
> {
  const id = variant.id;
  await session.checkout(stored(variant.commitSha, 'commit', id));
  const target = {
    archive: ctx.archive,
    cache: ctx.cache,
    pool: await session.pool(),
    variantId: id,
    codeHash: stored(variant.taskCodeHash, 'task-code hash', id),
    taskModel: ctx.config.taskModel,
    seed: ctx.config.seed,
    cacheable: ctx.cacheable,
    grading: ctx.grading,
    settings: ctx.taskSettings,
    attempts: ctx.config.evalRepeats,
    attemptPool: (attempt: number) => session.pool(attempt),
    limit: ctx.taskLimit,
    signal: ctx.signal,
    ...(ctx.batch === undefined ? {} : { batch: ctx.batch }),
    onTask: (done: number, total: number) => {
      ctx.status(`variant ${id}: evaluating, ${done}/${total} tasks`);
      ctx.onEvent({ type: 'tasks', variant: id, done, total });
    },
  };
  const plan = stage === 'full' ? sequentialPlan(ctx, variant) : null;
  const outcome =
    plan === null
      ? await evaluateStage(target, ctx.domains, stage, stage === 'full' && ctx.config.evalTest)
      : await evaluateSequential(target, ctx.domains, plan, ctx.config.evalTest);
  ctx.status('');
  if (outcome.kind === 'interrupted') return outcome;
  if (session.budgetRefused('task')) {
    ctx.archive.transaction(() => {
      ctx.archive.discardEvaluations(id, stage);
      if (stage === 'full') ctx.archive.discardAcceptance(id);
    });
    return budgetFailure(`the ${stage} evaluation`);
  }
  if (outcome.kind === 'unanswered') {
    return {
      kind: 'failed',
      status: 'failed',
      reason: `not evaluated: ${outcome.reason}`,
      cause: 'infrastructure',
    };
  }
  if (outcome.kind === 'unfinished') {
    ctx.archive.recordEvent(id, 'stage_unfinished', {
      stage,
      failed: outcome.failed,
      reason: outcome.reason,
    });
    ctx.progress(`variant ${id}: ${stage} evaluation: ${outcome.reason}`);
    throw new StageUnfinishedError(`variant ${id}'s ${stage} evaluation: ${outcome.reason}`);
  }
  if (outcome.kind === 'decided')
    return { kind: 'scored', scores: outcome.scores, acceptance: outcome.acceptance };
  return outcome;
}

/** The selection score, stored once so that every reader ranks variants the same way. */
const storedScore = (ctx: RunContext, id: number): number | null =>
  selectionScore(
    ctx.archive.listEvaluations(id),
    ctx.domains.map((d) => d.domain),
  );

const formatScores = (scores: Map<string, number>): string =>
  [...scores].map(([d, s]) => `${d}=${s.toFixed(3)}`).join(' ');

/**
 * Typechecks the worktree (when `typed`: see typecheckNeeded) while both entry points are built, then loads
 * each built file with `--check` (the source through tsx when it does not build), all in the sandbox; the
 * typecheck's failure is the one reported first, as it names the cause.
 */
async function checkEntryPoints(
  ctx: RunContext,
  id: number,
  session: GenerationSession,
  typed: boolean,
): Promise<GateResult> {
  // An interrupt kills the processes running; none may start after it.
  if (ctx.signal.aborted) return { ok: false, reason: 'interrupted' };
  const gateLog = harnessLog(ctx, path.join(logDir(ctx, id), 'gate.log'));
  if (!typed)
    ctx.archive.recordEvent(id, 'typecheck_skipped', { reason: 'no file the compiler reads changed' });
  const typing: Promise<GateResult> = typed
    ? typecheck(typecheckCommand(ctx.sandbox, taskPolicy(ctx, session.worktree)), gateLog)
    : Promise.resolve({ ok: true });
  const env = agentEnv({ url: ctx.gateway.url, token: 'none' });
  const loading = ([TASK_ENTRY, META_ENTRY] as const).map(async (entry): Promise<GateResult> => {
    const built = await session.built(entry);
    if (ctx.signal.aborted) return { ok: false, reason: 'interrupted' };
    return loadsEntryPoint(session.command(built, ['--check'], env), entry, gateLog);
  });
  const [checked, ...loaded] = await Promise.all([typing, ...loading]);
  return [checked, ...loaded].find((result) => !result.ok) ?? { ok: true };
}

/** The child must answer one task (right or wrong) before its evaluation is paid for. */
async function smokeTest(ctx: RunContext, session: GenerationSession): Promise<GateResult> {
  const first = ctx.domains[0];
  const task = first?.splits.train?.[0] ?? first?.splits.val?.[0];
  if (first === undefined || task === undefined) return { ok: true };
  const pool = await session.pool();
  const reply = pool.run({ id: `smoke-${task.id}`, domain: first.domain.name, input: task.input });
  // The evaluation's workers start while the smoke task runs, not when the evaluation needs them.
  pool.warm();
  return smokeVerdict(await reply);
}

function smokeVerdict(reply: WorkerReply): GateResult {
  // Only the session closes its pool, and never while its gate runs.
  if (reply.kind === 'closed') throw new Error('the smoke task got no answer: its TaskAgent pool was closed');
  if (reply.kind === 'infra') return { ok: false, reason: `smoke task failed: ${reply.reason}` };
  if (reply.output.trim() === '' && reply.error !== null) {
    return { ok: false, reason: `smoke task failed: ${reply.error}` };
  }
  return { ok: true };
}
