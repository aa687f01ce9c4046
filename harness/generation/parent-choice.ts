import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { worktreesDir } from '../../archive/index.ts';
import { createRng } from '../../system/rng.ts';
import { finishedVariants } from '../evaluation/index.ts';
import { agentCommand, agentEnv, runToCompletion } from '../process/index.ts';
import { harnessLog, taskPolicy } from './generation-session.ts';
import { logDir, type RunContext } from './run-context.ts';
import {
  type ArchivedVariant,
  type Candidate,
  type Selection,
  selectionPool,
  selectParent,
} from './selection.ts';

export const SELECT_ENTRY = 'agents/select-parent.ts';
const SELECT_TIMEOUT_MS = 300_000;

/** The archive as parent selection sees it. */
export function archivedVariants(ctx: Pick<RunContext, 'archive'>): ArchivedVariant[] {
  return finishedVariants(ctx.archive)
    .variants()
    .map((v) => ({
      id: v.id,
      parentId: v.parentId,
      score: v.step === 'done' ? v.selectionScore : null,
      blamesParent: v.step === 'failed' && v.failureCause === 'agent',
    }));
}

/**
 * The candidates with the graded answers behind each score (for `lcb`): the tasks of its selection splits'
 * evaluations (the full stage's where it has one), times the attempts per task.
 */
function withSamples(ctx: RunContext, pool: Candidate[]): Candidate[] {
  if (ctx.config.parentSelection !== 'lcb') return pool;
  return pool.map((c) => {
    const rows = ctx.archive.listEvaluations(c.id).filter((e) => e.split !== 'train' && e.split !== 'test');
    const full = rows.filter((e) => e.stage === 'full');
    const tasks = (full.length > 0 ? full : rows).reduce((sum, e) => sum + e.nTasks, 0);
    return tasks > 0 ? { ...c, samples: tasks * ctx.config.evalRepeats } : c;
  });
}

/**
 * The candidates with whether each one's lineage was decided better at every step (for `confirmed_better`):
 * variant 0 is, and a child is when its own decision is `better` and its parent's lineage is.
 */
function withConfirmations(ctx: RunContext, pool: Candidate[]): Candidate[] {
  if (ctx.config.parentSelection !== 'confirmed_better') return pool;
  const accepted = ctx.archive.listAcceptance();
  const parents = new Map(ctx.archive.listVariants().map((v) => [v.id, v.parentId]));
  const confirmed = (id: number): boolean => {
    const parent = parents.get(id) ?? null;
    if (parent === null) return true;
    return accepted.get(id)?.decision === 'better' && confirmed(parent);
  };
  return pool.map((c) => ({ ...c, confirmed: confirmed(c.id) }));
}

/**
 * The parent of generation `id`: drawn by the configured strategy from the variants finished up to
 * `id − selectionLag(parallel)`, seeded by the run's seed and `id`. With --edit-select-parent the newest candidate's own
 * `agents/select-parent.ts` chooses instead; if it fails, the strategy does and the reason says why.
 */
export async function chooseParent(ctx: RunContext, id: number): Promise<Selection> {
  const pool = withConfirmations(
    ctx,
    withSamples(ctx, selectionPool(archivedVariants(ctx), id, ctx.config.parallel)),
  );
  if (pool.length === 0) return { id: 0, reason: 'no valid parent yet: the initial agent' };
  const drawn = (): Selection =>
    selectParent(pool, ctx.config.parentSelection, createRng(`select:${ctx.config.seed}:${id}`));
  if (!ctx.config.editSelectParent) return drawn();
  const chooser = pool[pool.length - 1]!;
  const chosen = await runSelectParent(ctx, id, chooser.id, pool);
  if (chosen.ok) return { id: chosen.id, reason: `select-parent.ts of variant ${chooser.id}` };
  ctx.archive.recordEvent(id, 'select_parent_failed', { chooser: chooser.id, reason: chosen.reason });
  const fallback = drawn();
  return {
    id: fallback.id,
    reason: `${fallback.reason} (select-parent.ts of variant ${chooser.id} failed: ${chosen.reason})`,
  };
}

/**
 * Runs a variant's select-parent.ts in the sandbox, read-only, in a worktree of its commit, with the
 * candidates as JSON on stdin. Its answer must be the id of one of them, on the last line of stdout.
 */
async function runSelectParent(
  ctx: RunContext,
  id: number,
  chooserId: number,
  pool: readonly Candidate[],
): Promise<{ ok: true; id: number } | { ok: false; reason: string }> {
  const commit = ctx.archive.getVariant(chooserId)?.commitSha;
  if (commit == null) return { ok: false, reason: 'it has no commit' };
  const worktree = path.join(worktreesDir(ctx.runDir), `select-${id}`);
  const variants = ctx.archive.listVariants();
  const summary = {
    generation: id,
    candidates: pool.map((c) => ({
      id: c.id,
      parent: variants.find((v) => v.id === c.id)?.parentId ?? null,
      score: c.score,
      children: c.children,
    })),
  };
  mkdirSync(logDir(ctx, id), { recursive: true });
  await ctx.repo.addWorktree(commit, worktree);
  try {
    const command = agentCommand(
      ctx.sandbox,
      taskPolicy(ctx, worktree),
      SELECT_ENTRY,
      [],
      agentEnv({ url: '', token: 'none' }),
    );
    const finished = await runToCompletion(command, {
      ...harnessLog(ctx, path.join(logDir(ctx, id), 'select-parent.log')),
      timeoutMs: SELECT_TIMEOUT_MS,
      input: JSON.stringify(summary),
    });
    if (finished.timedOut) return { ok: false, reason: `it timed out after ${SELECT_TIMEOUT_MS / 1000} s` };
    if (finished.exitCode !== 0) {
      return {
        ok: false,
        reason: `it exited with code ${finished.exitCode}: ${errorLine(finished.tail)}`,
      };
    }
    const last = finished.stdout.trim().split('\n').pop() ?? '';
    const picked = z.coerce.number().int().safeParse(last.trim());
    if (!picked.success || !pool.some((c) => c.id === picked.data)) {
      return { ok: false, reason: `it printed "${last.slice(0, 80)}", which is not the id of a candidate` };
    }
    return { ok: true, id: picked.data };
  } finally {
    await ctx.repo.removeWorktree(worktree);
  }
}

/** The line of an output that names the error (a thrown Error's message), else its last line. */
function errorLine(tail: string): string {
  const lines = tail.split('\n').filter((l) => l.trim() !== '');
  return (lines.find((l) => /\b\w*Error\b/.test(l)) ?? lines.at(-1) ?? '').trim().slice(0, 200);
}
