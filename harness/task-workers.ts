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
}

interface Worker {
  child: ChildProcess;
  pending: Map<string, (line: { output: string; error: string | null }) => void>;
  exited: boolean;
  stderrTail: string;
}

/**
 * Long-lived TaskAgent processes fed JSON lines, one task at a time each. A worker that crashes,
 * hangs past the task timeout or breaks the protocol is killed and replaced.
 */
export function createTaskPool(options: TaskPoolOptions) {
  const capBytes = options.outputCapBytes ?? DEFAULT_LIMITS.outputKb * 1024;
  const log: CappedLog = openCappedLog(options.logFile, capBytes, options.redact ?? createRedactor());
  const note = (text: string | Buffer): void => log.write(text);
  const idle: Worker[] = [];
  const all = new Set<Worker>();
  const waiting: ((w: Worker) => void)[] = [];
  let closed = false;

  const spawnWorker = (): Worker => {
    const child = startTracked(options.command, 'pipe');
    const worker: Worker = { child, pending: new Map(), exited: false, stderrTail: '' };
    child.stderr?.on('data', (chunk: Buffer) => {
      note(chunk);
      worker.stderrTail = (worker.stderrTail + chunk.toString()).slice(-2000);
    });
    onLines(child, 2 * capBytes + 4096, (text) => {
      if (text === null) {
        note(`[harness] a stdout line passed ${2 * capBytes + 4096} bytes: the worker was stopped\n`);
        kill(worker);
        return;
      }
      const reply = parseReply(text, capBytes);
      const resolve = reply === null ? undefined : worker.pending.get(reply.id);
      if (reply === null || resolve === undefined) {
        note(`[harness] ignored a stdout line that is not a reply: ${text.slice(0, 200)}\n`);
        return;
      }
      worker.pending.delete(reply.id);
      resolve(reply);
    });
    child.on('exit', () => {
      worker.exited = true;
      all.delete(worker);
    });
    child.stdin?.on('error', () => undefined);
    all.add(worker);
    return worker;
  };

  const acquire = (): Promise<Worker> => {
    const ready = idle.pop();
    if (ready !== undefined) return Promise.resolve(ready);
    if (all.size < options.size) return Promise.resolve(spawnWorker());
    return new Promise((resolve) => waiting.push(resolve));
  };

  const release = (worker: Worker): void => {
    if (worker.exited || closed) {
      const next = waiting.shift();
      if (next !== undefined && !closed) next(spawnWorker());
      return;
    }
    const next = waiting.shift();
    if (next !== undefined) next(worker);
    else idle.push(worker);
  };

  const kill = (worker: Worker): void => {
    worker.exited = true;
    all.delete(worker);
    killGroup(worker.child);
  };

  const runOnce = async (request: TaskRequest): Promise<WorkerReply> => {
    const worker = await acquire();
    const started = Date.now();
    const result = await new Promise<WorkerReply>((resolve) => {
      const finish = (reply: WorkerReply): void => {
        clearTimeout(timer);
        worker.child.off('exit', onExit);
        worker.pending.delete(request.id);
        resolve(reply);
      };
      const timer = setTimeout(() => {
        kill(worker);
        finish({
          kind: 'infra',
          reason: `no reply within ${options.taskTimeoutMs / 1000} s`,
          latencyMs: Date.now() - started,
        });
      }, options.taskTimeoutMs);
      const onExit = (code: number | null, signal: string | null): void => {
        const tail = worker.stderrTail.trim().split('\n').slice(-3).join(' | ');
        finish({
          kind: 'infra',
          reason: `TaskAgent exited (${signal ?? `code ${code}`})${tail === '' ? '' : `: ${tail}`}`,
          latencyMs: Date.now() - started,
        });
      };
      worker.child.once('exit', onExit);
      worker.pending.set(request.id, (line) =>
        finish({ kind: 'reply', output: line.output, error: line.error, latencyMs: Date.now() - started }),
      );
      if (worker.exited) onExit(worker.child.exitCode, worker.child.signalCode);
      else worker.child.stdin?.write(`${JSON.stringify(request)}\n`);
    });
    release(worker);
    return result;
  };

  return {
    /** Runs one task; an infrastructure failure is retried once on a fresh worker. */
    async run(request: TaskRequest): Promise<WorkerReply> {
      const first = await runOnce(request);
      if (first.kind === 'reply') return first;
      const second = await runOnce(request);
      return second.kind === 'reply' ? second : { ...second, reason: `${second.reason} (after one retry)` };
    },
    /** Starts every worker not yet running, so that the tasks to come do not wait for their start-up. */
    warm(): void {
      while (!closed && all.size < options.size) release(spawnWorker());
    },
    async close(): Promise<void> {
      closed = true;
      for (const worker of [...all]) {
        worker.child.stdin?.end();
        kill(worker);
      }
      idle.length = 0;
      log.close();
    },
  };
}

export type TaskPool = ReturnType<typeof createTaskPool>;

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
