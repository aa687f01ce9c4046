import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { FailureCause, VariantRow } from '../../archive/index.ts';
import {
  agentOutputDir,
  buildsDir,
  META_TRANSCRIPT,
  evalsDir as runEvalsDir,
  variantFolder,
  worktreesDir,
} from '../../archive/index.ts';
import type { AgentEntry, ResolvedSandbox, SandboxPolicy } from '../process/index.ts';
import {
  agentEnv,
  type CommandSpec,
  copyAgentFile,
  type Finished,
  MIB,
  precompileAgent,
  type ResourceLimits,
  runToCompletion,
} from '../process/index.ts';
import { buildCache, entryCommand, harnessLog, META_ENTRY } from './generation-session.ts';
import { logDir, type RunContext } from './run-context.ts';

export type EditOutcome =
  /** `refused`: a queue worker found the edited tree unfit to commit (see `checkTree`); it never came here. */
  { ok: true; refused?: string } | { ok: false; reason: string; cause: FailureCause };

export const frozenMetaDir = (ctx: Pick<RunContext, 'runDir'>): string =>
  path.join(worktreesDir(ctx.runDir), 'frozen-meta');

/**
 * Runs the parent's MetaAgent (or, with --freeze-meta, the initial one) on `worktree` on this machine, shown
 * the parent's evaluations in a folder it can only read (removed afterwards, or kept for the next one to
 * update); see `editVerdict` for what its end means. (A budget refusal is read from the ledger by the
 * caller.)
 */
export async function editWithMetaAgent(
  ctx: RunContext,
  variant: VariantRow,
  worktree: string,
): Promise<EditOutcome> {
  const id = variant.id;
  const logs = logDir(ctx, id);
  const evalsDir = writeEvals(ctx, variant);
  const token = ctx.gateway.issueToken({
    runId: ctx.runId,
    variantId: id,
    role: 'meta',
    model: ctx.config.metaModel,
  });
  // The MetaAgent writes its transcript here, never into the harness's log folder; the harness copies it.
  const agentOut = path.join(agentOutputDir(ctx.runDir), variantFolder(id));
  rmSync(agentOut, { recursive: true, force: true });
  mkdirSync(agentOut, { recursive: true });
  try {
    const metaRoot = ctx.config.freezeMeta ? frozenMetaDir(ctx) : worktree;
    const command = metaAgentCommand(ctx.sandbox, {
      worktree,
      metaRoot,
      compiled: await compiledMetaAgent(ctx, id, metaRoot),
      evalsDir,
      agentOut,
      nodeModules: ctx.nodeModules,
      gateway: { url: ctx.gateway.url, token, socket: ctx.gateway.socketPath },
      limits: ctx.config.limits,
      iterationsLeft: iterationsLeft(ctx, id),
    });
    ctx.archive.recordEvent(id, 'meta_started', { parent: variant.parentId });
    const finished = await runToCompletion(command, {
      ...harnessLog(ctx, path.join(logs, 'meta-agent.log')),
      timeoutMs: ctx.config.metaTimeoutSec * 1000,
      diskWatch: { dir: worktree, maxBytes: ctx.config.limits.diskMb * MIB },
    });
    const refused = copyAgentFile(
      path.join(agentOut, META_TRANSCRIPT),
      path.join(logs, META_TRANSCRIPT),
      ctx.config.limits.outputKb * 1024,
      ctx.archive.redact,
    );
    if (refused !== null) ctx.archive.recordEvent(id, 'transcript_refused', { reason: refused });
    ctx.archive.recordEvent(id, 'meta_finished', {
      exitCode: finished.exitCode,
      timedOut: finished.timedOut,
    });
    return editVerdict(finished, ctx.config.metaTimeoutSec);
  } finally {
    ctx.gateway.revokeToken(token);
    ctx.evals.release(evalsDir);
    rmSync(agentOut, { recursive: true, force: true });
  }
}

/**
 * The MetaAgent under `metaRoot` with its modules compiled before it runs (see precompileAgent), so its
 * process compiles no TypeScript at start; its source through tsx when they do not compile.
 */
async function compiledMetaAgent(ctx: RunContext, id: number, metaRoot: string): Promise<AgentEntry> {
  const compiled = await precompileAgent({
    worktree: metaRoot,
    entry: META_ENTRY,
    outDir: path.join(buildsDir(ctx.runDir), variantFolder(id), 'meta-agent'),
    nodeModules: ctx.nodeModules,
    cacheDir: buildCache(ctx),
  });
  if (compiled.kind === 'source')
    ctx.archive.recordEvent(id, 'meta_agent_build', {
      built: false,
      reason: compiled.reason,
      running: 'parent',
    });
  return compiled;
}

/**
 * Writes the folder of the parent's evaluations that the MetaAgent of `variant` reads, and records it when a
 * kept folder had been changed since the harness wrote it (so it was written afresh).
 */
export function writeEvals(ctx: RunContext, variant: VariantRow): string {
  const evalsDir = path.join(runEvalsDir(ctx.runDir), variantFolder(variant.id));
  const written = ctx.evals.write(evalsDir, variant.parentId ?? 0);
  if (written.kind === 'refused')
    ctx.archive.recordEvent(variant.id, 'evals_rewritten', { change: written.change });
  return evalsDir;
}

/** The iterations the MetaAgent is told are left after its own (generation `id` of `--generations`). */
export const iterationsLeft = (ctx: Pick<RunContext, 'config'>, id: number): number =>
  ctx.config.generations - id;

/** Where one MetaAgent run reads and writes: the same on this machine and on a queue worker. */
export interface MetaAgentPlace {
  /** The child's worktree, checked out at the parent's commit: the MetaAgent edits it. */
  worktree: string;
  /** Whose `agents/meta/` runs: the worktree's, or (with --freeze-meta) the initial agent's. */
  metaRoot: string;
  /** How it starts: its modules compiled ahead (see precompileAgent), else its source through tsx. */
  compiled: AgentEntry;
  evalsDir: string;
  /** Its transcript folder, writable; never a folder the harness writes its own files in. */
  agentOut: string;
  nodeModules: string;
  /** `socket`: the gateway's unix socket, bound into the sandbox (null: the gateway is reached by URL). */
  gateway: { url: string; token: string; socket: string | null };
  limits: ResourceLimits;
  iterationsLeft: number;
}

/**
 * The sandboxed command that runs the MetaAgent with `--repo`, `--evals` and `--iterations-left`
 * (agents/AGENTS.md, 'The interface that must keep working').
 */
export function metaAgentCommand(sandbox: ResolvedSandbox, place: MetaAgentPlace): CommandSpec {
  const frozen = place.metaRoot !== place.worktree;
  const env = agentEnv(
    { url: place.gateway.url, token: place.gateway.token },
    { HYPERAGENTS_TRANSCRIPT: path.join(place.agentOut, META_TRANSCRIPT) },
  );
  const policy: SandboxPolicy = {
    workdir: place.worktree,
    writable: true,
    readOnly: [place.nodeModules, place.evalsDir, ...(frozen ? [place.metaRoot] : [])],
    readWrite: [place.agentOut],
    ...(place.gateway.socket === null ? {} : { gatewaySocket: place.gateway.socket }),
    limits: place.limits,
  };
  const args = [
    '--repo',
    place.worktree,
    '--evals',
    place.evalsDir,
    '--iterations-left',
    String(place.iterationsLeft),
  ];
  return entryCommand(sandbox, policy, place.compiled, args, env);
}

/**
 * What a finished MetaAgent process means for the generation. A failure's cause is what the harness knows,
 * not what the agent printed: a timeout the harness set, else the agent's own failure. Pure.
 */
export function editVerdict(
  finished: Pick<Finished, 'exitCode' | 'timedOut' | 'overLimit' | 'tail'>,
  metaTimeoutSec: number,
): EditOutcome {
  if (finished.overLimit !== null) {
    return { ok: false, reason: `MetaAgent stopped: it ${finished.overLimit}`, cause: 'agent' };
  }
  if (finished.exitCode === 0) return { ok: true };
  if (finished.timedOut) {
    return { ok: false, reason: `MetaAgent timed out after ${metaTimeoutSec} s`, cause: 'timeout' };
  }
  return {
    ok: false,
    reason: `MetaAgent exited with code ${finished.exitCode}: ${finished.tail.split('\n').slice(-3).join(' | ')}`,
    cause: 'agent',
  };
}
