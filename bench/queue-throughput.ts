import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { variantRepoDir } from '../archive/index.ts';
import type { Task } from '../domains/index.ts';
import { createTaskPool, type TaskPool } from '../harness/evaluation/index.ts';
import { entryCommand } from '../harness/generation/index.ts';
import { agentEnv, buildAgentEntry, createVariantRepo, DEFAULT_LIMITS } from '../harness/process/index.ts';
import { defaultTaskSettings, PROJECT_ROOT } from '../harness/run/index.ts';
import { createSimModel, type Gateway, startGateway } from '../llm/index.ts';
import { type Coordinator, openCoordinator, PROJECT_VERSION, parseRedisUrl } from '../queue/index.ts';
import { startRedis } from '../queue/testing/redis-server.ts';
import { benchTasks, upperMedian } from './tasks.ts';

export interface QueueThroughput {
  /** `local`, or how many `hyperagents worker` processes took the tasks. */
  path: string;
  inFlight: number;
  tasks: number;
  /** Median over the rounds. */
  seconds: number;
  /**
   * One task from being handed over to its answer, median over the tasks (then over the rounds): the time
   * per task once the workers are warm, where `seconds` also counts their start.
   */
  medianTaskMs: number;
  rounds: number;
}

/** What the rounds share: the tasks, the gateway, Redis and its coordinator, workers started, times taken. */
interface QueueBench {
  dir: string;
  nodeModules: string;
  tasks: Task[];
  inFlight: number;
  gateway: Gateway;
  redisUrl: string;
  coordinator: Coordinator;
  workers: ChildProcess[];
  /** Per path: the seconds of each round, and the median time per task of each round. */
  times: Map<string, number[]>;
  taskTimes: Map<string, number[]>;
  /** Measurements so far: each has its own task ids (so new jobs) and its own variant (new TaskAgents). */
  measured: number;
}

/**
 * Evaluation throughput of one variant's tasks: local TaskAgent processes against the queue path with one and
 * with two real `hyperagents worker` processes (a real redis-server, the coordinator's gateway over TCP and
 * each worker's relay), at the same number of tasks in flight, with the sim's fixed latency standing in for
 * the model. The three alternate for `rounds` rounds (the machine is shared) and the median is reported.
 * Workers start afresh each round, so the queue's time includes each worker fetching and building the
 * variant. No sandbox: what is measured is the queue, not bubblewrap.
 */
export async function benchQueueThroughput(
  latencyMs: number,
  taskCount: number,
  inFlight: number,
  rounds = 3,
): Promise<QueueThroughput[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-queue-'));
  const { tasks } = benchTasks(taskCount);
  const sim = createSimModel({ seed: 0, domains: ['arithmetic'], latencyMs });
  sim.registerTasks('arithmetic', tasks);
  const gateway = await startGateway({
    socketPath: path.join(dir, 'gw.sock'),
    providers: () => sim,
    onWarning: (message) => process.stderr.write(`gateway: ${message}\n`),
    onCall: () => undefined,
    tcp: true,
  });
  const redis = await startRedis();
  const target = parseRedisUrl(redis.url);
  if (!target.ok) throw new Error(target.message);
  const coordinator = await openCoordinator({
    target: target.target,
    version: PROJECT_VERSION,
    gatewayUrl: null,
  });
  const bench: QueueBench = {
    dir,
    nodeModules: path.join(PROJECT_ROOT, 'node_modules'),
    tasks,
    inFlight,
    gateway,
    redisUrl: redis.url,
    coordinator,
    workers: [],
    times: new Map(),
    taskTimes: new Map(),
    measured: 0,
  };
  try {
    await runRounds(bench, rounds);
  } finally {
    await stopWorkers(bench.workers);
    await coordinator.close();
    await gateway.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return [...bench.times].map(([label, seconds]) => ({
    path: label,
    inFlight,
    tasks: tasks.length,
    seconds: upperMedian(seconds),
    medianTaskMs: upperMedian(bench.taskTimes.get(label) ?? []),
    rounds: seconds.length,
  }));
}

/** Each round: the local pool, then the queue with one and with two workers started afresh. */
async function runRounds(bench: QueueBench, rounds: number): Promise<void> {
  const { dir, gateway, nodeModules, inFlight } = bench;
  const built = await buildAgentEntry({
    worktree: PROJECT_ROOT,
    entry: 'agents/task/main.ts',
    outDir: path.join(dir, 'build'),
    nodeModules,
  });
  const runDir = path.join(dir, 'run');
  const { rootCommit } = await createVariantRepo(
    variantRepoDir(runDir),
    path.join(PROJECT_ROOT, 'agents'),
    nodeModules,
  );
  const ctx = {
    runId: 'bench',
    runDir,
    gateway,
    signal: new AbortController().signal,
    progress: (line: string) => process.stderr.write(`${line}\n`),
    taskSettings: { ...defaultTaskSettings(), taskTimeoutSec: 120 },
    // Arithmetic's tasks have no workspace: no grader travels with them.
    domains: [],
    config: {
      taskModel: 'sim',
      tasksPerWorker: 1,
      domains: [{ kind: 'named' as const, name: 'arithmetic' }],
    },
  };
  for (let round = 0; round < rounds; round++) {
    const token = gateway.issueToken({ runId: 'bench', variantId: 0, role: 'task', model: 'sim' });
    await measure(
      bench,
      'local',
      createTaskPool({
        size: inFlight,
        tasksPerWorker: ctx.config.tasksPerWorker,
        command: entryCommand(
          { kind: 'none', why: 'benchmark' },
          { workdir: PROJECT_ROOT, writable: false, readOnly: [nodeModules], limits: DEFAULT_LIMITS },
          built,
          [],
          agentEnv({ url: gateway.url, token }),
        ),
        taskTimeoutMs: 120_000,
        logFile: path.join(dir, 'local.log'),
      }),
    );
    for (const count of [1, 2]) {
      while (bench.workers.length < count)
        bench.workers.push(await startWorker(bench.redisUrl, Math.ceil(inFlight / count)));
      const pool = await bench.coordinator.pool(ctx, { id: bench.measured + 1, commit: rootCommit });
      await measure(bench, `${count} worker${count === 1 ? '' : 's'}`, pool);
    }
    await stopWorkers(bench.workers.splice(0));
  }
}

/** Every task through `pool`, `inFlight` at once, timed whole and each; the pool is closed after. */
async function measure(bench: QueueBench, label: string, pool: TaskPool): Promise<void> {
  const limit = pLimit(bench.inFlight);
  const run = ++bench.measured;
  const started = performance.now();
  const each: number[] = [];
  await Promise.all(
    bench.tasks.map((t) =>
      limit(async () => {
        const sent = performance.now();
        await pool.run({ id: `${t.id}-${run}`, domain: 'arithmetic', input: t.input });
        each.push(performance.now() - sent);
      }),
    ),
  );
  bench.times.set(label, [...(bench.times.get(label) ?? []), (performance.now() - started) / 1000]);
  bench.taskTimes.set(label, [...(bench.taskTimes.get(label) ?? []), upperMedian(each)]);
  await pool.close();
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  for (const worker of workers) {
    if (worker.exitCode !== null || worker.signalCode !== null) continue;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
}

function startWorker(url: string, concurrency: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'),
      'worker',
      '--queue',
      url,
      '--concurrency',
      String(concurrency),
      '--sandbox',
      'none',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('taking tasks')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${log}`)));
  });
}
