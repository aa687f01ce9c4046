import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type AgentEntry, buildAgentEntry } from './agent-build.ts';
import { agentCommand, agentEnv } from './agent-process.ts';
import { writeEvalsFolder } from './evals-folder.ts';
import { evaluateStage } from './evaluate.ts';
import { checkDiff, type GateResult, loadsEntryPoint, typecheck } from './gate.ts';
import { runToCompletion } from './processes.ts';
import { logDir, type RunContext, worktreeDir } from './run-context.ts';
import type { SandboxPolicy } from './sandbox.ts';
import { selectionScore } from './scoring.ts';
import { createTaskPool, type TaskPool } from './task-workers.ts';

export type VariantStatus = 'evaluated' | 'staged_only' | 'rejected' | 'failed';

/** How an evaluation ended: with a status, or cut short by the run's budget (then nothing is scored). */
type Evaluated = { kind: 'done'; status: VariantStatus } | { kind: 'cut'; reason: string };

const TASK_ENTRY = 'agents/task/main.ts';
const META_ENTRY = 'agents/meta/main.ts';

function taskPolicy(ctx: RunContext, worktree: string): SandboxPolicy {
  return {
    workdir: worktree,
    writable: false,
    readOnly: [ctx.nodeModules],
    ...(ctx.gateway.socketPath === null ? {} : { gatewaySocket: ctx.gateway.socketPath }),
  };
}

/** Starts the TaskAgent workers of a variant, each with a task-role gateway token. */
async function startPool(ctx: RunContext, id: number, worktree: string, token: string): Promise<TaskPool> {
  const env = agentEnv({ url: ctx.gateway.url, token });
  const entry = await buildTaskEntry(ctx, id, worktree);
  const policy = taskPolicy(ctx, worktree);
  return createTaskPool({
    size: ctx.config.evalWorkers,
    command:
      entry.kind === 'built'
        ? agentCommand(
            ctx.sandbox,
            { ...policy, readOnly: [...policy.readOnly, path.dirname(entry.file)] },
            entry.file,
            [],
            env,
          )
        : agentCommand(ctx.sandbox, policy, TASK_ENTRY, [], env),
    taskTimeoutMs: ctx.config.taskTimeoutSec * 1000,
    logFile: path.join(logDir(ctx, id), 'task-agent.log'),
  });
}

const buildDir = (ctx: RunContext, id: number): string => path.join(ctx.runDir, 'builds', `variant-${id}`);

/** The TaskAgent is built once per variant, so workers start without compiling; its source is the fallback. */
async function buildTaskEntry(ctx: RunContext, id: number, worktree: string): Promise<AgentEntry> {
  const entry = await buildAgentEntry({
    worktree,
    entry: TASK_ENTRY,
    outDir: buildDir(ctx, id),
    nodeModules: ctx.nodeModules,
  });
  ctx.archive.logEvent(
    id,
    'task_agent_build',
    entry.kind === 'built' ? { built: true, ms: entry.ms } : { built: false, reason: entry.reason },
  );
  return entry;
}

/**
 * Once the gateway refused a call for the budget, whatever was under way is incomplete: its failed calls
 * are not wrong answers. Returns the failure reason then, else null.
 */
function budgetCut(ctx: RunContext, step: string): string | null {
  if (!ctx.gateway.budgetReached()) return null;
  return `stopped by the budget during ${step}: the run's --budget-usd was reached, so this variant is incomplete and not scored`;
}

/**
 * Evaluates a checked-out variant: staged sample first (unless skipped), then the full evaluation if
 * every domain's staged score is above zero. A stage the budget cut short leaves no evaluation rows.
 */
async function evaluateVariant(
  ctx: RunContext,
  id: number,
  pool: TaskPool,
  codeHash: string,
): Promise<Evaluated> {
  const target = {
    archive: ctx.archive,
    cache: ctx.cache,
    pool,
    variantId: id,
    codeHash,
    taskModel: ctx.config.taskModel,
    seed: ctx.config.seed,
    cacheable: ctx.cacheable,
    concurrency: ctx.config.evalWorkers,
    onTask: (done: number, total: number) => {
      ctx.status(`variant ${id}: evaluating, ${done}/${total} tasks`);
      ctx.onEvent({ type: 'tasks', variant: id, done, total });
    },
  };
  if (!ctx.config.skipStagedEval && id !== 0) {
    ctx.archive.updateVariant(id, { state: 'staged' });
    const staged = await evaluateStage(target, ctx.domains, 'staged', false);
    ctx.status('');
    const cut = budgetCut(ctx, 'the staged evaluation');
    if (cut !== null) {
      ctx.archive.discardEvaluations(id, 'staged');
      return { kind: 'cut', reason: cut };
    }
    const failing = [...staged].filter(([, score]) => !(score > 0));
    ctx.progress(`variant ${id}: staged ${formatScores(staged)}`);
    if (failing.length > 0) {
      ctx.archive.logEvent(id, 'staged_gate', { failing: failing.map(([d]) => d) });
      return { kind: 'done', status: 'staged_only' };
    }
  }
  ctx.archive.updateVariant(id, { state: 'full' });
  const full = await evaluateStage(target, ctx.domains, 'full', ctx.config.evalTest);
  ctx.status('');
  const cut = budgetCut(ctx, 'the full evaluation');
  if (cut !== null) {
    ctx.archive.discardEvaluations(id, 'full');
    return { kind: 'cut', reason: cut };
  }
  ctx.progress(`variant ${id}: full ${formatScores(full)}`);
  return { kind: 'done', status: 'evaluated' };
}

/** The selection score, stored once so that every reader ranks variants the same way. */
const storedScore = (ctx: RunContext, id: number): number | null =>
  selectionScore(
    ctx.archive.listEvaluations(id),
    ctx.domains.map((d) => d.domain),
  );

const formatScores = (scores: Map<string, number>): string =>
  [...scores].map(([d, s]) => `${d}=${s.toFixed(3)}`).join(' ');

/** Variant 0: the initial agent, evaluated in full without a gate. */
export async function evaluateInitial(ctx: RunContext): Promise<void> {
  const worktree = worktreeDir(ctx, 0);
  ctx.archive.insertVariant({ id: 0, parentId: null, state: 'full', selectionReason: 'initial agent' });
  const codeHash = await ctx.repo.taskCodeHash(ctx.rootCommit);
  ctx.archive.updateVariant(0, { commitSha: ctx.rootCommit, taskCodeHash: codeHash });
  mkdirSync(logDir(ctx, 0), { recursive: true });
  await ctx.repo.addWorktree(ctx.rootCommit, worktree);
  const token = ctx.gateway.issueToken({
    runId: ctx.runId,
    variantId: 0,
    role: 'task',
    model: ctx.config.taskModel,
  });
  const pool = await startPool(ctx, 0, worktree, token);
  try {
    const evaluated = await evaluateVariant(ctx, 0, pool, codeHash);
    if (evaluated.kind === 'cut') {
      ctx.archive.updateVariant(0, { state: 'failed', status: 'failed', failureReason: evaluated.reason });
      ctx.archive.logEvent(0, 'failed', { status: 'failed', reason: evaluated.reason });
      ctx.progress(`variant 0: failed: ${evaluated.reason}`);
    } else {
      const score = storedScore(ctx, 0);
      ctx.archive.updateVariant(0, {
        state: 'done',
        status: evaluated.status,
        validParent: true,
        selectionScore: score,
      });
    }
  } finally {
    await pool.close();
    ctx.gateway.revokeToken(token);
    await ctx.repo.removeWorktree(worktree);
    rmSync(buildDir(ctx, 0), { recursive: true, force: true });
  }
}

/**
 * One generation: the parent's MetaAgent edits a worktree of the parent's commit, the result is
 * committed as the child, gated, and evaluated. Ends in `done` or `failed` with a recorded reason.
 */
export async function runGeneration(
  ctx: RunContext,
  id: number,
  parentId: number,
  reason: string,
): Promise<void> {
  const parent = ctx.archive.getVariant(parentId);
  if (parent?.commit_sha == null) throw new Error(`parent ${parentId} has no commit`);
  const parentCommit = parent.commit_sha;
  ctx.archive.insertVariant({ id, parentId, state: 'selected', selectionReason: reason });
  ctx.archive.logEvent(id, 'selected', { parent: parentId, reason });
  ctx.progress(`variant ${id}: parent ${parentId} (${reason})`);
  const worktree = worktreeDir(ctx, id);
  const logs = logDir(ctx, id);
  mkdirSync(logs, { recursive: true });
  const fail = (status: VariantStatus, why: string, parentValid = true): void => {
    ctx.archive.updateVariant(id, { state: 'failed', status, failureReason: why, validParent: false });
    if (!parentValid) ctx.archive.updateVariant(parentId, { validParent: false });
    ctx.archive.logEvent(id, 'failed', { status, reason: why });
    ctx.progress(`variant ${id}: ${status}: ${why}`);
  };

  let pool: TaskPool | undefined;
  let taskToken: string | undefined;
  try {
    ctx.archive.updateVariant(id, { state: 'editing' });
    await ctx.repo.addWorktree(parentCommit, worktree);
    // What the MetaAgent is shown; removed once it is done, since the archive holds all of it.
    const evalsDir = path.join(ctx.runDir, 'evals', `variant-${id}`);
    writeEvalsFolder(evalsDir, ctx.archive, parentId, ctx.domains);
    const edit = await runMetaAgent(ctx, id, worktree, evalsDir, logs).finally(() =>
      rmSync(evalsDir, { recursive: true, force: true }),
    );
    const cutEditing = budgetCut(ctx, "the MetaAgent's edit");
    if (cutEditing !== null) return fail('failed', cutEditing);
    if (!edit.ok) return fail('failed', edit.reason, edit.infrastructure);

    const committed = await ctx.repo.commitWorktree(
      worktree,
      parentCommit,
      `variant ${id} (parent ${parentId})`,
    );
    ctx.archive.updateVariant(id, { state: 'gating' });
    if (committed !== null) {
      await ctx.repo.tagVariant(id, committed.sha);
      ctx.archive.updateVariant(id, {
        commitSha: committed.sha,
        diffStat: JSON.stringify(committed.diff),
        taskCodeHash: await ctx.repo.taskCodeHash(committed.sha),
      });
    }
    const diffGate = checkDiff(committed?.diff ?? null);
    if (!diffGate.ok) return fail('rejected', diffGate.reason);
    ctx.progress(`variant ${id}: changed ${committed!.diff.files.join(', ')}`);

    const gate = await runGate(ctx, id, worktree, logs);
    if (!gate.ok) return fail('rejected', gate.reason);

    taskToken = ctx.gateway.issueToken({
      runId: ctx.runId,
      variantId: id,
      role: 'task',
      model: ctx.config.taskModel,
    });
    pool = await startPool(ctx, id, worktree, taskToken);
    const smoke = await smokeTest(ctx, pool);
    const cutSmoke = budgetCut(ctx, 'the smoke task');
    if (cutSmoke !== null) return fail('failed', cutSmoke);
    if (!smoke.ok) return fail('rejected', smoke.reason);

    const evaluated = await evaluateVariant(ctx, id, pool, ctx.archive.getVariant(id)!.task_code_hash!);
    if (evaluated.kind === 'cut') return fail('failed', evaluated.reason);
    ctx.archive.updateVariant(id, {
      state: 'done',
      status: evaluated.status,
      validParent: true,
      selectionScore: storedScore(ctx, id),
    });
  } finally {
    await pool?.close();
    if (taskToken !== undefined) ctx.gateway.revokeToken(taskToken);
    await ctx.repo.removeWorktree(worktree);
    rmSync(buildDir(ctx, id), { recursive: true, force: true });
  }
}

async function runMetaAgent(
  ctx: RunContext,
  id: number,
  worktree: string,
  evalsDir: string,
  logs: string,
): Promise<{ ok: true } | { ok: false; reason: string; infrastructure: boolean }> {
  const token = ctx.gateway.issueToken({
    runId: ctx.runId,
    variantId: id,
    role: 'meta',
    model: ctx.config.metaModel,
  });
  const metaRoot = ctx.config.freezeMeta ? path.join(ctx.runDir, 'worktrees', 'frozen-meta') : worktree;
  const env = agentEnv(
    { url: ctx.gateway.url, token },
    { HYPERAGENTS_TRANSCRIPT: path.join(logs, 'meta-transcript.json') },
  );
  const policy: SandboxPolicy = {
    workdir: worktree,
    writable: true,
    readOnly: [ctx.nodeModules, evalsDir, ...(ctx.config.freezeMeta ? [metaRoot] : [])],
    readWrite: [logs],
    ...(ctx.gateway.socketPath === null ? {} : { gatewaySocket: ctx.gateway.socketPath }),
  };
  const args = [
    '--repo',
    worktree,
    '--evals',
    evalsDir,
    '--iterations-left',
    String(ctx.config.generations - id),
  ];
  const command = agentCommand(ctx.sandbox, policy, path.join(metaRoot, META_ENTRY), args, env);
  ctx.archive.logEvent(id, 'meta_started', { parent: ctx.archive.getVariant(id)?.parent_id });
  const finished = await runToCompletion(
    command,
    ctx.config.metaTimeoutSec * 1000,
    path.join(logs, 'meta-agent.log'),
  );
  ctx.gateway.revokeToken(token);
  ctx.archive.logEvent(id, 'meta_finished', { exitCode: finished.exitCode, timedOut: finished.timedOut });
  if (finished.exitCode === 0) return { ok: true };
  if (finished.timedOut) {
    return {
      ok: false,
      reason: `MetaAgent timed out after ${ctx.config.metaTimeoutSec} s`,
      infrastructure: true,
    };
  }
  const budget = ctx.stopReason !== null || /budget/i.test(finished.tail);
  return {
    ok: false,
    reason: `MetaAgent exited with code ${finished.exitCode}: ${finished.tail.split('\n').slice(-3).join(' | ')}`,
    infrastructure: budget,
  };
}

async function runGate(ctx: RunContext, id: number, worktree: string, logs: string): Promise<GateResult> {
  const gateLog = path.join(logs, 'gate.log');
  const typed = await typecheck(worktree, gateLog);
  if (!typed.ok) return typed;
  const env = agentEnv({ url: ctx.gateway.url, token: 'none' });
  for (const entry of [TASK_ENTRY, META_ENTRY]) {
    const loaded = await loadsEntryPoint(
      agentCommand(ctx.sandbox, taskPolicy(ctx, worktree), entry, ['--check'], env),
      gateLog,
    );
    if (!loaded.ok) return loaded;
  }
  ctx.archive.logEvent(id, 'gate_passed');
  return { ok: true };
}

/** The child must answer one task (right or wrong) before its evaluation is paid for. */
async function smokeTest(ctx: RunContext, pool: TaskPool): Promise<GateResult> {
  const first = ctx.domains[0];
  const task = first?.splits.train?.[0] ?? first?.splits.val?.[0];
  if (first === undefined || task === undefined) return { ok: true };
  const reply = await pool.run({ id: `smoke-${task.id}`, domain: first.domain.name, input: task.input });
  if (reply.kind === 'infra') return { ok: false, reason: `smoke task failed: ${reply.reason}` };
  if (reply.output.trim() === '' && reply.error !== null) {
    return { ok: false, reason: `smoke task failed: ${reply.error}` };
  }
  return { ok: true };
}
