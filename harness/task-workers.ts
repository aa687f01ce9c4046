import type { ChildProcess } from 'node:child_process';
import { createRedactor, type Redactor } from '../archive/redact.ts';
import { type CommandSpec, killGroup, startTracked } from './agent-processes.ts';
import { type CappedLog, capText, openCappedLog } from './capped-output.ts';
import type { Graded } from './grading.ts';
import { DEFAULT_LIMITS } from './resource-limits.ts';

export type { CommandSpec } from './agent-processes.ts';

export interface TaskRequest {
  id: string;
  domain: string;
  input: unknown;
  formatHint?: string;
}

/**
 * A reply the TaskAgent gave (its `error` is a model failure, a result), or an infrastructure failure.
 * `graded` is set when the reply was already graded where it ran (a queue worker).
 */
export type WorkerReply =
  | { kind: 'reply'; output: string; error: string | null; latencyMs: number; graded?: Graded }
  | { kind: 'infra'; reason: string; latencyMs: number };

export interface TaskPoolOptions {
  /** Tasks run at once. */
  size: number;
  /**
   * Tasks one TaskAgent process runs at once (default 1): the pool starts ⌈size ÷ this⌉ processes. A process
   * given several answers each by id as it finishes; with 1, the next task waits in its input instead.
   */
  tasksPerWorker?: number;
  command: CommandSpec;
  taskTimeoutMs: number;
  /** Workers' stderr is appended here (redacted, cut at `outputCapBytes`); a folder no agent can write. */
  logFile: string;
  /** Cap of the log and of each reply's output; a reply line longer than twice this breaks the protocol. */
  outputCapBytes?: number;
  redact?: Redactor;
  /** Shared with other pools: together they run at most that many tasks at once. Default: `size` of its own. */
  slots?: TaskSlots;
}

/**
 * A count of tasks that may run at once, shared by the pools of one run. A task holds a slot while its
 * worker runs it; a worker that goes straight on to the task waiting in its input hands its slot over.
 */
export interface TaskSlots {
  /** Takes a slot if one is free. */
  take(): boolean;
  give(): void;
  /** Called once each time a slot is given back, until unsubscribed. */
  onFree(listener: () => void): () => void;
}

export function createTaskSlots(count: number): TaskSlots {
  let free = count;
  const listeners = new Set<() => void>();
  return {
    take() {
      if (free <= 0) return false;
      free -= 1;
      return true;
    },
    give() {
      free += 1;
      for (const listener of [...listeners]) listener();
    },
    onFree(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** A worker's answer to one try of a task; `unstarted`: the worker was lost before it began the task. */
type Attempt = WorkerReply | { kind: 'unstarted' };

interface Job {
  request: TaskRequest;
  settle: (attempt: Attempt) => void;
  /** When the worker began it (or, while it waits in the worker's input, when it was written there). */
  since: number;
  timer?: ReturnType<typeof setTimeout>;
}

interface Worker {
  child: ChildProcess;
  /**
   * The tasks the worker runs (the first `tasksPerWorker`, each holding a slot), in the order given, then,
   * for a worker that runs one at a time, the one waiting in its input (never more than LOOKAHEAD).
   */
  jobs: Job[];
  exited: boolean;
  stderrTail: string;
}

/**
 * Tasks written to the input of a busy worker that runs one task at a time, beyond the one it runs: it
 * starts the next as soon as it has answered, instead of waiting for the harness to read the answer and send
 * another (on a loaded machine each wake-up of a process costs milliseconds). A waiting task holds no slot:
 * it takes over its worker's.
 */
const LOOKAHEAD = 1;

/** How many processes run `size` tasks at once, `tasksPerWorker` each. */
export function workerCount(size: number, tasksPerWorker: number): number {
  return Math.max(1, Math.ceil(size / Math.max(1, tasksPerWorker)));
}

/**
 * Long-lived TaskAgent processes fed JSON lines: at most `size` tasks at once (and no more than the shared
 * slots allow), `tasksPerWorker` in each process. A task goes to the least busy worker that has room, and a
 * new worker starts only when none has. Workers that run one task at a time get the next one in their input
 * already when callers have more tasks than workers. A worker that crashes, hangs past a task's timeout or
 * breaks the protocol is killed and replaced: the tasks it ran fail (and are retried once), a task waiting
 * in its input had not started and is handed to another worker.
 */
export function createTaskPool(options: TaskPoolOptions): TaskPool {
  const perWorker = Math.max(1, options.tasksPerWorker ?? 1);
  const maxWorkers = workerCount(options.size, perWorker);
  const lookahead = perWorker === 1 ? LOOKAHEAD : 0;
  const capBytes = options.outputCapBytes ?? DEFAULT_LIMITS.outputKb * 1024;
  const log: CappedLog = openCappedLog(options.logFile, capBytes, options.redact ?? createRedactor());
  const note = (text: string | Buffer): void => log.write(text);
  const slots = options.slots ?? createTaskSlots(options.size);
  const workers = new Set<Worker>();
  /** Workers that take no more tasks (one of theirs timed out) and are stopped once the others are answered. */
  const draining = new Set<Worker>();
  const waiting: Job[] = [];
  let closed = false;
  let unsubscribe: (() => void) | null = null;

  const spawnWorker = (): Worker => {
    const child = startTracked(options.command, 'pipe');
    const worker: Worker = { child, jobs: [], exited: false, stderrTail: '' };
    child.stderr?.on('data', (chunk: Buffer) => {
      note(chunk);
      worker.stderrTail = (worker.stderrTail + chunk.toString()).slice(-2000);
    });
    onLines(child, 2 * capBytes + 4096, (text) => {
      if (text === null) {
        note(`[harness] a stdout line passed ${2 * capBytes + 4096} bytes: the worker was stopped\n`);
        lose(worker, 'TaskAgent exited (SIGKILL)');
        return;
      }
      const reply = parseReply(text, capBytes);
      const index = reply === null ? -1 : worker.jobs.findIndex((j) => j.request.id === reply.id);
      if (reply === null || index < 0) {
        note(`[harness] ignored a stdout line that is not a reply: ${text.slice(0, 200)}\n`);
        return;
      }
      const [job] = worker.jobs.splice(index, 1);
      if (job === undefined) return;
      clearTimeout(job.timer);
      if (index < perWorker) {
        // A task waiting in the worker's input starts now, in the slot this one held.
        const next = worker.jobs[perWorker - 1];
        if (next !== undefined) begin(worker, next);
        else slots.give();
      }
      if (draining.has(worker) && worker.jobs.length === 0) lose(worker, 'drained');
      job.settle({
        kind: 'reply',
        output: reply.output,
        error: reply.error,
        latencyMs: Date.now() - job.since,
      });
      pump();
    });
    child.on('exit', (code, signal) => {
      const tail = worker.stderrTail.trim().split('\n').slice(-3).join(' | ');
      lose(worker, `TaskAgent exited (${signal ?? `code ${code}`})${tail === '' ? '' : `: ${tail}`}`, false);
    });
    child.stdin?.on('error', () => undefined);
    workers.add(worker);
    return worker;
  };

  /** A task of the worker starts now: its latency and timeout count from here. */
  const begin = (worker: Worker, job: Job): void => {
    job.since = Date.now();
    job.timer = setTimeout(() => timedOut(worker, job), options.taskTimeoutMs);
  };

  /**
   * A worker that runs one task at a time is killed with it. One that runs several fails that task alone and
   * drains: the tasks it runs beside it go on (they are not to blame), it gets no more, and it is stopped
   * when they are answered.
   */
  const timedOut = (worker: Worker, job: Job): void => {
    const reason = `no reply within ${options.taskTimeoutMs / 1000} s`;
    if (perWorker === 1) {
      lose(worker, reason);
      return;
    }
    worker.jobs = worker.jobs.filter((j) => j !== job);
    workers.delete(worker);
    draining.add(worker);
    slots.give();
    job.settle({ kind: 'infra', reason, latencyMs: Date.now() - job.since });
    if (worker.jobs.length === 0) lose(worker, reason);
    pump();
  };

  /**
   * Kills a worker (once) and settles its tasks: the ones it ran failed with `reason` (their slots are given
   * back), the one waiting in its input never started.
   */
  const lose = (worker: Worker, reason: string, kill = true): void => {
    if (kill) killGroup(worker.child);
    if (worker.exited) return;
    worker.exited = true;
    workers.delete(worker);
    draining.delete(worker);
    const running = worker.jobs.slice(0, perWorker);
    const queued = worker.jobs.slice(perWorker);
    worker.jobs = [];
    for (const job of running) {
      clearTimeout(job.timer);
      slots.give();
      job.settle({ kind: 'infra', reason, latencyMs: Date.now() - job.since });
    }
    for (const job of queued) job.settle({ kind: 'unstarted' });
    pump();
  };

  const give = (worker: Worker, job: Job): void => {
    worker.jobs.push(job);
    if (worker.jobs.length <= perWorker) begin(worker, job);
    worker.child.stdin?.write(`${JSON.stringify(job.request)}\n`);
  };

  /** The least busy worker with fewer than `limit` tasks. */
  const roomiest = (limit: number): Worker | undefined => {
    let best: Worker | undefined;
    for (const w of workers)
      if (w.jobs.length < limit && (best === undefined || w.jobs.length < best.jobs.length)) best = w;
    return best;
  };

  /** Hands waiting tasks to workers with room (taking a slot each), then to busy workers' inputs. */
  const pump = (): void => {
    while (!closed && waiting.length > 0) {
      const open = roomiest(perWorker);
      if ((open !== undefined || workers.size < maxWorkers) && slots.take()) {
        give(open ?? spawnWorker(), waiting.shift()!);
        continue;
      }
      // Into the input of a worker that runs all it can: it starts the task when it answers one.
      const busy = [...workers].find(
        (w) => w.jobs.length >= perWorker && w.jobs.length < perWorker + lookahead,
      );
      if (busy === undefined) break;
      give(busy, waiting.shift()!);
    }
    // Waiting for a slot another pool holds: look again when one is given back.
    if (waiting.length > 0 && !closed) unsubscribe ??= slots.onFree(onFree);
    else {
      unsubscribe?.();
      unsubscribe = null;
    }
  };
  const onFree = (): void => {
    unsubscribe?.();
    unsubscribe = null;
    pump();
  };

  const attempt = (request: TaskRequest): Promise<Attempt> =>
    new Promise((settle) => {
      if (closed) {
        settle({ kind: 'infra', reason: 'the task pool was closed', latencyMs: 0 });
        return;
      }
      waiting.push({ request, settle, since: Date.now() });
      pump();
    });

  return {
    ...(lookahead === 0 ? {} : { lookahead: maxWorkers * lookahead }),
    /**
     * Runs one task; an infrastructure failure is retried once on a fresh worker. A task whose worker was
     * lost before it began is handed to another worker (not a try).
     */
    async run(request: TaskRequest): Promise<WorkerReply> {
      let failed: WorkerReply | null = null;
      for (;;) {
        const result = await attempt(request);
        if (result.kind === 'unstarted') continue;
        if (result.kind === 'reply' || closed) return result;
        if (failed !== null) return { ...result, reason: `${result.reason} (after one retry)` };
        failed = result;
      }
    },
    warm(): void {
      while (!closed && workers.size < maxWorkers) spawnWorker();
    },
    async close(): Promise<void> {
      closed = true;
      unsubscribe?.();
      for (const job of waiting.splice(0)) {
        job.settle({ kind: 'infra', reason: 'the task pool was closed', latencyMs: 0 });
      }
      for (const worker of [...workers, ...draining]) {
        worker.child.stdin?.end();
        lose(worker, 'the task pool was closed');
      }
      log.close();
    },
  };
}

/** TaskAgent workers here (createTaskPool) or elsewhere (a queue). */
export interface TaskPool {
  run(request: TaskRequest): Promise<WorkerReply>;
  /** Starts every worker not yet running, so that the tasks to come do not wait for their start-up. */
  warm(): void;
  close(): Promise<void>;
  /**
   * Tasks it takes beyond those it runs at once (they wait in busy workers' input), while it limits what
   * runs itself; absent when the caller must not give it more tasks than it runs.
   */
  lookahead?: number;
}

/**
 * Calls `onLine` for each stdout line; a line longer than `maxBytes` is never held in memory whole: it
 * ends with `onLine(null)` and the rest of the stream is ignored.
 */
function onLines(child: ChildProcess, maxBytes: number, onLine: (line: string | null) => void): void {
  let held = '';
  let broken = false;
  child.stdout?.on('data', (chunk: Buffer) => {
    if (broken) return;
    held += chunk.toString();
    let end = held.indexOf('\n');
    while (end >= 0 && end <= maxBytes) {
      onLine(held.slice(0, end));
      held = held.slice(end + 1);
      end = held.indexOf('\n');
    }
    if (end > maxBytes || held.length > maxBytes) {
      broken = true;
      held = '';
      onLine(null);
    }
  });
}

function parseReply(
  text: string,
  capBytes: number,
): { id: string; output: string; error: string | null } | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return null;
    const { id, output, error } = value as Record<string, unknown>;
    if (typeof id !== 'string') return null;
    return {
      id,
      output: capText(typeof output === 'string' ? output : JSON.stringify(output ?? ''), capBytes),
      error: typeof error === 'string' && error !== '' ? capText(error, 4096) : null,
    };
  } catch {
    return null;
  }
}
