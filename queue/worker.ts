import { mkdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createGradeContext, createTaskPool, type TaskPool } from '../harness/evaluation/index.ts';
import { entryCommand, TASK_ENTRY } from '../harness/generation/index.ts';
import type { ResolvedSandbox } from '../harness/process/index.ts';
import { type AgentEntry, agentEnv, buildAgentEntry } from '../harness/process/index.ts';
import { fetchTree } from './code-transfer.ts';
import { connectionOptions } from './connection.ts';
import {
  editQueueName,
  encodeTaskResult,
  gatewayKey,
  PREFIX,
  type TaskJob,
  type TaskJobResult,
  TaskJobSchema,
  taskQueueName,
  VERSION_KEY,
} from './protocol.ts';
import { formatRedisTarget, type RedisTarget } from './redis-url.ts';
import { type RedisEvent, watchRedis } from './redis-watch.ts';
import { type Relay, reachable, startRelay } from './relay.ts';
import { editJobProcessor } from './worker-edits.ts';
import { createWorkerGrader } from './worker-grading.ts';

export interface QueueWorkerOptions {
  target: RedisTarget;
  version: string;
  /** Tasks run at once, each in its own TaskAgent process; and MetaAgent runs at once, beside them. */
  concurrency: number;
  sandbox: ResolvedSandbox;
  /** This installation's node_modules: variants resolve their packages from it, read-only. */
  nodeModules: string;
  /** A folder of this worker's own, removed at close: variants' trees, builds, relay sockets, logs. */
  workDir: string;
  /** One line per event worth a person's attention (a job retried, a variant prepared). */
  note(line: string): void;
  /** How often a job whose worker died is noticed (BullMQ's stalled check); default 5 s. */
  stalledMs?: number;
  /** Told when Redis stops answering, while it does not, and when it is back. */
  onRedis?(event: RedisEvent): void;
}

export type StartedWorker = { ok: true; id: string; close(): Promise<void> } | { ok: false; message: string };

/** What a worker holds for one variant's commit while its tasks come: its tree, its build, its TaskAgents. */
interface Prepared {
  dir: string;
  entry: AgentEntry;
  pools: Map<string, TaskPool>;
  lastUsed: number;
  running: number;
}

const IDLE_MS = 30_000;

/**
 * Takes task jobs from the queue of this project version: fetches the variant's tree from Redis, builds its
 * TaskAgent, runs it in this machine's sandbox with the coordinator's gateway reached through a local relay,
 * grades the reply with this installation's own copy of the domain (for a domain shipped with the project;
 * the project version makes the copies equal, and gold answers never cross the network), and returns both as
 * the job's result. It takes MetaAgent jobs (`--remote-generations`) from a second queue the same way
 * (see worker-edits.ts). A job that could not reach the gateway fails and is tried again later (the coordinator may be
 * restarting); a worker killed mid-job leaves it to BullMQ's stalled-job check.
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<StartedWorker> {
  const connection = connectionOptions(options.target);
  const client = new Redis(connection);
  client.on('error', () => undefined);
  const theirs = await client.get(VERSION_KEY);
  if (theirs !== null && theirs !== options.version) {
    client.disconnect();
    return {
      ok: false,
      message: `This worker runs hyperagents-ts ${options.version}, but the coordinator using this Redis runs ${theirs} (after the "+" is a hash of the project's domains/, harness/ and queue/ code: workers grade with their own copy of the domains, so it must match too). Install the same version on every machine (the same checkout, then npm ci), then start the worker again.`,
    };
  }
  mkdirSync(options.workDir, { recursive: true });
  const stopWatching = watchRedis(client, formatRedisTarget(options.target), (event) =>
    options.onRedis?.(event),
  );
  const id = `${hostname()}-${process.pid}`;
  const prepared = new Map<string, Promise<Prepared>>();
  let preparedCount = 0;
  const relays = new Map<string, Promise<Relay>>();
  const grader = createWorkerGrader(
    createGradeContext({ sandbox: options.sandbox, nodeModules: options.nodeModules }),
  );

  const relayFor = (url: string): Promise<Relay> => {
    let relay = relays.get(url);
    if (relay === undefined) {
      const socket = path.join(options.workDir, `gateway-${relays.size}.sock`);
      relay = startRelay(socket, new URL(url));
      relays.set(url, relay);
    }
    return relay;
  };

  const prepare = (job: TaskJob): Promise<Prepared> => {
    const key = `${job.runKey}:${job.commit}`;
    let ready = prepared.get(key);
    if (ready === undefined) {
      ready = (async () => {
        // A folder of its own: an idle copy of the same commit being closed may still be removing its folder.
        const dir = path.join(
          options.workDir,
          `${job.runKey.slice(0, 12)}-${job.commit.slice(0, 12)}-${++preparedCount}`,
        );
        await fetchTree(client, job, path.join(dir, 'tree'), options.nodeModules);
        const entry = await buildAgentEntry({
          worktree: path.join(dir, 'tree'),
          entry: TASK_ENTRY,
          outDir: path.join(dir, 'build'),
          nodeModules: options.nodeModules,
          // Most variants' code equals an earlier one's (an edit to a prompt), so it is bundled once.
          cacheDir: path.join(options.workDir, 'build-cache'),
        });
        options.note(`variant ${job.variantId} of run ${job.runId}: ready (${entry.kind})`);
        return { dir, entry, pools: new Map(), lastUsed: Date.now(), running: 0 };
      })();
      prepared.set(key, ready);
      ready.catch(() => prepared.delete(key));
    }
    return ready;
  };

  const poolFor = async (job: TaskJob, variant: Prepared, relay: Relay): Promise<TaskPool> => {
    const key = `${job.token}:${relay.socketPath}`;
    let pool = variant.pools.get(key);
    if (pool === undefined) {
      const worktree = path.join(variant.dir, 'tree');
      pool = createTaskPool({
        size: options.concurrency,
        tasksPerWorker: job.tasksPerWorker,
        command: entryCommand(
          options.sandbox,
          {
            workdir: worktree,
            writable: false,
            readOnly: [options.nodeModules],
            gatewaySocket: relay.socketPath,
            limits: job.limits,
          },
          variant.entry,
          [],
          agentEnv({ url: `unix:${relay.socketPath}`, token: job.token }),
        ),
        taskTimeoutMs: job.taskTimeoutMs,
        logFile: path.join(variant.dir, 'task-agent.log'),
        outputCapBytes: job.limits.outputKb * 1024,
      });
      variant.pools.set(key, pool);
    }
    return pool;
  };

  const processTask = async (job: Job): Promise<TaskJobResult> => {
    const parsed = TaskJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError('a job this version cannot read');
    const task = parsed.data;
    if (task.version !== options.version) {
      throw new UnrecoverableError(`job of version ${task.version}, worker of version ${options.version}`);
    }
    const url = await client.get(gatewayKey(task.runKey));
    if (url === null) throw new Error('the coordinator has not published its gateway');
    const relay = await relayFor(url);
    const variant = await prepare(task);
    variant.running += 1;
    try {
      const pool = await poolFor(task, variant, relay);
      const failuresBefore = relay.failures();
      const reply = await pool.run(task.request);
      // Its pool was closed (the worker is stopping): no answer, so the job is tried again elsewhere.
      if (reply.kind === 'closed') throw new Error('the worker stopped before the task had an answer');
      // A reply spoilt by a coordinator that went away is not a result: the job is tried again later.
      const failed = reply.kind === 'infra' || reply.error !== null;
      if (relay.failures() > failuresBefore || (failed && !(await reachable(new URL(url))))) {
        const reason = `a model call through the coordinator's gateway at ${url} failed in transit (${relay.lastFailure() ?? 'no answer'}); the job will be tried again`;
        options.note(`job ${job.id}: ${reason}`);
        throw new Error(reason);
      }
      if (reply.kind === 'infra' || reply.error !== null || !task.gradeHere) return encodeTaskResult(reply);
      const graded = await grader.grade(task.request, reply.output);
      return encodeTaskResult(graded === null ? reply : { ...reply, graded });
    } finally {
      variant.running -= 1;
      variant.lastUsed = Date.now();
    }
  };

  const workerOptions = {
    connection,
    prefix: PREFIX,
    concurrency: options.concurrency,
    name: id,
    stalledInterval: options.stalledMs ?? 5000,
    lockDuration: 2 * (options.stalledMs ?? 5000),
    maxStalledCount: 10,
  };
  const worker = new Worker(taskQueueName(options.version), processTask, workerOptions);
  worker.on('error', () => undefined);
  const processEdit = editJobProcessor({
    name: id,
    version: options.version,
    client,
    relayFor,
    sandbox: options.sandbox,
    nodeModules: options.nodeModules,
    workDir: options.workDir,
    note: options.note,
  });
  const editWorker = new Worker(editQueueName(options.version), processEdit, workerOptions);
  editWorker.on('error', () => undefined);

  const sweep = setInterval(() => {
    for (const [key, ready] of prepared) {
      void ready.then(async (variant) => {
        if (variant.running > 0 || Date.now() - variant.lastUsed < IDLE_MS) return;
        prepared.delete(key);
        await closeVariant(variant);
      });
    }
  }, 5000);

  return {
    ok: true,
    id,
    async close() {
      clearInterval(sweep);
      stopWatching();
      await worker.close();
      await editWorker.close();
      for (const ready of prepared.values()) await ready.then(closeVariant, () => undefined);
      for (const relay of relays.values())
        await relay.then(
          (r) => r.close(),
          () => undefined,
        );
      client.disconnect();
      rmSync(options.workDir, { recursive: true, force: true });
    },
  };
}

async function closeVariant(variant: Prepared): Promise<void> {
  for (const pool of variant.pools.values()) await pool.close();
  rmSync(variant.dir, { recursive: true, force: true });
}
