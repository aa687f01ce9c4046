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
  size: number;
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
  /** The task the worker runs first, then the one waiting in its input (never more than LOOKAHEAD). */
  jobs: Job[];
  exited: boolean;
  stderrTail: string;
}

/**
 * Tasks written to a busy worker's input beyond the one it runs: it starts the next as soon as it has
 * answered, instead of waiting for the harness to read the answer and send another (on a loaded machine
 * each wake-up of a process costs milliseconds). A waiting task holds no slot: it takes over its worker's.
 */
const LOOKAHEAD = 1;

/**
 * Long-lived TaskAgent processes fed JSON lines. Each runs one task at a time, at most `size` at once (and no
 * more than the shared slots allow), with the next task already waiting in its input when callers have
 * more tasks than workers. A worker that crashes, hangs past the task timeout or breaks the protocol is
 * killed and replaced; a task waiting in its input had not started and is handed to another worker.
 */
export function createTaskPool(options: TaskPoolOptions): TaskPool {
  const capBytes = options.outputCapBytes ?? DEFAULT_LIMITS.outputKb * 1024;
  const log: CappedLog = openCappedLog(options.logFile, capBytes, options.redact ?? createRedactor());
  const note = (text: string | Buffer): void => log.write(text);
  const slots = options.slots ?? createTaskSlots(options.size);
  const workers = new Set<Worker>();
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
      if (index === 0) {
        if (worker.jobs.length > 0) begin(worker);
        else slots.give();
      }
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

  /** The worker's first task starts now: its latency and timeout count from here. */
  const begin = (worker: Worker): void => {
    const job = worker.jobs[0];
    if (job === undefined) return;
    job.since = Date.now();
    job.timer = setTimeout(
      () => lose(worker, `no reply within ${options.taskTimeoutMs / 1000} s`),
      options.taskTimeoutMs,
    );
  };

  /**
   * Kills a worker (once) and settles its tasks: the one it ran failed with `reason` (its slot is given back),
   * the ones waiting in its input never started.
   */
  const lose = (worker: Worker, reason: string, kill = true): void => {
    if (kill) killGroup(worker.child);
    if (worker.exited) return;
    worker.exited = true;
    workers.delete(worker);
    const [running, ...queued] = worker.jobs;
    worker.jobs = [];
    if (running !== undefined) {
      clearTimeout(running.timer);
      slots.give();
      running.settle({ kind: 'infra', reason, latencyMs: Date.now() - running.since });
    }
    for (const job of queued) job.settle({ kind: 'unstarted' });
    pump();
  };

  const give = (worker: Worker, job: Job): void => {
    worker.jobs.push(job);
    if (worker.jobs.length === 1) begin(worker);
    worker.child.stdin?.write(`${JSON.stringify(job.request)}\n`);
  };

  /** Hands waiting tasks to idle workers (taking a slot each), then to busy workers' inputs. */
  const pump = (): void => {
    while (!closed && waiting.length > 0) {
      const idle = [...workers].find((w) => w.jobs.length === 0);
      if ((idle !== undefined || workers.size < options.size) && slots.take()) {
        give(idle ?? spawnWorker(), waiting.shift()!);
        continue;
      }
      const busy = [...workers].find((w) => w.jobs.length > 0 && w.jobs.length <= LOOKAHEAD);
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
    lookahead: options.size * LOOKAHEAD,
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
      while (!closed && workers.size < options.size) spawnWorker();
    },
    async close(): Promise<void> {
      closed = true;
      unsubscribe?.();
      for (const job of waiting.splice(0)) {
        job.settle({ kind: 'infra', reason: 'the task pool was closed', latencyMs: 0 });
      }
      for (const worker of [...workers]) {
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
