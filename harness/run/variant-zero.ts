import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type Archive, isFinalStep, TASK_AGENT_LOG, variantRepoDir } from '../../archive/index.ts';
import { git } from '../../system/git.ts';
import { advanceGeneration, logDir, type RunContext, seedVariantZero } from '../generation/index.ts';
import { createVariantRepo, InitialAgentError, openVariantRepo, type VariantRepo } from '../process/index.ts';
import type { RunConfig } from './run-config.ts';
import { stopIfUnreachable } from './run-stop.ts';
import { progressLine } from './run-summary.ts';
import { measureNoiseFloor } from './scores-under-noise.ts';
import { initialAgents } from './transfer.ts';

/**
 * The variant repo, with variant 0 stored: a new run creates both (in one transaction on the archive's
 * side); a resumed run opens them, or creates them again if the earlier process was killed before variant 0
 * was stored.
 */
export async function variantZero(
  archive: Archive,
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
export function assertInitialAgentEvaluated(ctx: RunContext<RunConfig>): void {
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
 * Variant 0 taken to its end (a resumed run's, from the step it was in), then the noise floor measured on
 * it. Ends the run when a model could not be reached or the initial agent has no score.
 */
export async function evaluateVariantZero(
  ctx: RunContext<RunConfig>,
  unreachable: () => string | null,
  spent: () => number,
): Promise<void> {
  const zeroEnded = isFinalStep(ctx.archive.getVariant(0)?.step ?? 'full');
  await advanceGeneration(ctx, 0);
  stopIfUnreachable(ctx.archive, 0, unreachable());
  if (!ctx.signal.aborted) assertInitialAgentEvaluated(ctx);
  if (!zeroEnded && !ctx.signal.aborted) ctx.progress(progressLine(ctx, 0, spent()));
  await measureNoiseFloor(ctx);
}
