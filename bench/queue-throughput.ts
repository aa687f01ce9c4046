import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { variantRepoDir } from '../archive/run-folder.ts';
import { loadArithmetic } from '../domains/arithmetic/index.ts';
import { createTaskPool, type TaskPool } from '../harness/evaluation/index.ts';
import { entryCommand } from '../harness/generation/index.ts';
import { agentEnv, buildAgentEntry, createVariantRepo, DEFAULT_LIMITS } from '../harness/process/index.ts';
import { PROJECT_ROOT } from '../harness/run/index.ts';
import { startGateway } from '../llm/gateway.ts';
import { createSimModel } from '../llm/sim/sim-model.ts';
import { openCoordinator } from '../queue/coordinator.ts';
import { PROJECT_VERSION } from '../queue/project-version.ts';
import { parseRedisUrl } from '../queue/redis-url.ts';
import { startRedis } from '../queue/testing/redis-server.ts';

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
  const nodeModules = path.join(PROJECT_ROOT, 'node_modules');
  const distinct = [...loadArithmetic('train'), ...loadArithmetic('val'), ...loadArithmetic('test')];
  const tasks = Array.from({ length: taskCount }, (_, i) => {
    const task = distinct[i % distinct.length]!;
    return { ...task, id: `${task.id}-${Math.floor(i / distinct.length)}` };
  });
  const sim = createSimModel({ seed: 0, domains: ['arithmetic'], latencyMs });
  sim.registerTasks('arithmetic', tasks);
  const gateway = await startGateway({
    socketPath: path.join(dir, 'gw.sock'),
    providers: () => sim,
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
  const workers: ChildProcess[] = [];
  const times = new Map<string, number[]>();
  const taskTimes = new Map<string, number[]>();
  let measured = 0;
  /** Every measurement has its own task ids (so new jobs) and its own variant token (new TaskAgents). */
  const measure = async (label: string, pool: TaskPool): Promise<void> => {
    const limit = pLimit(inFlight);
    const run = ++measured;
    const started = performance.now();
    const each: number[] = [];
    await Promise.all(
      tasks.map((t) =>
        limit(async () => {
          const sent = performance.now();
          await pool.run({ id: `${t.id}-${run}`, domain: 'arithmetic', input: t.input });
          each.push(performance.now() - sent);
        }),
      ),
    );
    times.set(label, [...(times.get(label) ?? []), (performance.now() - started) / 1000]);
    taskTimes.set(label, [...(taskTimes.get(label) ?? []), median(each)]);
    await pool.close();
  };
  try {
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
      config: {
        taskModel: 'sim',
        taskTimeoutSec: 120,
        tasksPerWorker: 1,
        limits: DEFAULT_LIMITS,
        domains: [{ kind: 'named' as const, name: 'arithmetic' }],
      },
    };
    for (let round = 0; round < rounds; round++) {
      const token = gateway.issueToken({ runId: 'bench', variantId: 0, role: 'task', model: 'sim' });
      await measure(
        'local',
        createTaskPool({
          size: inFlight,
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
        while (workers.length < count)
          workers.push(await startWorker(redis.url, Math.ceil(inFlight / count)));
        const pool = await coordinator.pool(ctx, { id: measured + 1, commit: rootCommit });
        await measure(`${count} worker${count === 1 ? '' : 's'}`, pool);
      }
      await stopWorkers(workers.splice(0));
    }
  } finally {
    await stopWorkers(workers);
    await coordinator.close();
    await gateway.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return [...times].map(([label, seconds]) => ({
    path: label,
    inFlight,
    tasks: tasks.length,
    seconds: median(seconds),
    medianTaskMs: median(taskTimes.get(label) ?? []),
    rounds: seconds.length,
  }));
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

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
