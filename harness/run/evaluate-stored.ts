import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  archiveFile,
  type LlmCallInput,
  openArchive,
  openEvalCache,
  runEvalCacheFile,
  variantLogDir,
  variantRepoDir,
} from '../../archive/index.ts';
import type { Split } from '../../domains/index.ts';
import {
  createEvalsFolders,
  type DomainTasks,
  evaluateStage,
  scoresBySplit,
  type TaskPool,
} from '../evaluation/index.ts';
import type { RunContext, TokenIssuer } from '../generation/index.ts';
import { openSession } from '../generation/index.ts';
import type { ResolvedSandbox, VariantRepo } from '../process/index.ts';
import { describeHarnessError, killAll, openVariantRepo } from '../process/index.ts';
import { ledgerWriter } from './ledger-writer.ts';
import type { RunConfig } from './run-config.ts';
import { NODE_MODULES, openRunContext } from './run-context-open.ts';
import { clearDeadEvals, evalFolderName, evalSocketPrefix } from './run-lock.ts';

export interface StoredEvaluation {
  runDir: string;
  runId: string;
  variantId: number;
  commit: string;
  codeHash: string;
  /** The run's stored configuration: models, seed and timeouts come from it. */
  config: RunConfig;
  /** The domains to evaluate on, each cut to the one split asked for. */
  domains: DomainTasks[];
  split: Split;
  evalWorkers: number;
  sandbox: ResolvedSandbox;
  cacheable: boolean;
  /** Starts a gateway whose socket is in `socketDir`. */
  startGateway(
    socketDir: string,
    onCall: (row: LlmCallInput) => void,
  ): Promise<TokenIssuer & { close(): Promise<void> }>;
  status(text: string): void;
  /** Told what was cleaned up after evaluations that were killed. */
  progress(line: string): void;
  signal: AbortSignal;
}

/**
 * How an evaluation of a stored variant ended: scored (its scores by domain and split afterwards), or with no
 * score stored for the split: interrupted (the task results that finished are kept, and the next evaluation
 * does not ask them again), or with tasks failed for the infrastructure: every one (unanswered) or some
 * (unfinished: those have no result, and the next evaluation runs them again); see StageOutcome.
 */
export type StoredEvaluationOutcome =
  | { kind: 'scored'; scores: ReturnType<typeof scoresBySplit> }
  | { kind: 'interrupted' }
  | { kind: 'unanswered'; reason: string }
  | { kind: 'unfinished'; failed: number; reason: string };

/**
 * Evaluates one stored variant of a run on `split` of each domain, writing task results and evaluation rows
 * into that run's archive (stage `full`). Its selection score is not changed: a test score never steers a run.
 */
export async function evaluateStoredVariant(job: StoredEvaluation): Promise<StoredEvaluationOutcome> {
  const repo = openVariantRepo(variantRepoDir(job.runDir), NODE_MODULES);
  await clearKilledEvaluations(job, repo);
  const archive = openArchive(archiveFile(job.runDir));
  const cache = openEvalCache(runEvalCacheFile(job.runDir));
  // Its own socket folder: the run may be running beside it with its gateway on the run's socket.
  const socketDir = mkdtempSync(path.join(tmpdir(), evalSocketPrefix()));
  // A write the harness cannot make (a full disk) stops the evaluation as an interrupt does, and is then thrown.
  const halt = new AbortController();
  let failure: Error | null = null;
  const signal = AbortSignal.any([job.signal, halt.signal]);
  const gateway = await job.startGateway(
    socketDir,
    ledgerWriter(archive, (error) => {
      failure ??= error;
      halt.abort();
      killAll();
    }),
  );
  const ctx = openRunContext({
    config: { ...job.config, evalWorkers: job.evalWorkers, evalTest: job.split === 'test' },
    runId: job.runId,
    runDir: job.runDir,
    archive,
    cache,
    repo,
    rootCommit: job.commit,
    domains: job.domains,
    // No MetaAgent runs here, so no evals folder is ever written.
    evals: createEvalsFolders(archive, job.domains, { reuse: false }),
    gateway,
    sandbox: job.sandbox,
    onEvent: () => undefined,
    cacheable: job.cacheable,
    progress: () => undefined,
    status: job.status,
    signal,
  });
  mkdirSync(variantLogDir(job.runDir, job.variantId), { recursive: true });
  const session = openSession(ctx, job.variantId, evalFolderName(job.variantId));
  try {
    await session.checkout(job.commit);
    return await evaluateSplit(job, ctx, await session.pool(), () => failure);
  } catch (error) {
    const message = describeHarnessError(failure ?? error, variantRepoDir(job.runDir));
    throw new Error(message, { cause: failure ?? error });
  } finally {
    try {
      await session.close();
    } finally {
      await gateway.close();
      rmSync(socketDir, { recursive: true, force: true });
      cache.close();
      archive.close();
    }
  }
}

/** Cleans up after evaluations of this run that were killed, and says so. */
async function clearKilledEvaluations(job: StoredEvaluation, repo: VariantRepo): Promise<void> {
  const cleared = await clearDeadEvals(job.runDir, (worktree) => repo.removeWorktree(worktree));
  if (cleared.length === 0) return;
  const which =
    cleared.length === 1
      ? `a killed evaluation (process ${cleared[0]})`
      : `${cleared.length} killed evaluations (processes ${cleared.join(', ')})`;
  job.progress(`Removed the worktree, build folder and agent processes left by ${which} in ${job.runDir}.`);
}

/**
 * Evaluates the checked-out variant on the split, between its `eval_started` and `eval_finished` events;
 * throws the harness's `failure` (a write it could not make) instead of finishing.
 */
async function evaluateSplit(
  job: StoredEvaluation,
  ctx: RunContext,
  pool: TaskPool,
  failure: () => Error | null,
): Promise<StoredEvaluationOutcome> {
  const { archive } = ctx;
  archive.recordEvent(job.variantId, 'eval_started', {
    domains: job.domains.map((d) => d.domain.name),
    split: job.split,
  });
  const outcome = await evaluateStage(
    {
      archive,
      cache: ctx.cache,
      pool,
      variantId: job.variantId,
      codeHash: job.codeHash,
      taskModel: job.config.taskModel,
      seed: job.config.seed,
      cacheable: job.cacheable,
      grading: ctx.grading,
      settings: ctx.taskSettings,
      limit: ctx.taskLimit,
      signal: ctx.signal,
      onTask: (done, total) => job.status(`variant ${job.variantId}: ${done}/${total} tasks`),
    },
    job.domains,
    'full',
    job.split === 'test',
  );
  job.status('');
  const failed = failure();
  if (failed !== null) throw failed;
  archive.recordEvent(job.variantId, 'eval_finished', {
    split: job.split,
    interrupted: outcome.kind === 'interrupted',
    ...(outcome.kind === 'unanswered' ? { unanswered: outcome.reason } : {}),
    ...(outcome.kind === 'unfinished' ? { unfinished: outcome.reason } : {}),
  });
  if (outcome.kind !== 'scored') return outcome;
  return { kind: 'scored', scores: scoresBySplit(archive.listEvaluations(job.variantId)) };
}
