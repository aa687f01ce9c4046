import path from 'node:path';
import type { VariantRow } from '../../archive/index.ts';
import { META_TRANSCRIPT } from '../../archive/index.ts';
import { openCappedLog, writeAgentText } from '../process/index.ts';
import { type EditOutcome, editVerdict, iterationsLeft, writeEvals } from './meta-agent-run.ts';
import { logDir, type RemoteEdits, type RunContext } from './run-context.ts';

/**
 * The `editing` step's work done on a queue worker (`--remote-generations`): the same evals folder is
 * written here and sent, the parent's MetaAgent runs on a copy of the parent's commit there, and its edit
 * comes back as a diff that is applied to `worktree` (checked out at the parent's commit), which the step then
 * checks and commits exactly as it does a local edit. The log, transcript and events are those of a local run,
 * plus the worker's name.
 */
export async function editOnWorker(
  ctx: RunContext,
  remote: RemoteEdits,
  variant: VariantRow,
  worktree: string,
): Promise<EditOutcome> {
  const id = variant.id;
  const parentCommit = variant.parentCommit;
  if (parentCommit === null) throw new Error(`variant ${id} has no stored parent commit`);
  const logs = logDir(ctx, id);
  const evalsDir = writeEvals(ctx, variant);
  try {
    ctx.archive.recordEvent(id, 'meta_started', { parent: variant.parentId, queued: true });
    const reply = await remote.edit(ctx, {
      variantId: id,
      parentCommit,
      metaCommit: ctx.config.freezeMeta ? ctx.rootCommit : parentCommit,
      evalsDir,
      iterationsLeft: iterationsLeft(ctx, id),
    });
    // Not the agent's failure and not a result: the run halts, and a resume runs the edit again.
    if (reply.kind === 'infra') throw new Error(`the MetaAgent's queue job did not finish: ${reply.reason}`);
    const cap = ctx.config.limits.outputKb * 1024;
    const log = openCappedLog(path.join(logs, 'meta-agent.log'), cap, ctx.archive.redact);
    log.write(reply.log);
    log.close();
    const failure = log.failure();
    if (failure !== null)
      throw new Error(`could not write the MetaAgent's log: ${failure.message}`, { cause: failure });
    if (reply.transcript !== null) {
      const refused = writeAgentText(
        path.join(logs, META_TRANSCRIPT),
        reply.transcript,
        cap,
        ctx.archive.redact,
      );
      if (refused !== null) ctx.archive.recordEvent(id, 'transcript_refused', { reason: refused });
    }
    ctx.archive.recordEvent(id, 'meta_finished', {
      exitCode: reply.exitCode,
      timedOut: reply.timedOut,
      worker: reply.worker,
    });
    const verdict = editVerdict(
      { ...reply, tail: ctx.archive.redact(reply.tail) },
      ctx.config.metaTimeoutSec,
    );
    if (!verdict.ok) return verdict;
    if (reply.refused !== null) return { ok: true, refused: reply.refused };
    await ctx.repo.applyPatch(worktree, reply.patch);
    return verdict;
  } finally {
    ctx.evals.release(evalsDir);
  }
}
