import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Archive, openArchive, openEvalCache } from '../archive/index.ts';
import arithmetic from '../domains/arithmetic/index.ts';
import type { Task } from '../domains/index.ts';
import {
  createGradeContext,
  createTaskLimit,
  createTaskPool,
  evaluateStage,
  type TaskPool,
} from '../harness/evaluation/index.ts';
import type { CommandSpec, ResolvedSandbox } from '../harness/process/index.ts';
import { agentCommand, agentEnv, buildAgentEntry } from '../harness/process/index.ts';
import { createSimModel, type Gateway, startGateway } from '../llm/index.ts';
import { procStat } from '../system/proc-stat.ts';
import { benchTasks } from './tasks.ts';

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
    const stat = procStat(pid); // null: exited meanwhile
    // CPU time in clock ticks of 10 ms.
    if (stat?.command === 'node' && stat.parent === process.pid) total += stat.cpuTicks * 10;
  }
  return total;
}

export interface StartupResult {
  entry: EntryKind;
  /** Median wall time of `main.ts --check` (load everything, exit), one process at a time. */
  medianMs: number;
}

const TASK_ENTRY = 'agents/task/main.ts';

/** What every timed run shares: the tasks, the gateway with its count of calls, the way workers start. */
interface Bench {
  dir: string;
  tasks: Task[];
  distinct: Task[];
  sandbox: ResolvedSandbox;
  worktree: string;
  gateway: Gateway;
  /** Model calls through the gateway so far, and the archive whose ledger records them meanwhile. */
  ledger: { calls: number; archive: Archive | null };
  commandFor(entry: EntryKind, args: string[], token: string): CommandSpec;
}

/** One timed run: how its workers start, whether they are up before, and how many tasks at once. */
interface BenchRun {
  entry: EntryKind;
  mode: BenchMode;
  workers: number;
  tasksPerWorker: number;
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
  const gateway: { current: Gateway | null } = { current: null };
  try {
    const bench = await openBench(dir, modelLatencyMs, taskCount, sandbox, gateway);
    const startup = (['built', 'source'] as const).map((entry) => timeStartup(bench, entry));
    const results: WorkerResult[] = [];
    for (const run of benchRuns(workerCounts)) results.push(await timeRun(bench, run));
    return { results, startup };
  } finally {
    await gateway.current?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The sim behind a real gateway (put in `opened` at once, for the caller to close), and the TaskAgent built once. */
async function openBench(
  dir: string,
  modelLatencyMs: number,
  taskCount: number,
  sandbox: ResolvedSandbox,
  opened: { current: Gateway | null },
): Promise<Bench> {
  const { tasks, distinct } = benchTasks(taskCount);
  const sim = createSimModel({ seed: 0, domains: ['arithmetic'], latencyMs: modelLatencyMs });
  sim.registerTasks('arithmetic', [...distinct, ...tasks]);
  const ledger: Bench['ledger'] = { calls: 0, archive: null };
  const gateway = await startGateway({
    socketPath: path.join(dir, 'gw.sock'),
    providers: () => sim,
    onWarning: (message) => process.stderr.write(`gateway: ${message}\n`),
    onCall: (row) => {
      ledger.calls += 1;
      ledger.archive?.insertLlmCall(row);
    },
  });
  opened.current = gateway;
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
  return {
    dir,
    tasks,
    distinct,
    sandbox,
    worktree,
    gateway,
    ledger,
    commandFor: (entry, args, token) =>
      agentCommand(sandbox, policy, entries[entry], args, agentEnv({ url: gateway.url, token })),
  };
}

/** Median wall time of five `--check` starts of one worker, one at a time. */
function timeStartup(bench: Bench, entry: EntryKind): StartupResult {
  const times = Array.from({ length: 5 }, () => {
    const { file, args, env, cwd } = bench.commandFor(entry, ['--check'], 'none');
    const started = performance.now();
    spawnSync(file, args, { env, cwd, stdio: 'ignore' });
    return performance.now() - started;
  }).sort((a, b) => a - b);
  return { entry, medianMs: times[2]! };
}

/** Per worker count: built workers steady and cold, one and TASKS_PER_WORKER a process; last, source cold. */
function benchRuns(workerCounts: readonly number[]): BenchRun[] {
  return [
    ...workerCounts.flatMap((workers) =>
      [1, TASKS_PER_WORKER].flatMap((tasksPerWorker) =>
        (['steady', 'cold'] as const).map((mode) => ({
          entry: 'built' as const,
          mode,
          workers,
          tasksPerWorker,
        })),
      ),
    ),
    { entry: 'source', mode: 'cold', workers: Math.max(...workerCounts), tasksPerWorker: 1 },
  ];
}

/** One timed run on a pool of its own. */
async function timeRun(bench: Bench, run: BenchRun): Promise<WorkerResult> {
  const { entry, mode, workers, tasksPerWorker } = run;
  const { gateway, tasks } = bench;
  const token = gateway.issueToken({ runId: 'bench', variantId: 0, role: 'task', model: 'sim' });
  const pool = createTaskPool({
    size: workers,
    tasksPerWorker,
    command: bench.commandFor(entry, [], token),
    taskTimeoutMs: 120_000,
    logFile: path.join(bench.dir, 'workers.log'),
  });
  const poolStarted = performance.now();
  let firstAnswer = 0;
  let allUp: number | null = null;
  if (mode !== 'cold') {
    // Start-up on its own: every worker started and answering its first task.
    pool.warm();
    await Promise.all(
      bench.distinct.slice(0, workers).map(async (task, i) => {
        await pool.run({ id: `warm-${i}`, domain: 'arithmetic', input: task.input });
        if (firstAnswer === 0) firstAnswer = performance.now();
      }),
    );
    allUp = performance.now();
  }
  const callsBefore = bench.ledger.calls;
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
  await evaluation(bench, timed, workers, `${entry}-${mode}-${workers}-${tasksPerWorker}`);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerTask = {
    harness: (cpu.user + cpu.system) / 1000 / tasks.length,
    workers: mode === 'cold' ? null : (workersCpuMs() - workersBefore) / tasks.length,
  };
  await pool.close();
  gateway.revokeToken(token);
  return {
    entry,
    mode,
    workers,
    tasksPerWorker,
    tasks: tasks.length,
    calls: bench.ledger.calls - callsBefore,
    seconds,
    cpuMsPerTask,
    firstAnswerSeconds: (firstAnswer - poolStarted) / 1000,
    allUpSeconds: allUp === null ? null : (allUp - poolStarted) / 1000,
  };
}

/** The harness's evaluation of one full stage of the bench's tasks, into a fresh archive and cache. */
async function evaluation(bench: Bench, pool: TaskPool, workers: number, name: string): Promise<void> {
  const archive = openArchive(path.join(bench.dir, `archive-${name}.sqlite`));
  const cache = openEvalCache(path.join(bench.dir, `cache-${name}.sqlite`));
  archive.insertVariant({ id: 0, parentId: null, step: 'full' });
  bench.ledger.archive = archive;
  try {
    await evaluateStage(
      {
        archive,
        cache,
        pool,
        variantId: 0,
        codeHash: 'bench',
        taskModel: 'sim',
        settings: { maxToolCalls: 40 },
        seed: 0,
        cacheable: true,
        limit: createTaskLimit(workers),
        grading: createGradeContext({
          sandbox: bench.sandbox,
          nodeModules: path.join(bench.worktree, 'node_modules'),
        }),
      },
      [{ domain: arithmetic, splits: { train: bench.tasks } }],
      'full',
      false,
    );
  } finally {
    bench.ledger.archive = null;
    archive.close();
    cache.close();
  }
}
