import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { parseDomainRefs } from '../domains/reference.ts';
import type { RemoteTaskContext, RemoteTasks } from '../harness/run-context.ts';
import type { TaskRequest, WorkerReply } from '../harness/task-workers.ts';
import { connectionOptions } from './connection.ts';
import {
  codeKey,
  gatewayKey,
  PREFIX,
  type TaskJob,
  TaskJobResultSchema,
  taskJobId,
  taskQueueName,
  VERSION_KEY,
} from './protocol.ts';
import type { RedisTarget } from './redis-url.ts';
import { runSecret } from './run-secret.ts';

const execGit = promisify(execFile);

/** How often every awaited job is looked at, beside the events: finds jobs a Redis restart lost. */
const SWEEP_MS = 1000;
/** Tries of one job: a worker that cannot reach the gateway fails it, and it is tried again later. */
const ATTEMPTS = 20;
const KEEP_SECONDS = 7 * 24 * 3600;

export interface CoordinatorOptions {
  target: RedisTarget;
  version: string;
  /** The gateway's address as workers reach it; default: the address it listens on. */
  gatewayUrl: string | null;
}

export type Coordinator = RemoteTasks & {
  /** Worker processes connected to the queue now. */
  workers(): Promise<number>;
  close(): Promise<void>;
};

interface Waiter {
  job: TaskJob;
  jobId: string;
  started: number;
  checking: boolean;
  /** Set when an event arrived while `checking`. */
  again: boolean;
  resolve(reply: WorkerReply): void;
}

/**
 * The coordinator's side of the queue: each task of a variant becomes one BullMQ job, whose id is derived
 * from the task (run, commit, domain, task id, input), so adding it again (after a restart of the
 * coordinator or of Redis) finds the job already there, or its result, instead of running it twice.
 */
export async function openCoordinator(options: CoordinatorOptions): Promise<Coordinator> {
  const connection = connectionOptions(options.target);
  const name = taskQueueName(options.version);
  const queue = new Queue(name, { connection, prefix: PREFIX });
  const events = new QueueEvents(name, { connection, prefix: PREFIX });
  queue.on('error', () => undefined);
  events.on('error', () => undefined);
  const client = new Redis(connection);
  client.on('error', () => undefined);
  await client.set(VERSION_KEY, options.version);
  const waiters = new Map<string, Waiter>();
  /** Writes what workers read for a variant (its tree, the gateway's address) again: Redis may have lost it. */
  const published = new Map<string, () => Promise<void>>();

  const add = (waiter: Waiter) =>
    queue.add('task', waiter.job, {
      jobId: waiter.jobId,
      attempts: ATTEMPTS,
      backoff: { type: 'fixed', delay: 2000 },
      removeOnComplete: { age: KEEP_SECONDS },
      removeOnFail: { age: KEEP_SECONDS },
    });

  const finish = (waiter: Waiter, reply: WorkerReply): void => {
    if (!waiters.delete(waiter.jobId)) return;
    waiter.resolve(reply);
  };

  const check = async (waiter: Waiter): Promise<void> => {
    if (waiter.checking) {
      // An event during a look that may have read the state before it: look once more afterwards.
      waiter.again = true;
      return;
    }
    waiter.checking = true;
    waiter.again = false;
    try {
      const state = await queue.getJobState(waiter.jobId);
      if (state === 'unknown') {
        // Redis lost it (restarted without persistence), and with it what workers read for the variant.
        await published.get(`${waiter.job.runKey}:${waiter.job.commit}`)?.();
        await add(waiter);
        return;
      }
      if (state !== 'completed' && state !== 'failed') return;
      // Read after its state: a job becomes completed together with its result, so the job read now holds
      // it (read before, it could be the job of a moment earlier, without its result).
      const job = await Job.fromId(queue, waiter.jobId);
      if (job === undefined) return;
      if (state === 'completed') {
        const parsed = TaskJobResultSchema.safeParse(job.returnvalue);
        finish(
          waiter,
          parsed.success
            ? parsed.data
            : { kind: 'infra', reason: 'a worker returned a result this version cannot read', latencyMs: 0 },
        );
      } else if (state === 'failed') {
        finish(waiter, {
          kind: 'infra',
          reason: `queue job failed after ${job.attemptsMade} tries: ${job.failedReason}`,
          latencyMs: Date.now() - waiter.started,
        });
      }
    } finally {
      waiter.checking = false;
      if (waiter.again && waiters.has(waiter.jobId)) void check(waiter).catch(() => undefined);
    }
  };

  const sweep = setInterval(() => {
    for (const waiter of waiters.values()) void check(waiter).catch(() => undefined);
  }, SWEEP_MS);
  const wake = ({ jobId }: { jobId: string }): void => {
    const waiter = waiters.get(jobId);
    if (waiter !== undefined) void check(waiter).catch(() => undefined);
  };
  events.on('completed', wake);
  events.on('failed', wake);

  const runQueued = async (job: TaskJob, signal: AbortSignal): Promise<WorkerReply> => {
    const jobId = taskJobId(job);
    const started = Date.now();
    return new Promise<WorkerReply>((resolve) => {
      const waiter: Waiter = { job, jobId, started, checking: false, again: false, resolve };
      const onAbort = (): void =>
        finish(waiter, { kind: 'infra', reason: 'interrupted', latencyMs: Date.now() - started });
      signal.addEventListener('abort', onAbort, { once: true });
      waiter.resolve = (reply) => {
        signal.removeEventListener('abort', onAbort);
        resolve(reply);
      };
      waiters.set(jobId, waiter);
      void (async () => {
        const added = await add(waiter);
        // A job a resumed coordinator finds failed (its tries ran out while it was down) is tried again.
        if ((await added.getState()) === 'failed') await added.retry('failed');
        await check(waiter);
      })().catch(() => undefined);
    });
  };

  return {
    async pool(ctx: RemoteTaskContext, variant: { id: number; commit: string }) {
      const secret = runSecret(ctx.runDir);
      const token = ctx.gateway.issueToken(
        { runId: ctx.runId, variantId: variant.id, role: 'task', model: ctx.config.taskModel },
        secret.taskToken(variant.id),
      );
      const gatewayUrl = options.gatewayUrl ?? ctx.gateway.tcpUrl;
      if (gatewayUrl === undefined)
        throw new Error('the gateway listens on no TCP address for queue workers');
      const publish = async (): Promise<void> => {
        await client.set(gatewayKey(secret.runKey), gatewayUrl);
        const tar = await gitArchive(path.join(ctx.runDir, 'variants.git'), variant.commit);
        await client.setex(codeKey(secret.runKey, variant.commit), KEEP_SECONDS, tar);
      };
      await publish();
      published.set(`${secret.runKey}:${variant.commit}`, publish);
      const base = {
        version: options.version,
        runKey: secret.runKey,
        runId: ctx.runId,
        variantId: variant.id,
        commit: variant.commit,
        token,
        taskTimeoutMs: ctx.config.taskTimeoutSec * 1000,
        limits: ctx.config.limits,
      };
      const shipped = shippedDomains(ctx.config.domains);
      return {
        run: (request: TaskRequest) =>
          runQueued({ ...base, request, gradeHere: shipped.has(request.domain) }, ctx.signal),
        // Workers start their TaskAgents when their first job of the variant arrives.
        warm() {},
        async close() {
          ctx.gateway.revokeToken(token);
        },
      };
    },
    workers: () => queue.getWorkersCount(),
    async close() {
      clearInterval(sweep);
      for (const waiter of [...waiters.values()]) {
        finish(waiter, { kind: 'infra', reason: 'the coordinator closed', latencyMs: 0 });
      }
      await events.close();
      await queue.close();
      client.disconnect();
    },
  };
}

/** Names of the run's domains that come with the project (a worker has them); not users' datasets. */
function shippedDomains(domains: readonly string[]): Set<string> {
  const parsed = parseDomainRefs(domains);
  return new Set(parsed.ok ? parsed.refs.filter((r) => r.kind === 'named').map((r) => r.name) : []);
}

/** The variant's whole tree at `commit`, as git stores it (no links: the gate refused those). */
async function gitArchive(gitDir: string, commit: string): Promise<Buffer> {
  const { stdout } = await execGit('git', ['--git-dir', gitDir, 'archive', '--format=tar', commit], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}
