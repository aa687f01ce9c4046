import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { loadArithmetic } from '../domains/arithmetic/index.ts';
import { buildAgentEntry } from '../harness/agent-build.ts';
import { agentEnv } from '../harness/agent-processes.ts';
import { taskAgentCommand } from '../harness/generation-session.ts';
import { DEFAULT_LIMITS } from '../harness/resource-limits.ts';
import { HARNESS_VERSION, PROJECT_ROOT } from '../harness/run-config.ts';
import { createTaskPool, type TaskPool } from '../harness/task-workers.ts';
import { createVariantRepo } from '../harness/variant-repo.ts';
import { startGateway } from '../llm/gateway.ts';
import { createSimModel } from '../llm/sim/sim-model.ts';
import { openCoordinator } from '../queue/coordinator.ts';
import { parseRedisUrl } from '../queue/redis-url.ts';
import { startRedis } from '../queue/testing/redis-server.ts';

export interface QueueThroughput {
  /** `local`, or how many `hyperagents worker` processes took the tasks. */
  path: string;
  inFlight: number;
  tasks: number;
  seconds: number;
}

/**
 * Evaluation throughput of one variant's tasks: local TaskAgent processes against the queue path with one and
 * with two real `hyperagents worker` processes (a real redis-server, the coordinator's gateway over TCP and
 * each worker's relay), at the same number of tasks in flight, with the sim's fixed latency standing in for
 * the model. The queue's time includes each worker fetching and building the variant. No sandbox: what is
 * measured is the queue, not bubblewrap.
 */
export async function benchQueueThroughput(
  latencyMs: number,
  taskCount: number,
  inFlight: number,
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
    version: HARNESS_VERSION,
    gatewayUrl: null,
  });
  const workers: ChildProcess[] = [];
  const results: QueueThroughput[] = [];
  const measure = async (label: string, pool: TaskPool, runs: number): Promise<void> => {
    const limit = pLimit(inFlight);
    const started = performance.now();
    await Promise.all(
      tasks.map((t) =>
        limit(() => pool.run({ id: `${t.id}-${runs}`, domain: 'arithmetic', input: t.input })),
      ),
    );
    results.push({
      path: label,
      inFlight,
      tasks: tasks.length,
      seconds: (performance.now() - started) / 1000,
    });
    await pool.close();
  };
  try {
    const worktree = path.join(dir, 'local');
    const built = await buildAgentEntry({
      worktree: PROJECT_ROOT,
      entry: 'agents/task/main.ts',
      outDir: path.join(worktree, 'build'),
      nodeModules,
    });
    const token = gateway.issueToken({ runId: 'bench', variantId: 0, role: 'task', model: 'sim' });
    await measure(
      'local',
      createTaskPool({
        size: inFlight,
        command: taskAgentCommand(
          { kind: 'none', why: 'benchmark' },
          { workdir: PROJECT_ROOT, writable: false, readOnly: [nodeModules], limits: DEFAULT_LIMITS },
          built,
          agentEnv({ url: gateway.url, token }),
        ),
        taskTimeoutMs: 120_000,
        logFile: path.join(dir, 'local.log'),
      }),
      0,
    );
    const runDir = path.join(dir, 'run');
    const { rootCommit } = await createVariantRepo(
      path.join(runDir, 'variants.git'),
      path.join(PROJECT_ROOT, 'agents'),
      nodeModules,
    );
    const ctx = {
      runId: 'bench',
      runDir,
      gateway,
      signal: new AbortController().signal,
      config: { taskModel: 'sim', taskTimeoutSec: 120, limits: DEFAULT_LIMITS },
    };
    for (const count of [1, 2]) {
      while (workers.length < count) {
        workers.push(await startWorker(redis.url, Math.ceil(inFlight / count)));
      }
      // Its own task ids and variant token: new jobs, and new TaskAgent processes on every worker.
      await measure(
        `${count} worker${count === 1 ? '' : 's'}`,
        await coordinator.pool(ctx, { id: count, commit: rootCommit }),
        count,
      );
    }
  } finally {
    for (const worker of workers) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    await coordinator.close();
    await gateway.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
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
