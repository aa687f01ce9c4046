import {
  type Archive,
  archiveFile,
  ensureControlSecret,
  type LlmCallInput,
  openArchive,
  openEvalCache,
} from '../../archive/index.ts';
import type { BatchRouter } from '../../llm/index.ts';
import type { BatchEndpoint, BatchRoundsOptions, DomainTasks } from '../evaluation/index.ts';
import { createEvalsFolders } from '../evaluation/index.ts';
import { frozenMetaDir, type RemoteEdits, type RemoteTasks, type TokenIssuer } from '../generation/index.ts';
import type { ResolvedSandbox } from '../process/index.ts';
import { describeEnforcement, killAll } from '../process/index.ts';
import { batchRounds } from './batch-wiring.ts';
import type { RunEstimate } from './estimate.ts';
import { ledgerWriter } from './ledger-writer.ts';
import { type RunAlerts, runAlerts } from './run-alerts.ts';
import { HARNESS_VERSION, type RunConfig, storedConfig } from './run-config.ts';
import { NODE_MODULES, openRunContext } from './run-context-open.ts';
import {
  type ControlState,
  type ControlWatch,
  carriedOver,
  NO_CONTROLS,
  watchControls,
} from './run-controls.ts';
import { observeArchive, type RunEvent } from './run-events.ts';
import { takeRunFolder, unlockRun } from './run-lock.ts';
import { schedule } from './run-schedule.ts';
import { alertEnd, haltOnFailure, recordFailure, recordStop } from './run-stop.ts';
import { type RunSummary, reportReplayMisses, summarize } from './run-summary.ts';
import { confirmTop } from './scores-under-noise.ts';
import { evaluateVariantZero, variantZero } from './variant-zero.ts';

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
      /** With `--batch`: the task model's batch endpoint (see gateway-wiring.ts). */
      batchEndpoint?: BatchEndpoint | null;
      useBatchRouter?(router: BatchRouter): void;
      reserveBatch?: BatchRoundsOptions['reserve'];
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

/** The gateway a run started (see RunDeps.startGateway). */
type RunGateway = Awaited<ReturnType<RunDeps['startGateway']>>;

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
  let gateway: RunGateway | undefined;
  const spent = (): number => spentBefore + (gateway?.spentUsd() ?? 0);
  let controls: ControlWatch | undefined;
  alerts = runAlerts(config, (type, data) => archive.recordEvent(null, type, data), {
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
    const ledger = ledgerWriter(archive, fail, emit);
    gateway = await deps.startGateway(runDir, ledger, remaining);
    const carried = recordStart(archive, plan, deps, spentBefore);
    controls = followControls(archive, carried, spentBefore, gateway, deps.progress);
    emit({
      type: 'run_started',
      generations: config.generations,
      controlSecret: ensureControlSecret(runDir),
    });
    const { repo, rootCommit } = await variantZero(archive, runDir, config, NODE_MODULES);
    const batch = batchRounds(archive, gateway, ledger, plan, deps.progress);
    const opened = { config, runId, runDir, archive, cache, repo, rootCommit, evals, gateway, signal };
    const ctx = openRunContext({ ...opened, ...batch, onEvent: emit, ...sharedDeps(deps) });
    const unreachable = (): string | null => gateway?.unreachable?.() ?? null;
    await evaluateVariantZero(ctx, unreachable, spent);
    if (config.freezeMeta && !signal.aborted) await repo.addWorktree(rootCommit, frozenMetaDir(ctx));
    await schedule(ctx, spent, unreachable, fail, controls);
    if (config.freezeMeta) await repo.removeWorktree(frozenMetaDir(ctx));
    // A run stopped by an interrupt, its budget or a failure confirms nothing: a resume that finishes it does.
    if (!signal.aborted && !gateway.budgetReached() && failure() === null) await confirmTop(ctx);
    const stopped = recordStop(archive, deps.signal.aborted, gateway, spent(), config.budgetUsd, controls);
    const failed = failure();
    if (failed !== null && !deps.signal.aborted) throw failed;
    reportReplayMisses(gateway.replayMisses(), config.replay, deps.progress);
    archive.finishRun(stopped === null ? 'done' : 'stopped');
    const summary = summarize(ctx, deps.simulated, stopped);
    alertEnd(alerts, stopped, summary);
    return summary;
  } catch (thrown) {
    // The first harness failure is the cause; what failed after it (the run halted) only followed from it.
    throw recordFailure(archive, failure() ?? thrown, deps.signal.aborted, runDir, alerts);
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

/**
 * The run recorded as it starts: a new run with its configuration and sandbox, a resumed one reopened with
 * what it carries over; with the estimate printed before it. Returns the controls carried over.
 */
function recordStart(archive: Archive, plan: RunPlan, deps: RunDeps, spentBefore: number): ControlState {
  const { config, runId } = plan;
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
    archive.recordEvent(null, 'resumed', { pid: process.pid, spentUsd: spentBefore, carried });
  }
  if (deps.estimate) {
    const { generations, resumed, calls, usd, seconds, from, lines } = deps.estimate;
    const recorded = { generations, resumed, calls, usd, seconds, from, lines, spentUsd: spentBefore };
    archive.recordEvent(null, 'estimate', recorded);
  }
  return carried;
}

/** Controls recorded from here on reach this process (hyperagents control, the browser's buttons). */
function followControls(
  archive: Archive,
  carried: ControlState,
  spentBefore: number,
  gateway: RunGateway,
  progress: (line: string) => void,
): ControlWatch {
  const onBudget = (usd: number): void => {
    progress(`control: the budget is now $${usd.toFixed(4)} for the whole run`);
    gateway.setBudgetUsd?.(usd - spentBefore);
  };
  const controls = watchControls(archive, archive.lastEventId(), onBudget, carried);
  if (carried.budgetUsd !== null) onBudget(carried.budgetUsd);
  if (carried.paused)
    progress(
      'the run was paused before it stopped and stays paused: `hyperagents control RUN resume` starts it again',
    );
  return controls;
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
