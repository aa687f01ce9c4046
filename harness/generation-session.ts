import { rmSync } from 'node:fs';
import path from 'node:path';
import { type AgentEntry, buildAgentEntry } from './agent-build.ts';
import { agentCommand, agentEnv, type CommandSpec } from './agent-processes.ts';
import type { GateLog } from './gate.ts';
import { logDir, type RunContext, worktreeDir } from './run-context.ts';
import type { ResolvedSandbox, SandboxPolicy } from './sandbox.ts';
import { createTaskPool, type TaskPool } from './task-workers.ts';

export const TASK_ENTRY = 'agents/task/main.ts';
export const META_ENTRY = 'agents/meta/main.ts';

/**
 * What one process holds for a generation while it advances it: the worktree and the TaskAgent workers.
 * Nothing here is persisted: a resumed generation opens a new session and checks its commit out again.
 */
export interface GenerationSession {
  worktree: string;
  /** Checks `commit` out into the worktree unless it is already there; `fresh` discards any earlier copy. */
  checkout(commit: string, fresh?: boolean): Promise<void>;
  /**
   * The TaskAgent workers of the checked-out commit, with a task-role gateway token; started once, from the
   * TaskAgent built into one file when it builds (so workers start without compiling), else from source.
   */
  pool(): Promise<TaskPool>;
  /** Calls of `role` the gateway refused for the budget since this session opened: a recorded cause. */
  budgetRefused(role: 'meta' | 'task'): boolean;
  close(): Promise<void>;
}

export function taskPolicy(ctx: RunContext, worktree: string): SandboxPolicy {
  return {
    workdir: worktree,
    writable: false,
    readOnly: [ctx.nodeModules],
    ...(ctx.gateway.socketPath === null ? {} : { gatewaySocket: ctx.gateway.socketPath }),
    limits: ctx.config.limits,
  };
}

/** The TaskAgent's command line: its built file (readable beside the worktree) or, failing that, its source. */
export function taskAgentCommand(
  sandbox: ResolvedSandbox,
  policy: SandboxPolicy,
  entry: AgentEntry,
  env: Record<string, string>,
): CommandSpec {
  return entry.kind === 'built'
    ? agentCommand(
        sandbox,
        { ...policy, readOnly: [...policy.readOnly, path.dirname(entry.file)] },
        entry.file,
        [],
        env,
      )
    : agentCommand(sandbox, policy, TASK_ENTRY, [], env);
}

/** Where the harness logs a variant's step: its own log folder, capped and redacted. */
export const harnessLog = (ctx: RunContext, file: string): GateLog => ({
  logFile: file,
  outputCapBytes: ctx.config.limits.outputKb * 1024,
  redact: ctx.archive.redact,
});

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

/** `worktreeName` replaces the generation's own worktree folder (for an evaluation beside a running run). */
export function openSession(ctx: RunContext, id: number, worktreeName?: string): GenerationSession {
  const worktree =
    worktreeName === undefined ? worktreeDir(ctx, id) : path.join(ctx.runDir, 'worktrees', worktreeName);
  const refusalsAtStart = {
    meta: ctx.archive.callCounts('meta', id).budgetRefusals,
    task: ctx.archive.callCounts('task', id).budgetRefusals,
  };
  let checkedOut: string | null = null;
  let pool: TaskPool | null = null;
  let token: string | null = null;
  return {
    worktree,
    async checkout(commit, fresh = false) {
      if (checkedOut === commit && !fresh) return;
      await closePool();
      await ctx.repo.addWorktree(commit, worktree);
      checkedOut = commit;
    },
    async pool() {
      if (checkedOut === null) throw new Error(`variant ${id}: no commit is checked out for its workers`);
      if (pool !== null) return pool;
      if (ctx.remoteTasks !== undefined) {
        pool = await ctx.remoteTasks.pool(ctx, { id, commit: checkedOut });
        return pool;
      }
      const entry = await buildTaskEntry(ctx, id, worktree);
      if (pool !== null) return pool;
      token = ctx.gateway.issueToken({
        runId: ctx.runId,
        variantId: id,
        role: 'task',
        model: ctx.config.taskModel,
      });
      const env = agentEnv({ url: ctx.gateway.url, token });
      pool = createTaskPool({
        size: ctx.config.evalWorkers,
        command: taskAgentCommand(ctx.sandbox, taskPolicy(ctx, worktree), entry, env),
        taskTimeoutMs: ctx.config.taskTimeoutSec * 1000,
        ...harnessLog(ctx, path.join(logDir(ctx, id), 'task-agent.log')),
      });
      return pool;
    },
    budgetRefused(role) {
      return ctx.archive.callCounts(role, id).budgetRefusals > refusalsAtStart[role];
    },
    async close() {
      await closePool();
      if (checkedOut !== null) await ctx.repo.removeWorktree(worktree);
      checkedOut = null;
    },
  };

  async function closePool(): Promise<void> {
    await pool?.close();
    if (token !== null) ctx.gateway.revokeToken(token);
    pool = null;
    token = null;
    rmSync(buildDir(ctx, id), { recursive: true, force: true });
  }
}
