import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFinalStep, type LlmCallInput, openArchive } from '../../archive/archive.ts';
import { ensureControlSecret } from '../../archive/control-secret.ts';
import { carriedControls } from '../../archive/controls.ts';
import { openEvalCache } from '../../archive/eval-cache.ts';
import { archiveFile, TASK_AGENT_LOG, variantRepoDir } from '../../archive/run-folder.ts';
import { git } from '../../system/git.ts';
import type { DomainTasks } from '../evaluation/index.ts';
import { createEvalsFolders, StageUnfinishedError } from '../evaluation/index.ts';
import {
  advanceGeneration,
  chooseParent,
  failVariant,
  frozenMetaDir,
  logDir,
  type RemoteEdits,
  type RemoteTasks,
  type RunContext,
  seedVariantZero,
  selectionLag,
  startGeneration,
  type TokenIssuer,
} from '../generation/index.ts';
import type { ResolvedSandbox } from '../process/index.ts';
import {
  createVariantRepo,
  describeEnforcement,
  describeHarnessError,
  InitialAgentError,
  killAll,
  openVariantRepo,
  type VariantRepo,
} from '../process/index.ts';
import type { RunEstimate } from './estimate.ts';
import { ModelUnreachableError } from './first-contact.ts';
import { ledgerWriter } from './ledger-writer.ts';
import { type RunAlerts, runAlerts } from './run-alerts.ts';
import { HARNESS_VERSION, type RunConfig, storedConfig } from './run-config.ts';
import { NODE_MODULES, openRunContext } from './run-context-open.ts';
import { type ControlState, type ControlWatch, NO_CONTROLS, watchControls } from './run-controls.ts';
import { observeArchive, type RunEvent } from './run-events.ts';
import { takeRunFolder, unlockRun } from './run-lock.ts';
import {
  budgetMessage,
  progressLine,
  type RunSummary,
  reportReplayMisses,
  summarize,
} from './run-summary.ts';
import { confirmTop, measureNoiseFloor } from './scores-under-noise.ts';
import { initialAgents } from './transfer.ts';

export interface RunDeps {
  domains: DomainTasks[];
  sandbox: ResolvedSandbox;
  /** Secret values (provider keys) to redact from everything the run writes, beside key-shaped strings. */
  secrets?: readonly string[];
  simulated: boolean;
  cacheable: boolean;
  /** Starts the gateway for this run (socket inside the run folder), allowed to spend `budgetUsd` more. */
  startGateway(
    runDir: string,
    onCall: (row: LlmCallInput) => void,
    budgetUsd: number | null,
  ): Promise<
    TokenIssuer & {
      close(): Promise<void>;
      unreachable?(): string | null;
      stopCalls?(reason: string): void;
      /** A new budget for this gateway's calls from now on (the run's `budget` control). */
      setBudgetUsd?(usd: number): void;
    }
  >;
  progress(line: string): void;
  status(text: string): void;
  /** Told of each stage, step, task and model call as the run goes (for a live progress display). */
  onEvent?(event: RunEvent): void;
  /** The estimate printed before the run (or its resume) started, recorded as its `estimate` event; null: none. */
  estimate?: RunEstimate | null;
  /** Aborted on Ctrl-C: the run stops cleanly and can be resumed. */
  signal: AbortSignal;
  /** With `--queue`: where the TaskAgent's tasks run instead of local processes. */
  remoteTasks?: RemoteTasks;
  /** With `--remote-generations`: where the MetaAgent runs instead of a local process. */
  remoteEdits?: RemoteEdits;
}

export interface RunPlan {
  config: RunConfig;
  runId: string;
  runDir: string;
  /** The eval cache shared by the runs of one `--out` folder. */
  cacheFile: string;
  /**
   * `new`: the run folder must not exist yet. `resume`: continue the run stored in `runDir` (the caller
   * checked that no live process holds it and that `config` differs only where a resume may change it).
   */
  mode: 'new' | 'resume';
}

/**
 * Runs generations until `config.generations` children exist (or the budget or an interrupt stops the run)
 * and returns the summary. Each generation advances through its steps; a resumed run continues every
 * generation at the step it was in.
 */
export async function runGenerations(plan: RunPlan, deps: RunDeps): Promise<RunSummary> {
  const { config, runId, runDir } = plan;
  takeRunFolder(plan, deps.progress);
  let alerts: RunAlerts | null = null;
  const emit = (event: RunEvent): void => {
    deps.onEvent?.(event);
    alerts?.observe(event);
  };
  const archive = observeArchive(openArchive(archiveFile(runDir), { secrets: deps.secrets ?? [] }), emit);
  const cache = openEvalCache(plan.cacheFile);
  // Kept for the next MetaAgent, which gets it only if nothing in it changed (see EvalsFolders).
  const evals = createEvalsFolders(archive, deps.domains, { reuse: true });
  const spentBefore = archive.llmTotals().costUsd;
  const remaining = config.budgetUsd === null ? null : Math.max(0, config.budgetUsd - spentBefore);
  let gateway: Awaited<ReturnType<RunDeps['startGateway']>> | undefined;
  const spent = (): number => spentBefore + (gateway?.spentUsd() ?? 0);
  let controls: ControlWatch | undefined;
  alerts = runAlerts(config, (type, data) => archive.logEvent(null, type, data), {
    runId,
    spentUsd: spent,
    budgetUsd: () => controls?.state().budgetUsd ?? config.budgetUsd,
    paused: () => controls?.state().paused ?? false,
  });
  const { fail, failure, halted } = haltOnFailure();
  const signal = AbortSignal.any([deps.signal, halted]);
  const onAbort = (): void => {
    killAll();
    // Agents a pool starts again, and calls being retried, must not keep the run going.
    gateway?.stopCalls?.('the run is stopping (interrupted): no more model calls are made');
  };
  signal.addEventListener('abort', onAbort);
  try {
    gateway = await deps.startGateway(runDir, ledgerWriter(archive, fail, emit), remaining);
    if (plan.mode === 'new') {
      archive.createRun({
        id: runId,
        harnessVersion: HARNESS_VERSION,
        seed: config.seed,
        metaModel: config.metaModel,
        taskModel: config.taskModel,
        simulated: deps.simulated,
        domains: deps.domains.map((d) => d.domain.name),
        config: storedConfig(config),
      });
      archive.recordSandbox({ ...deps.sandbox, ...describeEnforcement(config.limits) });
    }
    const carried = plan.mode === 'new' ? NO_CONTROLS : carriedOver(archive, config.budgetUsd);
    if (plan.mode !== 'new') {
      archive.reopenRun(storedConfig(config));
      archive.logEvent(null, 'resumed', { pid: process.pid, spentUsd: spentBefore, carried });
    }
    if (deps.estimate) {
      const { generations, resumed, calls, usd, seconds, from, lines } = deps.estimate;
      const recorded = { generations, resumed, calls, usd, seconds, from, lines, spentUsd: spentBefore };
      archive.logEvent(null, 'estimate', recorded);
    }
    // Controls recorded from here on reach this process (hyperagents control, the browser's buttons).
    const onBudget = (usd: number): void => {
      deps.progress(`control: the budget is now $${usd.toFixed(4)} for the whole run`);
      gateway?.setBudgetUsd?.(usd - spentBefore);
    };
    controls = watchControls(archive, archive.listEvents(0).at(-1)?.id ?? 0, onBudget, carried);
    if (carried.budgetUsd !== null) onBudget(carried.budgetUsd);
    if (carried.paused)
      deps.progress(
        'the run was paused before it stopped and stays paused: `hyperagents control RUN resume` starts it again',
      );
    emit({
      type: 'run_started',
      generations: config.generations,
      controlSecret: ensureControlSecret(runDir),
    });
    const { repo, rootCommit } = await variantZero(archive, runDir, config, NODE_MODULES);
    const opened = { config, runId, runDir, archive, cache, repo, rootCommit, evals, gateway, signal };
    const ctx = openRunContext({ ...opened, onEvent: emit, ...sharedDeps(deps) });
    const zeroEnded = isFinalStep(archive.getVariant(0)?.step ?? 'full');
    await advanceGeneration(ctx, 0);
    stopIfUnreachable(archive, 0, gateway.unreachable?.() ?? null);
    if (!signal.aborted) assertInitialAgentEvaluated(ctx);
    if (!zeroEnded && !signal.aborted) deps.progress(progressLine(ctx, 0, spent()));
    await measureNoiseFloor(ctx);
    if (config.freezeMeta && !signal.aborted) await repo.addWorktree(rootCommit, frozenMetaDir(ctx));
    await schedule(ctx, spent, () => gateway?.unreachable?.() ?? null, fail, controls);
    if (config.freezeMeta) await repo.removeWorktree(frozenMetaDir(ctx));
    // A run stopped by an interrupt, its budget or a failure confirms nothing: a resume that finishes it does.
    if (!signal.aborted && !gateway.budgetReached() && failure() === null) await confirmTop(ctx);
    const stopped = recordStop(archive, deps.signal.aborted, gateway, spent(), config.budgetUsd, controls);
    const failed = failure();
    if (failed !== null && !deps.signal.aborted) throw failed;
    reportReplayMisses(gateway.replayMisses(), config.replay, deps.progress);
    archive.finishRun(stopped === null ? 'done' : 'stopped');
    const summary = summarize(ctx, deps.simulated, stopped);
    if (stopped !== null && stopped !== 'interrupted' && stopped !== STOPPED_AFTER) alerts?.budgetReached();
    alerts?.ended({
      state: stopped === null ? 'done' : 'stopped',
      reason: stopped,
      best: summary.best === null ? null : { id: summary.best.id, score: summary.best.score },
      generations: summary.generations,
    });
    return summary;
  } catch (thrown) {
    // The first harness failure is the cause; what failed after it (the run halted) only followed from it.
    const error: unknown = failure() ?? thrown;
    try {
      archive.finishRun(deps.signal.aborted ? 'stopped' : 'failed');
    } catch {
      // The archive cannot be written (a full disk): the run reads as unfinished, and a resume continues it.
    }
    const failedWith = runFailure(error, runDir);
    const message = failedWith instanceof Error ? failedWith.message : String(failedWith);
    if (!deps.signal.aborted) alerts?.harnessError(message);
    alerts?.ended({
      state: deps.signal.aborted ? 'stopped' : 'failed',
      reason: message,
      best: null,
      generations: finishedGenerations(archive),
    });
    throw failedWith;
  } finally {
    signal.removeEventListener('abort', onAbort);
    await alerts?.close();
    evals.dispose();
    await gateway?.close();
    cache.close();
    archive.close();
    unlockRun(runDir);
  }
}

/** The generations of a run that ended, or null when the archive cannot be read. */
function finishedGenerations(archive: ReturnType<typeof openArchive>): number | null {
  try {
    return archive.listVariants().filter((v) => v.id > 0 && isFinalStep(v.step)).length;
  } catch {
    return null;
  }
}

/** What the context of the run's steps takes from its dependencies as they are. */
function sharedDeps(deps: RunDeps) {
  return {
    domains: deps.domains,
    sandbox: deps.sandbox,
    cacheable: deps.cacheable,
    progress: deps.progress,
    status: deps.status,
    ...(deps.remoteTasks === undefined ? {} : { remoteTasks: deps.remoteTasks }),
    ...(deps.remoteEdits === undefined ? {} : { remoteEdits: deps.remoteEdits }),
  };
}

/**
 * A failure of the harness itself (disk, database, git, a ledger row it could not write) halts the run as an
 * interrupt does: every generation stops at its step, writing nothing more, to be redone by --resume; the run
 * then fails with the first such error.
 */
function haltOnFailure(): { fail(error: Error): void; failure(): Error | null; halted: AbortSignal } {
  const halt = new AbortController();
  let first: Error | null = null;
  return {
    fail(error) {
      first ??= error;
      halt.abort();
    },
    failure: () => first,
    halted: halt.signal,
  };
}

/** The error a failed run ends with: the user's (unreachable model, initial agent) as it is, else described. */
function runFailure(error: unknown, runDir: string): unknown {
  if (error instanceof ModelUnreachableError || error instanceof InitialAgentError) return error;
  const message = describeHarnessError(error, variantRepoDir(runDir));
  return error instanceof Error && error.message === message ? error : new Error(message, { cause: error });
}

/**
 * Starts generations 1..N in order, at most `parallel` at once. Generation g starts once a slot is free and
 * every generation up to g − selectionLag(parallel) has finished, and its parent is drawn from those, so the
 * archive does not depend on which generation ended first. A harness error (git, disk, database) is handed
 * to `fail`, which halts the run: the generation it struck stays at its step, as an interrupted one does, so
 * that --resume redoes it and the run goes on as it would have without the fault.
 */
async function schedule(
  ctx: RunContext,
  spent: () => number,
  unreachable: () => string | null,
  fail: (error: Error) => void,
  controls: ControlWatch,
): Promise<void> {
  const { archive, config } = ctx;
  const running = new Map<number, Promise<void>>();
  let failed = false;
  const stopping = (): boolean => {
    if (failed || ctx.signal.aborted || ctx.gateway.budgetReached()) return true;
    const told = controls.poll();
    return told.stopAfter || overBudget(told.budgetUsd, spent());
  };
  const harnessError = (id: number | null, error: unknown): void => {
    if (ctx.signal.aborted) return;
    const message = describeHarnessError(error, variantRepoDir(ctx.runDir));
    failed = true;
    fail(error instanceof Error ? error : new Error(message));
    // Its step said what happened, and the archive has it.
    if (error instanceof StageUnfinishedError) return;
    ctx.progress(`${id === null ? 'run' : `variant ${id}`}: harness error: ${message}`);
    try {
      archive.logEvent(id, 'harness_error', { message });
    } catch {
      // The archive cannot be written either (a full disk): the terminal has the message.
    }
  };
  const launch = (id: number): void => {
    const run = advanceGeneration(ctx, id)
      .catch((error: unknown) => harnessError(id, error))
      .finally(() => {
        running.delete(id);
        const cannotReach = failed ? null : unreachable();
        if (cannotReach !== null) {
          const variant = archive.getVariant(id);
          const reason = `model unreachable: ${cannotReach}`;
          if (variant !== undefined && !isFinalStep(variant.step))
            failVariant(ctx, variant, 'failed', reason, 'harness');
          failed = true;
          fail(new ModelUnreachableError(cannotReach));
        }
        if (!ctx.signal.aborted) ctx.progress(progressLine(ctx, id, spent()));
      });
    running.set(id, run);
  };
  // Choosing a parent and inserting the variant write to the archive too: a failure there halts the run alike.
  try {
    for (let id = 1; id <= config.generations && !stopping(); id++) {
      const existing = archive.getVariant(id);
      if (existing !== undefined && isFinalStep(existing.step)) continue;
      for (;;) {
        const horizon = id - selectionLag(config.parallel);
        const full = running.size >= config.parallel;
        const waiting = [...running].filter(([other]) => full || other <= horizon).map(([, p]) => p);
        if (waiting.length === 0) break;
        await Promise.race(waiting);
      }
      if (stopping()) break;
      // A pause holds new generations; one a kill interrupted was under way, and goes on like the others.
      if (existing === undefined) await whilePaused(ctx, controls, stopping);
      if (stopping()) break;
      if (existing === undefined) {
        const parent = await chooseParent(ctx, id);
        const parentCommit = archive.getVariant(parent.id)?.commitSha ?? null;
        if (parentCommit === null) throw new Error(`parent ${parent.id} has no commit`);
        startGeneration(archive, { id, parent: parent.id, reason: parent.reason, parentCommit });
        ctx.progress(`variant ${id}: parent ${parent.id} (${parent.reason})`);
      } else {
        ctx.progress(`variant ${id}: resumed at the step "${existing.step}"`);
      }
      launch(id);
    }
  } catch (error) {
    harnessError(null, error);
  }
  await Promise.all(running.values());
}

/**
 * What a resumed run keeps of the controls it was given before: a pause, and a `budget` control's budget
 * unless this resume's --budget-usd changed the run's budget (the newer word wins). A `stop-after` is done.
 */
function carriedOver(archive: ReturnType<typeof openArchive>, budgetUsd: number | null): ControlState {
  const stored = (archive.getRun()?.config as { budgetUsd?: unknown } | undefined)?.budgetUsd ?? null;
  const carried = carriedControls(archive.listEvents(0));
  const flagChanged = budgetUsd !== stored;
  return {
    paused: carried.paused,
    stopAfter: false,
    budgetUsd: flagChanged ? null : carried.budgetUsd,
  };
}

/** A `budget` control set the budget at or below what the run has spent: it stops as at the budget. */
const overBudget = (budgetUsd: number | null, spentUsd: number): boolean =>
  budgetUsd !== null && spentUsd >= budgetUsd;

/** How often a paused run looks for `resume` (and `stop-after`, an interrupt) in its archive. */
const PAUSE_POLL_MS = 250;

/** Waits while the run is paused (`hyperagents control RUN pause`), until resumed or stopping. */
async function whilePaused(ctx: RunContext, controls: ControlWatch, stopping: () => boolean): Promise<void> {
  if (!controls.poll().paused) return;
  ctx.progress('paused: no new generation starts until `hyperagents control RUN resume`');
  while (controls.poll().paused && !stopping()) {
    await sleep(PAUSE_POLL_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
  }
  if (!stopping()) ctx.progress('resumed: generations start again');
}

/**
 * The variant repo, with variant 0 stored: a new run creates both (in one transaction on the archive's
 * side); a resumed run opens them, or creates them again if the earlier process was killed before variant 0
 * was stored.
 */
async function variantZero(
  archive: ReturnType<typeof openArchive>,
  runDir: string,
  config: RunConfig,
  nodeModules: string,
): Promise<{ repo: VariantRepo; rootCommit: string }> {
  const gitDir = variantRepoDir(runDir);
  const stored = archive.getVariant(0);
  if (stored?.commitSha != null) {
    // Every variant's code is in it: a new one would hold none of them (the resume command refuses this first).
    if (!existsSync(gitDir))
      throw new Error(`${gitDir} is missing: the run's variants cannot be checked out`);
    await git({ gitDir }, ['worktree', 'prune']);
    return { repo: openVariantRepo(gitDir, nodeModules), rootCommit: stored.commitSha };
  }
  rmSync(gitDir, { recursive: true, force: true });
  const agents = await initialAgents(config);
  try {
    const created = await createVariantRepo(gitDir, agents.dir, nodeModules);
    const codeHash = await created.repo.taskCodeHash(created.rootCommit);
    seedVariantZero(archive, { commit: created.rootCommit, codeHash, reason: agents.reason });
    return created;
  } finally {
    agents.cleanup();
  }
}

/**
 * Ends the run when variant 0 failed because none of its tasks could answer (see StageOutcome): the initial
 * agent answers on a working machine, so the sandbox or a limit of the run stopped every task, and every
 * generation would start from it. The message names the settings to change.
 */
function assertInitialAgentEvaluated(ctx: RunContext): void {
  const zero = ctx.archive.getVariant(0);
  if (zero?.step !== 'failed' || zero.failureCause !== 'infrastructure') return;
  const { limits, taskTimeoutSec, sandbox } = ctx.config;
  throw new InitialAgentError(
    `variant 0, the initial agent, has no score: ${zero.failureReason}. The initial agent answers these ` +
      "tasks on a working machine, so the sandbox or the run's limits stopped every task. Start a new run " +
      `with more room: --memory-mb (this run: ${limits.memoryMb}), --max-processes (${limits.processes}), ` +
      `--max-open-files (${limits.openFiles}), --task-timeout (${taskTimeoutSec} s); or another --sandbox ` +
      `(this run: ${sandbox}) if the sandbox does not work here. The log of every task is in ` +
      `${path.join(logDir(ctx, 0), TASK_AGENT_LOG)}.`,
  );
}

/**
 * Ends the run when a model could not be reached by its first calls; the variant those calls were for
 * is failed with that reason (its results are the infrastructure's failures, not answers).
 */
function stopIfUnreachable(
  archive: ReturnType<typeof openArchive>,
  id: number,
  unreachable: string | null,
): void {
  if (unreachable === null) return;
  const variant = archive.getVariant(id);
  if (variant !== undefined)
    failVariant({ archive }, variant, 'failed', `model unreachable: ${unreachable}`, 'harness');
  throw new ModelUnreachableError(unreachable);
}

/**
 * Why the run stopped before its end, recorded as a run event: an interrupt, the budget (with what was
 * spent and held; a `budget` control's when one was given), or a `stop-after` control; null when it ran to
 * its end.
 */
function recordStop(
  archive: ReturnType<typeof openArchive>,
  interrupted: boolean,
  gateway: Pick<TokenIssuer, 'budgetReached' | 'budgetStop'>,
  spentUsd: number,
  configBudgetUsd: number | null,
  controls: ControlWatch,
): string | null {
  if (interrupted) {
    archive.logEvent(null, 'interrupted', {});
    return 'interrupted';
  }
  const told = controls.state();
  const budgetUsd = told.budgetUsd ?? configBudgetUsd;
  if (gateway.budgetReached() || overBudget(told.budgetUsd, spentUsd)) {
    const stop = gateway.budgetStop();
    archive.logEvent(null, 'budget_reached', {
      spentUsd,
      budgetUsd,
      heldUsd: stop?.heldUsd ?? 0,
      nextCallUsd: stop?.nextUsd ?? null,
    });
    return budgetMessage(spentUsd, budgetUsd, stop);
  }
  if (!told.stopAfter) return null;
  archive.logEvent(null, 'stopped_after', { spentUsd });
  return STOPPED_AFTER;
}

/** How a run stopped by `hyperagents control RUN stop-after` reads in its summary. */
export const STOPPED_AFTER = 'stopped when asked (stop-after): the generations under way finished';
