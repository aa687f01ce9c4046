import { Job, Queue, QueueEvents } from 'bullmq';
import type { connectionOptions } from './connection.ts';
import { PREFIX } from './protocol.ts';

/**
 * How often every awaited job is looked at, beside the events, and what workers read beside the jobs made
 * present again: finds what a Redis restart lost.
 */
const SWEEP_MS = 1000;
/** Tries of one job: a worker that cannot reach the gateway fails it, and it is tried again later. */
const ATTEMPTS = 20;
export const KEEP_SECONDS = 7 * 24 * 3600;

/** What the coordinator waits for on one queue, and how it reads what comes back. */
export interface AwaitedJobsOptions<R> {
  connection: ReturnType<typeof connectionOptions>;
  queueName: string;
  /** BullMQ's name of each job (shown by queue tools). */
  jobName: string;
  /**
   * A completed job's result, read with the job's data as Redis holds it; a value this version cannot read
   * becomes an infrastructure failure.
   */
  read(returnvalue: unknown, data: unknown): R | null;
  /** The result standing for a job that gave none: its tries ran out, the run was interrupted, Redis closed. */
  infra(reason: string, latencyMs: number): R;
  /** False for a completed job's result that is none (an infrastructure failure): a job found with it runs again. */
  isResult(result: R): boolean;
}

export interface AwaitedJobs<R> {
  /**
   * Adds the job (or finds it: the id is derived from the work, so a job already added, running or done is
   * the same job) and resolves with its result. `publish` makes present what workers read beside the job (the
   * gateway's address, the variant's code): called before the job is added, every SWEEP_MS while it is
   * awaited, and before a job Redis lost is added again, so it must be cheap when nothing is missing. A job
   * found failed, or completed with no result (see `isResult`), is run again. Never rejects.
   */
  run(jobId: string, data: object, signal: AbortSignal, publish: () => Promise<void>): Promise<R>;
  /** Jobs awaited now (added or being added, no result yet). */
  pending(): number;
  queue: Queue;
  close(): Promise<void>;
}

interface Waiter<R> {
  jobId: string;
  data: object;
  publish: () => Promise<void>;
  started: number;
  checking: boolean;
  /** Set when an event arrived while `checking`. */
  again: boolean;
  resolve(result: R): void;
}

/** One queue's jobs and the coordinator's waiters on them. */
interface Awaiting<R> {
  options: AwaitedJobsOptions<R>;
  queue: Queue;
  waiters: Map<string, Waiter<R>>;
}

/**
 * Jobs on one BullMQ queue that the coordinator awaits: each is looked at when the queue says it completed or
 * failed, and every second beside (Redis may have restarted and lost it: it is then added again).
 */
export function openAwaitedJobs<R>(options: AwaitedJobsOptions<R>): AwaitedJobs<R> {
  const { connection } = options;
  const queue = new Queue(options.queueName, { connection, prefix: PREFIX });
  const events = new QueueEvents(options.queueName, { connection, prefix: PREFIX });
  queue.on('error', () => undefined);
  events.on('error', () => undefined);
  const state: Awaiting<R> = { options, queue, waiters: new Map() };
  const sweep = setInterval(() => {
    // Once per publisher (a variant's tasks share one), not once per job.
    for (const publish of new Set([...state.waiters.values()].map((w) => w.publish)))
      void publish().catch(() => undefined);
    for (const waiter of state.waiters.values()) void check(state, waiter).catch(() => undefined);
  }, SWEEP_MS);
  const wake = ({ jobId }: { jobId: string }): void => {
    const waiter = state.waiters.get(jobId);
    if (waiter !== undefined) void check(state, waiter).catch(() => undefined);
  };
  events.on('completed', wake);
  events.on('failed', wake);

  return {
    queue,
    run: (jobId, data, signal, publish) => awaitJob(state, jobId, data, signal, publish),
    pending: () => state.waiters.size,
    async close() {
      clearInterval(sweep);
      for (const waiter of [...state.waiters.values()])
        finish(state, waiter, options.infra('the coordinator closed', 0));
      await events.close();
      await queue.close();
    },
  };
}

function add<R>({ options, queue }: Awaiting<R>, waiter: Waiter<R>): Promise<Job> {
  return queue.add(options.jobName, waiter.data, {
    jobId: waiter.jobId,
    attempts: ATTEMPTS,
    backoff: { type: 'fixed', delay: 2000 },
    removeOnComplete: { age: KEEP_SECONDS },
    removeOnFail: { age: KEEP_SECONDS },
  });
}

function finish<R>(state: Awaiting<R>, waiter: Waiter<R>, result: R): void {
  if (!state.waiters.delete(waiter.jobId)) return;
  waiter.resolve(result);
}

/** Adds the job (or finds it) and resolves with its result; see AwaitedJobs.run. */
function awaitJob<R>(
  state: Awaiting<R>,
  jobId: string,
  data: object,
  signal: AbortSignal,
  publish: () => Promise<void>,
): Promise<R> {
  const started = Date.now();
  return new Promise<R>((resolve) => {
    const waiter: Waiter<R> = { jobId, data, publish, started, checking: false, again: false, resolve };
    const onAbort = (): void =>
      finish(state, waiter, state.options.infra('interrupted', Date.now() - started));
    signal.addEventListener('abort', onAbort, { once: true });
    waiter.resolve = (result) => {
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    state.waiters.set(jobId, waiter);
    void (async () => {
      // Redis may have restarted since the publisher last wrote (between two stages, say): a job added
      // without what its workers read would fail every try. Should this fail, the sweep publishes again.
      await publish().catch(() => undefined);
      await add(state, waiter);
      await runAgainIfNoResult(state, jobId);
      await check(state, waiter);
    })().catch(() => undefined);
  });
}

/**
 * A job found failed (its tries ran out, perhaps while a resumed coordinator was down) or completed without a
 * result (an infrastructure failure on its worker) is tried again, with all its tries: it has no result, and
 * an awaited job must end in one or in an infrastructure failure of this wait's own.
 */
async function runAgainIfNoResult<R>({ options, queue }: Awaiting<R>, jobId: string): Promise<void> {
  const jobState = await queue.getJobState(jobId);
  if (jobState !== 'failed' && jobState !== 'completed') return;
  const job = await Job.fromId(queue, jobId);
  if (job === undefined) return;
  if (jobState === 'completed') {
    const result = options.read(job.returnvalue, job.data);
    if (result === null || options.isResult(result)) return;
  }
  await job.retry(jobState, { resetAttemptsMade: true, resetAttemptsStarted: true });
}

/** Looks at the waiter's job: added again if Redis lost it, and the waiter resolved once it completed or failed. */
async function check<R>(state: Awaiting<R>, waiter: Waiter<R>): Promise<void> {
  if (waiter.checking) {
    // An event during a look that may have read the state before it: look once more afterwards.
    waiter.again = true;
    return;
  }
  waiter.checking = true;
  waiter.again = false;
  const { options, queue } = state;
  try {
    const jobState = await queue.getJobState(waiter.jobId);
    if (jobState === 'unknown') {
      // Redis lost it (restarted without persistence), and with it what workers read beside it.
      await waiter.publish();
      await add(state, waiter);
      return;
    }
    if (jobState !== 'completed' && jobState !== 'failed') return;
    // Read after its state: a job becomes completed together with its result, so the job read now holds
    // it (read before, it could be the job of a moment earlier, without its result).
    const job = await Job.fromId(queue, waiter.jobId);
    if (job === undefined) return;
    if (jobState === 'completed') {
      finish(
        state,
        waiter,
        options.read(job.returnvalue, job.data) ??
          options.infra('a worker returned a result this version cannot read', 0),
      );
    } else {
      finish(
        state,
        waiter,
        options.infra(
          `queue job failed after ${job.attemptsMade} tries: ${job.failedReason}`,
          Date.now() - waiter.started,
        ),
      );
    }
  } finally {
    waiter.checking = false;
    if (waiter.again && state.waiters.has(waiter.jobId)) void check(state, waiter).catch(() => undefined);
  }
}
