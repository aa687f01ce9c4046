import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildsDir,
  TASK_AGENT_LOG,
  variantFolder,
  workspacesDir,
  worktreesDir,
} from '../../archive/index.ts';
import { removeTreeNoFollow } from '../../system/read-no-follow.ts';
import { createTaskPool, stageSize, type TaskPool } from '../evaluation/index.ts';
import type { ResolvedSandbox, SandboxPolicy } from '../process/index.ts';
import {
  type AgentEntry,
  agentCommand,
  agentEnv,
  buildAgentEntry,
  type CommandSpec,
  precompileAgent,
} from '../process/index.ts';
import type { GateLog } from './gate.ts';
import { logDir, type RunContext, worktreeDir } from './run-context.ts';

export const TASK_ENTRY = 'agents/task/main.ts';
export const META_ENTRY = 'agents/meta/main.ts';
export type EntryPoint = typeof TASK_ENTRY | typeof META_ENTRY;

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
   * Attempt `attempt` > 0 (`--eval-repeats`) has workers of its own, whose token tells the model which attempt
   * their calls belong to.
   */
  pool(attempt?: number): Promise<TaskPool>;
  /**
   * An entry point of the checked-out commit built once per checkout (see buildEntry; the gate load-checks
   * it, the TaskAgent workers start from it); the source, with the reason, when it does not build.
   */
  built(entry: EntryPoint): Promise<AgentEntry>;
  /** The command that runs `entry` of the checked-out commit in the sandbox: its built file, else its source. */
  command(entry: AgentEntry, args: string[], env: Record<string, string>): CommandSpec;
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

/**
 * The command that runs an entry point in the sandbox under `policy`: its built file, or its source with the
 * loader of its compiled modules (both made readable beside the worktree), or its source through tsx.
 */
export function entryCommand(
  sandbox: ResolvedSandbox,
  policy: SandboxPolicy,
  entry: AgentEntry,
  args: string[],
  env: Record<string, string>,
): CommandSpec {
  switch (entry.kind) {
    case 'built':
      return agentCommand(sandbox, readableToo(policy, entry.file), entry.file, args, env);
    case 'modules': {
      const readable = readableToo(policy, fileURLToPath(entry.loader));
      return agentCommand(sandbox, readable, entry.entry, args, env, entry.loader);
    }
    case 'source':
      return agentCommand(sandbox, policy, entry.entry, args, env);
  }
}

const readableToo = (policy: SandboxPolicy, file: string): SandboxPolicy => ({
  ...policy,
  readOnly: [...policy.readOnly, path.dirname(file)],
});

/** Where the harness logs a variant's step: its own log folder, capped and redacted. */
export const harnessLog = (ctx: RunContext, file: string): GateLog => ({
  logFile: file,
  outputCapBytes: ctx.config.limits.outputKb * 1024,
  redact: ctx.archive.redact,
});

/** Bundles of the run's agents by the content of their code, shared by its variants (see buildAgentEntry). */
export const buildCache = (ctx: Pick<RunContext, 'runDir'>): string =>
  path.join(buildsDir(ctx.runDir), 'cache');

const BUILD_EVENT: Record<EntryPoint, 'task_agent_build' | 'meta_agent_build'> = {
  [TASK_ENTRY]: 'task_agent_build',
  [META_ENTRY]: 'meta_agent_build',
};

/**
 * Each entry point is built once per checkout, so no process that runs it compiles TypeScript: the
 * TaskAgent into one file; the MetaAgent, which imports its tools at run time, as compiled modules (see
 * precompileAgent), the way it runs when the variant becomes a parent.
 */
async function buildEntry(
  ctx: RunContext,
  id: number,
  worktree: string,
  buildFolder: string,
  entry: EntryPoint,
): Promise<AgentEntry> {
  const options = {
    worktree,
    entry,
    outDir: path.join(buildFolder, entry === TASK_ENTRY ? 'task' : 'meta'),
    nodeModules: ctx.nodeModules,
    cacheDir: buildCache(ctx),
  };
  const built = entry === TASK_ENTRY ? await buildAgentEntry(options) : await precompileAgent(options);
  ctx.archive.recordEvent(
    id,
    BUILD_EVENT[entry],
    built.kind === 'source'
      ? { built: false, reason: built.reason }
      : { built: true, ms: built.ms, cached: built.cached },
  );
  return built;
}

/**
 * How many tasks a variant's TaskAgent workers run at once: the run's task limit (`--eval-workers`), but no
 * more than a stage has tasks (a stage hands the pool at most all of them at once; workers beyond that
 * would only start). The limit, not the pool, bounds the tasks of all generations together.
 */
function tasksAtOnce(ctx: RunContext): number {
  const largestStage = Math.max(
    stageSize(ctx.domains, 'staged', false),
    stageSize(ctx.domains, 'full', ctx.config.evalTest),
  );
  return Math.max(1, Math.min(ctx.taskLimit.size, largestStage));
}

/**
 * The TaskAgent workers of variant `id` on this machine: `entry` run in the sandbox under `policy`, calling
 * the gateway with `token`, each process's workspace folders under `workspaces`.
 */
function localTaskPool(
  ctx: RunContext,
  id: number,
  run: { entry: AgentEntry; token: string; policy: SandboxPolicy; workspaces: string },
): TaskPool {
  const { entry, policy } = run;
  const env = agentEnv({ url: ctx.gateway.url, token: run.token });
  return createTaskPool({
    size: tasksAtOnce(ctx),
    tasksPerWorker: ctx.config.tasksPerWorker,
    command: entryCommand(ctx.sandbox, policy, entry, [], env),
    taskTimeoutMs: ctx.config.taskTimeoutSec * 1000,
    ...harnessLog(ctx, path.join(logDir(ctx, id), TASK_AGENT_LOG)),
    workspaces: {
      dir: run.workspaces,
      limits: ctx.config.workspace,
      command: (mounted) => entryCommand(ctx.sandbox, { ...policy, readWrite: [mounted] }, entry, [], env),
    },
  });
}

/**
 * `worktreeName` replaces the name of the generation's own worktree and build folders (for an evaluation
 * beside a running run).
 */
// Over 80 lines: one session whose methods share its checked-out commit, workers, tokens and builds.
export function openSession(ctx: RunContext, id: number, worktreeName?: string): GenerationSession {
  const worktree =
    worktreeName === undefined ? worktreeDir(ctx, id) : path.join(worktreesDir(ctx.runDir), worktreeName);
  const buildFolder = path.join(buildsDir(ctx.runDir), worktreeName ?? variantFolder(id));
  // Each TaskAgent process's workspace folders (workspace tasks), removed with the pool.
  const workspacesFolder = path.join(workspacesDir(ctx.runDir), worktreeName ?? variantFolder(id));
  const refusalsAtStart = {
    meta: ctx.archive.callCounts('meta', id).budgetRefusals,
    task: ctx.archive.callCounts('task', id).budgetRefusals,
  };
  let checkedOut: string | null = null;
  let pool: TaskPool | null = null;
  let token: string | null = null;
  // Later attempts' workers and tokens, by attempt; closed with the first attempt's.
  let attemptPools = new Map<number, { pool: Promise<TaskPool>; token: string | null }>();
  let builds = new Map<EntryPoint, Promise<AgentEntry>>();
  const policy = taskPolicy(ctx, worktree);
  const command = (entry: AgentEntry, args: string[], env: Record<string, string>): CommandSpec =>
    entryCommand(ctx.sandbox, policy, entry, args, env);
  const built = (entry: EntryPoint): Promise<AgentEntry> => {
    if (checkedOut === null) throw new Error(`variant ${id}: no commit is checked out to build`);
    const known = builds.get(entry);
    if (known !== undefined) return known;
    const building = buildEntry(ctx, id, worktree, buildFolder, entry);
    builds.set(entry, building);
    return building;
  };
  return {
    worktree,
    async checkout(commit, fresh = false) {
      if (checkedOut === commit && !fresh) return;
      await closePool();
      await ctx.repo.addWorktree(commit, worktree);
      checkedOut = commit;
    },
    async pool(attempt = 0) {
      if (checkedOut === null) throw new Error(`variant ${id}: no commit is checked out for its workers`);
      if (attempt > 0) return attemptPool(attempt);
      if (pool !== null) return pool;
      if (ctx.remoteTasks !== undefined) {
        pool = await ctx.remoteTasks.pool(ctx, { id, commit: checkedOut });
        return pool;
      }
      const entry = await built(TASK_ENTRY);
      if (pool !== null) return pool;
      token = ctx.gateway.issueToken({
        runId: ctx.runId,
        variantId: id,
        role: 'task',
        model: ctx.config.taskModel,
      });
      pool = localTaskPool(ctx, id, { entry, token, policy, workspaces: workspacesFolder });
      return pool;
    },
    built,
    command,
    budgetRefused(role) {
      return ctx.archive.callCounts(role, id).budgetRefusals > refusalsAtStart[role];
    },
    async close() {
      await closePool();
      if (checkedOut !== null) await ctx.repo.removeWorktree(worktree);
      checkedOut = null;
    },
  };

  /** The workers of a later attempt (see `pool`), here or on the queue. */
  function attemptPool(attempt: number): Promise<TaskPool> {
    const known = attemptPools.get(attempt);
    if (known !== undefined) return known.pool;
    if (ctx.remoteTasks !== undefined) {
      const remote = ctx.remoteTasks.pool(ctx, { id, commit: checkedOut ?? '' }, attempt);
      attemptPools.set(attempt, { pool: remote, token: null });
      return remote;
    }
    const grant = { runId: ctx.runId, variantId: id, role: 'task' as const, model: ctx.config.taskModel };
    const attemptToken = ctx.gateway.issueToken({ ...grant, attempt });
    const workspaces = path.join(workspacesFolder, `attempt-${attempt}`);
    const started = built(TASK_ENTRY).then((entry) =>
      localTaskPool(ctx, id, { entry, token: attemptToken, policy, workspaces }),
    );
    attemptPools.set(attempt, { pool: started, token: attemptToken });
    return started;
  }

  async function closePool(): Promise<void> {
    const later = [...attemptPools.values()];
    attemptPools = new Map();
    await Promise.allSettled(
      later.map(async (p) => {
        await (await p.pool).close();
        if (p.token !== null) ctx.gateway.revokeToken(p.token);
      }),
    );
    await pool?.close();
    if (token !== null) ctx.gateway.revokeToken(token);
    pool = null;
    token = null;
    await Promise.allSettled(builds.values());
    builds = new Map();
    rmSync(buildFolder, { recursive: true, force: true });
    removeTreeNoFollow(workspacesFolder);
  }
}
