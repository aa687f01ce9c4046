import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { variantRepoDir } from '../archive/index.ts';
import type { Domain, Task } from '../domains/index.ts';
import type { DomainTasks, TaskRequest } from '../harness/evaluation/index.ts';
import { createVariantRepo } from '../harness/process/index.ts';
import { defaultTaskSettings, PROJECT_ROOT } from '../harness/run/index.ts';
import { createSimModel, startGateway } from '../llm/index.ts';
import { openCoordinator, PROJECT_VERSION, parseRedisUrl } from '../queue/index.ts';
import { startRedis } from '../queue/testing/redis-server.ts';

/** One exercise graded: its id, the wall time from handing it over to its grade, and whether it passed. */
export interface Graded {
  id: string;
  seconds: number;
  passed: boolean;
}

/** Grades one exercise's reference; one grader grades one exercise at a time. */
export type Grader = (id: string) => Promise<Graded>;

/** Real queue workers behind a real Redis and coordinator, grading exercises' references as jobs. */
export interface QueueGraders {
  /** Starts `count` workers (one grading at a time each; their start is not timed) and gives one grader per worker. */
  start(count: number): Promise<Grader[]>;
  /** Stops the workers started last. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Grading through the queue as a run's does: each exercise is a job on its language's queue, carrying the
 * exercise's grader, taken by a `hyperagents worker` process (`--concurrency 1`) that grades it in its
 * sandbox. The job is the one a run sends to grade a kept workspace again (`TaskPool.regrade`): the final
 * files (here the starting files with the reference written over them), graded without running a TaskAgent,
 * so what is timed is grading on a worker and the queue around it. Each batch is an attempt of its own, so its
 * jobs are new ones, never the answers of an earlier batch.
 */
export async function startQueueGraders(
  dir: string,
  name: string,
  tasks: readonly Task[],
): Promise<QueueGraders> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'bench-queue-grading-'));
  const redis = await startRedis();
  const parsed = parseRedisUrl(redis.url);
  if (!parsed.ok) throw new Error(parsed.message);
  const sim = createSimModel({ seed: 0, domains: [] });
  const gateway = await startGateway({
    socketPath: path.join(scratch, 'gw.sock'),
    providers: () => sim,
    onWarning: () => undefined,
    onCall: () => undefined,
    tcp: true,
  });
  const coordinator = await openCoordinator({
    target: parsed.target,
    version: PROJECT_VERSION,
    gatewayUrl: null,
  });
  const runDir = path.join(scratch, 'run');
  const nodeModules = path.join(PROJECT_ROOT, 'node_modules');
  const { rootCommit } = await createVariantRepo(
    variantRepoDir(runDir),
    path.join(PROJECT_ROOT, 'agents'),
    nodeModules,
  );
  const domain: DomainTasks = { domain: { name } as Domain, splits: { train: [...tasks] } };
  const ctx = {
    runId: 'bench',
    runDir,
    gateway,
    signal: new AbortController().signal,
    progress: () => undefined,
    taskSettings: defaultTaskSettings(),
    domains: [domain],
    config: { taskModel: 'sim', tasksPerWorker: 1, domains: [{ kind: 'exercism' as const, name, dir }] },
  };
  const byId = new Map(tasks.map((t) => [t.id, t]));
  let workers: ChildProcess[] = [];
  let batches = 0;
  const stop = async () => {
    await Promise.all(workers.map(stopWorker));
    workers = [];
  };
  return {
    async start(count) {
      await stop();
      workers = await Promise.all(Array.from({ length: count }, () => startWorker(redis.url)));
      const pool = await coordinator.pool(ctx, { id: 0, commit: rootCommit }, ++batches);
      const grade: Grader = async (id) => {
        const task = byId.get(id);
        if (task?.workspace === undefined) throw new Error(`${id} is no workspace task of ${dir}`);
        const request: TaskRequest = { id, domain: name, input: task.input, workspace: task.workspace };
        const files = {
          ...task.workspace.files,
          ...(task.answer as { reference: Record<string, string> }).reference,
        };
        const started = performance.now();
        const reply = await pool.regrade!(request, { kind: 'files', files, skipped: [] });
        const seconds = (performance.now() - started) / 1000;
        if (reply.kind !== 'reply')
          throw new Error(`${id} was not graded on a worker: ${JSON.stringify(reply)}`);
        return { id, seconds, passed: reply.graded?.score === 1 };
      };
      return Array.from({ length: count }, () => grade);
    },
    stop,
    async close() {
      await stop();
      await coordinator.close();
      await gateway.close();
      await redis.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** A `hyperagents worker` grading one task at a time, resolved once it says it takes tasks. */
function startWorker(url: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'), 'worker', '--queue', url, '--concurrency', '1'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (/^worker \S+: taking tasks/m.test(log)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`a worker exited (${code}) before starting: ${log}`)));
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
