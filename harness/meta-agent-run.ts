import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { FailureCause, VariantRow } from '../archive/archive.ts';
import { agentCommand, agentEnv, runToCompletion } from './agent-processes.ts';
import { copyAgentFile } from './capped-output.ts';
import { evalsFoldersOf } from './evals-folder.ts';
import { harnessLog, META_ENTRY } from './generation-session.ts';
import { MIB } from './resource-limits.ts';
import { logDir, type RunContext } from './run-context.ts';
import type { SandboxPolicy } from './sandbox.ts';

export type EditOutcome = { ok: true } | { ok: false; reason: string; cause: FailureCause };

export const frozenMetaDir = (ctx: Pick<RunContext, 'runDir'>): string =>
  path.join(ctx.runDir, 'worktrees', 'frozen-meta');

/**
 * Runs the parent's MetaAgent (or, with --freeze-meta, the initial one) on `worktree`, shown the parent's
 * evaluations in a folder it can only read (removed afterwards, or kept for the next one to update). A
 * failure's cause is what the harness knows, not what the agent printed: a timeout the harness set, else
 * the agent's own failure. (A budget refusal is read from the ledger by the caller.)
 */
export async function editWithMetaAgent(
  ctx: RunContext,
  variant: VariantRow,
  worktree: string,
): Promise<EditOutcome> {
  const id = variant.id;
  const logs = logDir(ctx, id);
  const evalsDir = path.join(ctx.runDir, 'evals', `variant-${id}`);
  // Kept for the next MetaAgent only where the sandbox mounts it read-only (it cannot have changed).
  const evals = evalsFoldersOf(ctx.archive, ctx.domains, { reuse: ctx.sandbox.kind === 'bwrap' });
  evals.write(evalsDir, variant.parent_id ?? 0);
  const token = ctx.gateway.issueToken({
    runId: ctx.runId,
    variantId: id,
    role: 'meta',
    model: ctx.config.metaModel,
  });
  // The MetaAgent writes its transcript here, never into the harness's log folder; the harness copies it.
  const agentOut = path.join(ctx.runDir, 'agent-output', `variant-${id}`);
  rmSync(agentOut, { recursive: true, force: true });
  mkdirSync(agentOut, { recursive: true });
  try {
    const metaRoot = ctx.config.freezeMeta ? frozenMetaDir(ctx) : worktree;
    const env = agentEnv(
      { url: ctx.gateway.url, token },
      { HYPERAGENTS_TRANSCRIPT: path.join(agentOut, 'meta-transcript.json') },
    );
    const policy: SandboxPolicy = {
      workdir: worktree,
      writable: true,
      readOnly: [ctx.nodeModules, evalsDir, ...(ctx.config.freezeMeta ? [metaRoot] : [])],
      readWrite: [agentOut],
      ...(ctx.gateway.socketPath === null ? {} : { gatewaySocket: ctx.gateway.socketPath }),
      limits: ctx.config.limits,
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
    ctx.archive.logEvent(id, 'meta_started', { parent: variant.parent_id });
    const finished = await runToCompletion(command, {
      ...harnessLog(ctx, path.join(logs, 'meta-agent.log')),
      timeoutMs: ctx.config.metaTimeoutSec * 1000,
      diskWatch: { dir: worktree, maxBytes: ctx.config.limits.diskMb * MIB },
    });
    const refused = copyAgentFile(
      path.join(agentOut, 'meta-transcript.json'),
      path.join(logs, 'meta-transcript.json'),
      ctx.config.limits.outputKb * 1024,
      ctx.archive.redact,
    );
    if (refused !== null) ctx.archive.logEvent(id, 'transcript_refused', { reason: refused });
    ctx.archive.logEvent(id, 'meta_finished', { exitCode: finished.exitCode, timedOut: finished.timedOut });
    if (finished.overLimit !== null) {
      return { ok: false, reason: `MetaAgent stopped: it ${finished.overLimit}`, cause: 'agent' };
    }
    if (finished.exitCode === 0) return { ok: true };
    if (finished.timedOut) {
      return {
        ok: false,
        reason: `MetaAgent timed out after ${ctx.config.metaTimeoutSec} s`,
        cause: 'timeout',
      };
    }
    return {
      ok: false,
      reason: `MetaAgent exited with code ${finished.exitCode}: ${finished.tail.split('\n').slice(-3).join(' | ')}`,
      cause: 'agent',
    };
  } finally {
    ctx.gateway.revokeToken(token);
    evals.release(evalsDir);
    rmSync(agentOut, { recursive: true, force: true });
  }
}
