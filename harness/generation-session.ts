import path from 'node:path';
import { agentCommand, agentEnv } from './agent-processes.ts';
import type { GateLog } from './gate.ts';
import { logDir, type RunContext, worktreeDir } from './run-context.ts';
import type { SandboxPolicy } from './sandbox.ts';
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
  /** The TaskAgent workers of the checked-out commit, with a task-role gateway token; started once. */
  pool(): TaskPool;
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

/** Where the harness logs a variant's step: its own log folder, capped and redacted. */
export const harnessLog = (ctx: RunContext, file: string): GateLog => ({
  logFile: file,
  outputCapBytes: ctx.config.limits.outputKb * 1024,
  redact: ctx.archive.redact,
});

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
    pool() {
      if (checkedOut === null) throw new Error(`variant ${id}: no commit is checked out for its workers`);
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
        command: agentCommand(ctx.sandbox, taskPolicy(ctx, worktree), TASK_ENTRY, [], env),
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
  }
}
