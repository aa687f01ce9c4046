import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { type Archive, type LlmCallInput, openArchive } from '../archive/archive.ts';
import { openEvalCache } from '../archive/eval-cache.ts';
import type { LoopConfig } from '../cli/loop-args.ts';
import { ALL_SPLITS } from '../domains/define-domain.ts';
import { loadDomain } from '../domains/discover.ts';
import { createRng } from '../domains/rng.ts';
import { killAll } from './child-processes.ts';
import type { DomainTasks } from './evaluate.ts';
import { ModelUnreachableError } from './first-contact.ts';
import { evaluateInitial, runGeneration } from './generation.ts';
import { describeHarnessError } from './harness-error.ts';
import type { RunContext, TokenIssuer } from './run-context.ts';
import { observeArchive, type RunEvent } from './run-events.ts';
import type { ResolvedSandbox } from './sandbox.ts';
import { scoresBySplit } from './scoring.ts';
import { type Candidate, selectParent } from './selection.ts';
import { createVariantRepo } from './variant-repo.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const HARNESS_VERSION = '0.1.0';
const MAX_HARNESS_ERRORS_IN_A_ROW = 3;

export interface RunSummary {
  runId: string;
  runDir: string;
  model: string;
  simulated: boolean;
  generations: number;
  variants: {
    id: number;
    parent: number | null;
    commit: string | null;
    status: string;
    validParent: boolean;
    score: number | null;
    scores: Record<string, Partial<Record<'train' | 'val' | 'test', number>>>;
    failureReason: string | null;
  }[];
  best: { id: number; score: number } | null;
  costUsd: number;
  llmCalls: number;
  stopped: string | null;
}

export function defaultRunId(now = new Date()): string {
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  return (
    `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-` +
    `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}-${pad(now.getMilliseconds(), 3)}`
  );
}

/** Loads each domain's tasks, cut to `--eval-samples`, with `--staged-samples` applied. */
export async function loadDomainTasks(config: LoopConfig): Promise<DomainTasks[]> {
  const out: DomainTasks[] = [];
  for (const name of config.domains) {
    const loaded = await loadDomain(name);
    const domain =
      config.stagedSamples === null ? loaded : { ...loaded, stagedSamples: config.stagedSamples };
    const splits: DomainTasks['splits'] = {};
    for (const split of ALL_SPLITS) {
      if (!domain.splits.includes(split)) continue;
      const tasks = await domain.load(split);
      splits[split] = config.evalSamples === null ? tasks : tasks.slice(0, config.evalSamples);
    }
    out.push({ domain, splits });
  }
  return out;
}

export interface RunDeps {
  domains: DomainTasks[];
  sandbox: ResolvedSandbox;
  simulated: boolean;
  cacheable: boolean;
  /** Starts the gateway for this run (socket inside the run folder). */
  startGateway(
    runDir: string,
    onCall: (row: LlmCallInput) => void,
  ): Promise<TokenIssuer & { close(): Promise<void>; unreachable?(): string | null }>;
  progress(line: string): void;
  status(text: string): void;
  /** Told of each stage, step, task and model call as the run goes (for a live progress display). */
  onEvent?(event: RunEvent): void;
}

/**
 * Runs the whole loop: variant 0, then `generations` children, and returns the summary. The run folder
 * must not exist yet (the caller checked that, and everything else, before calling).
 */
export async function runLoop(config: LoopConfig, runId: string, deps: RunDeps): Promise<RunSummary> {
  const runDir = path.join(config.out, runId);
  const repoDir = path.join(runDir, 'variants.git');
  for (const sub of ['logs', 'worktrees', 'evals']) mkdirSync(path.join(runDir, sub), { recursive: true });
  const emit = (event: RunEvent): void => deps.onEvent?.(event);
  const archive = observeArchive(openArchive(path.join(runDir, 'archive.sqlite')), emit);
  const cache = openEvalCache(path.join(config.out, 'eval-cache.sqlite'));
  const gateway = await deps.startGateway(runDir, (row) => {
    archive.insertLlmCall(row);
    emit({ type: 'llm_call', variant: row.variantId, role: row.role, costUsd: row.costUsd });
  });
  const stopOnSignal = (signal: NodeJS.Signals): void => {
    interrupt(archive, signal, deps.progress);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    archive.createRun({
      id: runId,
      harnessVersion: HARNESS_VERSION,
      seed: config.seed,
      metaModel: config.metaModel,
      taskModel: config.taskModel,
      simulated: deps.simulated,
      domains: config.domains,
      config,
    });
    emit({ type: 'run_started', generations: config.generations });
    const nodeModules = path.join(PROJECT_ROOT, 'node_modules');
    const { repo, rootCommit } = await createVariantRepo(
      repoDir,
      path.join(PROJECT_ROOT, 'agents'),
      nodeModules,
    );
    const ctx: RunContext = {
      config,
      runId,
      runDir,
      nodeModules,
      archive,
      cache,
      repo,
      rootCommit,
      domains: deps.domains,
      gateway,
      sandbox: deps.sandbox,
      cacheable: deps.cacheable,
      progress: deps.progress,
      status: deps.status,
      onEvent: emit,
      stopReason: null,
    };
    await evaluateInitial(ctx);
    stopIfUnreachable(archive, 0, gateway.unreachable?.() ?? null);
    if (config.freezeMeta) await repo.addWorktree(rootCommit, path.join(runDir, 'worktrees', 'frozen-meta'));

    const limit = pLimit(config.parallel);
    let nextId = 1;
    let harnessErrors = 0;
    const budgetStop = (): void => {
      if (ctx.stopReason === null && gateway.budgetReached())
        ctx.stopReason = budgetMessage(gateway.spentUsd(), config.budgetUsd);
    };
    budgetStop();
    await Promise.all(
      Array.from({ length: config.generations }, () =>
        limit(async () => {
          budgetStop();
          if (ctx.stopReason !== null) return;
          const id = nextId++;
          const parent = pickParent(ctx, id);
          try {
            await runGeneration(ctx, id, parent.id, parent.reason);
            harnessErrors = 0;
          } catch (error) {
            // One generation's harness failure (git, disk, a process that cannot start) is recorded and
            // the run goes on; several in a row mean the machine is broken, so the run stops. A variant
            // that was already done keeps its result.
            const { message, fatal } = describeHarnessError(error, repoDir);
            if (archive.getVariant(id)?.state !== 'done') {
              archive.updateVariant(id, {
                state: 'failed',
                status: 'failed',
                failureReason: `harness error: ${message}`,
              });
            }
            archive.logEvent(id, 'harness_error', { message });
            deps.progress(`variant ${id}: harness error: ${message}`);
            if (fatal) ctx.stopReason = message;
            if (fatal || ++harnessErrors >= MAX_HARNESS_ERRORS_IN_A_ROW)
              throw new Error(message, { cause: error });
          }
          stopIfUnreachable(archive, id, gateway.unreachable?.() ?? null);
          deps.progress(progressLine(ctx, id, gateway.spentUsd()));
          budgetStop();
        }),
      ),
    );
    if (gateway.budgetReached()) {
      // Calls in flight when the budget stopped the run have settled since: report the final spend.
      ctx.stopReason = budgetMessage(gateway.spentUsd(), config.budgetUsd);
      archive.logEvent(null, 'budget_reached', { spentUsd: gateway.spentUsd(), budgetUsd: config.budgetUsd });
    }
    const misses = gateway.replayMisses();
    if (misses > 0) {
      deps.progress(
        `replay: ${misses} call(s) had no recorded response in ${config.replay}; they failed, so this run ` +
          'differs from the recorded one.',
      );
    }
    if (config.freezeMeta) await repo.removeWorktree(path.join(runDir, 'worktrees', 'frozen-meta'));
    archive.finishRun(ctx.stopReason === null ? 'done' : 'stopped');
    return summarize(ctx, deps.simulated);
  } catch (error) {
    archive.finishRun('failed');
    if (error instanceof ModelUnreachableError) throw error;
    const { message } = describeHarnessError(error, repoDir);
    throw error instanceof Error && error.message === message ? error : new Error(message, { cause: error });
  } finally {
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
    await gateway.close();
    cache.close();
    archive.close();
  }
}

/**
 * On Ctrl-C or SIGTERM: end every agent process, mark unfinished generations failed (they are never
 * counted), and leave the archive consistent. Synchronous, so it completes inside the signal handler.
 */
function interrupt(archive: Archive, signal: NodeJS.Signals, progress: (line: string) => void): void {
  const killed = killAll();
  for (const v of archive.listVariants()) {
    if (v.state !== 'done' && v.state !== 'failed') {
      archive.updateVariant(v.id, {
        state: 'failed',
        status: 'failed',
        failureReason: `interrupted by ${signal}`,
      });
    }
  }
  archive.logEvent(null, 'interrupted', { signal, killedProcesses: killed });
  archive.finishRun('stopped');
  archive.close();
  progress(
    `Interrupted by ${signal}: stopped ${killed} agent process(es); finished variants are kept in ${archive.file}.`,
  );
}

/**
 * Ends the run when a model could not be reached by its first calls; the variant those calls were for
 * is failed with that reason (its results are the infrastructure's failures, not answers).
 */
function stopIfUnreachable(archive: Archive, id: number, unreachable: string | null): void {
  if (unreachable === null) return;
  const reason = `model unreachable: ${unreachable}`;
  archive.updateVariant(id, { state: 'failed', status: 'failed', validParent: false, failureReason: reason });
  archive.logEvent(id, 'failed', { status: 'failed', reason });
  throw new ModelUnreachableError(unreachable);
}

/** The stop reason, and the final line, of a run the budget ended. */
function budgetMessage(spentUsd: number, budgetUsd: number | null): string {
  return `budget reached: $${spentUsd.toFixed(4)} of $${(budgetUsd ?? 0).toFixed(4)} spent`;
}

/** One line after each generation: how it ended, the best so far, and the spend. */
function progressLine(ctx: RunContext, id: number, spentUsd: number): string {
  const variant = ctx.archive.getVariant(id);
  const score = variant?.state === 'done' ? variant.selection_score : null;
  const best = candidates(ctx).reduce<Candidate | null>(
    (b, c) => (b === null || c.score > b.score ? c : b),
    null,
  );
  return (
    `generation ${id}/${ctx.config.generations}: ${variant?.status ?? 'unknown'}` +
    (score === null ? '' : ` score ${score.toFixed(3)}`) +
    ` | best: variant ${best?.id ?? '-'} (${best?.score.toFixed(3) ?? '-'}) | spent $${spentUsd.toFixed(4)}`
  );
}

/** Candidates are valid variants with a score; their children are counted over the whole archive. */
export function candidates(ctx: Pick<RunContext, 'archive'>): Candidate[] {
  const variants = ctx.archive.listVariants();
  const out: Candidate[] = [];
  for (const v of variants) {
    if (!v.valid_parent || v.state !== 'done') continue;
    const score = v.selection_score;
    if (score === null) continue;
    out.push({ id: v.id, score, children: variants.filter((c) => c.parent_id === v.id).length });
  }
  return out;
}

function pickParent(ctx: RunContext, id: number): { id: number; reason: string } {
  const pool = candidates(ctx);
  if (pool.length === 0) return { id: 0, reason: 'no valid parent yet: the initial agent' };
  return selectParent(pool, ctx.config.parentSelection, createRng(`select:${ctx.config.seed}:${id}`));
}

function summarize(ctx: RunContext, simulated: boolean): RunSummary {
  const variants = ctx.archive.listVariants().map((v) => {
    const evaluations = ctx.archive.listEvaluations(v.id);
    return {
      id: v.id,
      parent: v.parent_id,
      commit: v.commit_sha,
      status: v.status,
      validParent: v.valid_parent,
      score: v.state === 'done' ? v.selection_score : null,
      scores: scoresBySplit(evaluations),
      failureReason: v.failure_reason,
    };
  });
  let best: RunSummary['best'] = null;
  for (const v of variants) {
    if (v.score !== null && (best === null || v.score > best.score)) best = { id: v.id, score: v.score };
  }
  const totals = ctx.archive.llmTotals();
  return {
    runId: ctx.runId,
    runDir: ctx.runDir,
    model:
      ctx.config.metaModel === ctx.config.taskModel
        ? ctx.config.metaModel
        : `meta=${ctx.config.metaModel} task=${ctx.config.taskModel}`,
    simulated,
    generations: variants.length - 1,
    variants,
    best,
    costUsd: totals.costUsd,
    llmCalls: totals.calls,
    stopped: ctx.stopReason,
  };
}

export const runExists = (out: string, runId: string): boolean => existsSync(path.join(out, runId));
