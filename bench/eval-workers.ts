import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Archive, openArchive } from '../archive/archive.ts';
import { openEvalCache } from '../archive/eval-cache.ts';
import arithmetic, { loadArithmetic } from '../domains/arithmetic/index.ts';
import type { Task } from '../domains/define-domain.ts';
import {
  createGradeContext,
  createTaskPool,
  evaluateStage,
  type TaskPool,
} from '../harness/evaluation/index.ts';
import type { ResolvedSandbox } from '../harness/process/index.ts';
import { agentCommand, agentEnv, buildAgentEntry } from '../harness/process/index.ts';
import { startGateway } from '../llm/gateway.ts';
import { createSimModel } from '../llm/sim/sim-model.ts';

/** How TaskAgent workers start: from the file built once per variant, or from the TypeScript through tsx. */
export type EntryKind = 'built' | 'source';

/**
 * What is timed. `steady`: the harness's own evaluation of a stage (grading each answer and storing it in a
 * real archive, the result cache and the ledger, as a run does) on workers already started; `cold`: the
 * same counted from the pool starting, no worker running.
 */
export type BenchMode = 'steady' | 'cold';

/** Tasks one TaskAgent process runs at once in the runs timed with several a process (the run's default). */
export const TASKS_PER_WORKER = 8;

export interface WorkerResult {
  entry: EntryKind;
  mode: BenchMode;
  /** Tasks at once (`--eval-workers`). */
  workers: number;
  /** Tasks one process runs at once (`--tasks-per-worker`): ⌈workers ÷ this⌉ processes. */
  tasksPerWorker: number;
  tasks: number;
  calls: number;
  /** From the evaluation's start (`cold`: the pool's start) to the last result stored. */
  seconds: number;
  /** From the pool starting to the first answer: start-up plus one model call. */
  firstAnswerSeconds: number;
  /** `steady`: from the pool starting to every worker having answered its first task. */
  allUpSeconds: number | null;
  /**
   * CPU per task while timed, in ms: this process (the harness's evaluation, the gateway and the sim that
   * stands in for the model) and the workers (not for `cold`, whose workers start while timed).
   */
  cpuMsPerTask: { harness: number; workers: number | null };
}

/** CPU time in ms of this process's `node` children (the workers), from /proc; 0 where there is none. */
function workersCpuMs(): number {
  let total = 0;
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(node)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) continue;
      // utime and stime, in clock ticks of 10 ms.
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

export interface StartupResult {
  entry: EntryKind;
  /** Median wall time of `main.ts --check` (load everything, exit), one process at a time. */
  medianMs: number;
}

const TASK_ENTRY = 'agents/task/main.ts';

/** `count` tasks cycled from every split of arithmetic, each with an id of its own. */
function benchTasks(count: number): { tasks: Task[]; distinct: Task[] } {
  const distinct = [...loadArithmetic('train'), ...loadArithmetic('val'), ...loadArithmetic('test')];
  const tasks = Array.from({ length: count }, (_, i) => {
    const task = distinct[i % distinct.length]!;
    return { ...task, id: `${task.id}-${Math.floor(i / distinct.length)}` };
  });
  return { tasks, distinct };
}

/**
 * Evaluation throughput with N TaskAgent worker processes (real processes, a real gateway on a unix socket,
 * the sim with a fixed per-call latency standing in for a remote model), for workers started from the
 * built entry and from source, side by side; and the start-up of one worker on its own. No sandbox unless
 * one is given: what is measured is the workers, not bubblewrap.
 */
export async function benchEvalWorkers(
  workerCounts: number[],
  modelLatencyMs: number,
  taskCount: number,
  sandbox: ResolvedSandbox = { kind: 'none', why: 'benchmark' },
): Promise<{ results: WorkerResult[]; startup: StartupResult[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-eval-'));
  const { tasks, distinct } = benchTasks(taskCount);
  const sim = createSimModel({ seed: 0, domains: ['arithmetic'], latencyMs: modelLatencyMs });
  sim.registerTasks('arithmetic', [...distinct, ...tasks]);
  let calls = 0;
  const gateway = await startGateway({
    socketPath: path.join(dir, 'gw.sock'),
    providers: () => sim,
    onWarning: (message) => process.stderr.write(`gateway: ${message}\n`),
    onCall: (row) => {
      calls += 1;
      gatewayOnCall(row);
    },
  });
  const worktree = path.resolve(import.meta.dirname, '..');
  const built = await buildAgentEntry({
    worktree,
    entry: TASK_ENTRY,
    outDir: path.join(dir, 'build'),
    nodeModules: path.join(worktree, 'node_modules'),
  });
  if (built.kind !== 'built') throw new Error(`the TaskAgent did not build: ${built.reason}`);
  const entries: Record<EntryKind, string> = { built: built.file, source: TASK_ENTRY };
  const policy = {
    workdir: worktree,
    writable: false,
    readOnly: [path.dirname(built.file)],
    gatewaySocket: gateway.socketPath ?? undefined,
  };
  const commandFor = (entry: EntryKind, args: string[], token: string) =>
    agentCommand(sandbox, policy, entries[entry], args, agentEnv({ url: gateway.url, token }));

  let ledger: Archive | null = null;
  const gatewayOnCall = (row: Parameters<Archive['insertLlmCall']>[0]): void => ledger?.insertLlmCall(row);
  const results: WorkerResult[] = [];
  const startup: StartupResult[] = [];
  /** The harness's evaluation of one full stage of `tasks`, into a fresh archive and cache. */
  const evaluation = async (pool: TaskPool, workers: number, name: string): Promise<void> => {
    const archive = openArchive(path.join(dir, `archive-${name}.sqlite`));
    const cache = openEvalCache(path.join(dir, `cache-${name}.sqlite`));
    archive.insertVariant({ id: 0, parentId: null, step: 'full' });
    ledger = archive;
    try {
      await evaluateStage(
        {
          archive,
          cache,
          pool,
          variantId: 0,
          codeHash: 'bench',
          taskModel: 'sim',
          seed: 0,
          cacheable: true,
          concurrency: workers,
          grading: createGradeContext({ sandbox, nodeModules: path.join(worktree, 'node_modules') }),
        },
        [{ domain: arithmetic, splits: { train: tasks } }],
        'full',
        false,
      );
    } finally {
      ledger = null;
      archive.close();
      cache.close();
    }
  };
  try {
    for (const entry of ['built', 'source'] as const) {
      const times = Array.from({ length: 5 }, () => {
        const { file, args, env, cwd } = commandFor(entry, ['--check'], 'none');
        const started = performance.now();
        spawnSync(file, args, { env, cwd, stdio: 'ignore' });
        return performance.now() - started;
      }).sort((a, b) => a - b);
      startup.push({ entry, medianMs: times[2]! });
    }
    const runs = [
      ...workerCounts.flatMap((workers) => [
        ...(['steady', 'cold'] as const).map((mode) => ({
          entry: 'built' as const,
          mode,
          workers,
          tasksPerWorker: 1,
        })),
        ...(['steady', 'cold'] as const).map((mode) => ({
          entry: 'built' as const,
          mode,
          workers,
          tasksPerWorker: TASKS_PER_WORKER,
        })),
      ]),
      {
        entry: 'source' as const,
        mode: 'cold' as const,
        workers: Math.max(...workerCounts),
        tasksPerWorker: 1,
      },
    ];
    for (const { entry, mode, workers, tasksPerWorker } of runs) {
      const token = gateway.issueToken({ runId: 'bench', variantId: 0, role: 'task', model: 'sim' });
      const pool = createTaskPool({
        size: workers,
        tasksPerWorker,
        command: commandFor(entry, [], token),
        taskTimeoutMs: 120_000,
        logFile: path.join(dir, 'workers.log'),
      });
      const poolStarted = performance.now();
      let firstAnswer = 0;
      let allUp: number | null = null;
      if (mode !== 'cold') {
        // Start-up on its own: every worker started and answering its first task.
        pool.warm();
        await Promise.all(
          distinct.slice(0, workers).map(async (task, i) => {
            await pool.run({ id: `warm-${i}`, domain: 'arithmetic', input: task.input });
            if (firstAnswer === 0) firstAnswer = performance.now();
          }),
        );
        allUp = performance.now();
      }
      const callsBefore = calls;
      const started = mode === 'cold' ? poolStarted : performance.now();
      const cpuBefore = process.cpuUsage();
      const workersBefore = workersCpuMs();
      const timed: TaskPool = {
        async run(request) {
          const reply = await pool.run(request);
          if (firstAnswer === 0) firstAnswer = performance.now();
          return reply;
        },
        warm: () => pool.warm(),
        close: () => pool.close(),
      };
      await evaluation(timed, workers, `${entry}-${mode}-${workers}-${tasksPerWorker}`);
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const cpuMsPerTask = {
        harness: (cpu.user + cpu.system) / 1000 / tasks.length,
        workers: mode === 'cold' ? null : (workersCpuMs() - workersBefore) / tasks.length,
      };
      results.push({
        entry,
        mode,
        workers,
        tasksPerWorker,
        tasks: tasks.length,
        calls: calls - callsBefore,
        seconds,
        cpuMsPerTask,
        firstAnswerSeconds: (firstAnswer - poolStarted) / 1000,
        allUpSeconds: allUp === null ? null : (allUp - poolStarted) / 1000,
      });
      await pool.close();
      gateway.revokeToken(token);
    }
  } finally {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { results, startup };
}
