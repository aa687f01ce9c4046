import type { ChildProcess } from 'node:child_process';
import { createRedactor, type Redactor } from '../../archive/index.ts';
import type { TaskWorkspace } from '../../domains/index.ts';
import {
  type CappedLog,
  type CommandSpec,
  DEFAULT_LIMITS,
  killGroup,
  openCappedLog,
  startTracked,
} from '../process/index.ts';
import type { Graded } from './grading.ts';
import { onLines, parseReply } from './task-lines.ts';
import type { TaskSettingsRecord } from './task-settings.ts';
import {
  type CollectedWorkspace,
  collectWorkspace,
  discardWorkspace,
  makeWorkerFolders,
  type PreparedWorkspace,
  prepareWorkspace,
  removeWorkerFolders,
  type WorkerFolders,
  type WorkspaceLimits,
} from './workspace-folders.ts';

export type { CommandSpec } from '../process/index.ts';

export interface TaskRequest {
  id: string;
  domain: string;
  input: unknown;
  formatHint?: string;
  /** A workspace task's starting files: the pool writes them into a fresh folder in the worker's sandbox. */
  workspace?: TaskWorkspace;
  /** What the task runs under (every setting that changes its result), sent whole with every task. */
  settings?: TaskSettingsRecord;
  /** The tool-call cap again, for TaskAgents written before `settings`; sent with a workspace task. */
  limits?: { maxToolCalls: number };
}

/** A request line (agents/AGENTS.md, 'The interface that must keep working'); a workspace as path and files. */
export interface TaskRequestLine {
  id: string;
  domain: string;
  input: unknown;
  formatHint?: string;
  workspace?: { path: string; files: string[]; language?: string; testCommand?: string };
  settings?: TaskSettingsRecord;
  limits?: { maxToolCalls: number };
}

/**
 * A reply the TaskAgent gave (its `error` is a model failure, a result), an infrastructure failure, or no
 * answer at all: the pool was closed before the task had one (`closed`, never a result).
 * `graded` is set when the reply was already graded where it ran (a queue worker).
 */
export type WorkerReply =
  | {
      kind: 'reply';
      output: string;
      error: string | null;
      latencyMs: number;
      graded?: Graded;
      /** A workspace task's final folder as the harness collected it. */
      workspace?: CollectedWorkspace;
    }
  /**
   * No reply. `agentFault`: the TaskAgent itself failed on the task (it hung past the timeout, exited, or broke
   * the protocol); after the retry that is the agent's result, an error that scores 0. Without it the machine
   * failed (a workspace could not be prepared, a queue lost the job): no result, never a 0 in a score.
   */
  | { kind: 'infra'; reason: string; latencyMs: number; agentFault?: boolean }
  | { kind: 'closed' };

export interface TaskPoolOptions {
  /** Tasks run at once. */
  size: number;
  /**
   * Tasks one TaskAgent process runs at once (the run's `tasksPerWorker`): the pool starts ⌈size ÷ this⌉ processes. A process
   * given several answers each by id as it finishes. No task is written into a worker's input beyond these,
   * since a TaskAgent that reads its input ahead would start it at once.
   */
  tasksPerWorker: number;
  command: CommandSpec;
  taskTimeoutMs: number;
  /** Workers' stderr is appended here (redacted, cut at `outputCapBytes`); a folder no agent can write. */
  logFile: string;
  /** Cap of the log and of each reply's output; a reply line longer than twice this breaks the protocol. */
  outputCapBytes?: number;
  redact?: Redactor;
  /** Workspace tasks: without this the pool refuses them. */
  workspaces?: WorkspacePoolOptions;
}

export interface WorkspacePoolOptions {
  /** A folder of the harness's own, where each worker gets its workspace folders. */
  dir: string;
  limits: WorkspaceLimits;
  /** The worker's command with `mounted` (its workspaces folder) writable in its sandbox; replaces `command`. */
  command(mounted: string): CommandSpec;
}

interface Job {
  request: TaskRequest;
  settle: (attempt: WorkerReply) => void;
  /** When it was given to a worker (or, until then, handed to the pool). */
  since: number;
  timer?: ReturnType<typeof setTimeout>;
  /** A workspace task's folder, while its worker has it. */
  workspace?: PreparedWorkspace;
}

interface Worker {
  child: ChildProcess;
  /** The tasks the worker runs, at most `tasksPerWorker`. */
  jobs: Job[];
  exited: boolean;
  stderrTail: string;
  /** Its workspace folders, when the pool runs workspace tasks. */
  folders?: WorkerFolders;
}

/** A pool's state, which the functions below share. */
interface Pool {
  options: TaskPoolOptions;
  /** Tasks one worker runs at once. */
  perWorker: number;
  maxWorkers: number;
  capBytes: number;
  log: CappedLog;
  /** Tasks given to workers and not yet settled: at most `size`. */
  running: number;
  workers: Set<Worker>;
  /** Workers that take no more tasks (one of theirs timed out) and are stopped once the others are answered. */
  draining: Set<Worker>;
  waiting: Job[];
  closed: boolean;
}

/**
 * Long-lived TaskAgent processes fed JSON lines: at most `size` tasks at once, `tasksPerWorker` in each
 * process (the run's TaskLimit, around the pool, bounds the tasks of all its pools together). A task goes to the least busy worker that has room, and a
 * new worker starts only when none has. A worker that crashes, hangs past a task's timeout or breaks the
 * protocol is killed and replaced: the tasks it ran fail, and are retried once.
 */
export function createTaskPool(options: TaskPoolOptions): TaskPool {
  const perWorker = Math.max(1, options.tasksPerWorker);
  const capBytes = options.outputCapBytes ?? DEFAULT_LIMITS.outputKb * 1024;
  const pool: Pool = {
    options,
    perWorker,
    maxWorkers: Math.max(1, Math.ceil(options.size / perWorker)),
    capBytes,
    log: openCappedLog(options.logFile, capBytes, options.redact ?? createRedactor()),
    running: 0,
    workers: new Set(),
    draining: new Set(),
    waiting: [],
    closed: false,
  };
  return {
    /**
     * Runs one task; an infrastructure failure is retried once on a fresh worker. Once the pool is closed a
     * task has no answer (`closed`), whatever its worker did: it could not be retried.
     */
    async run(request: TaskRequest): Promise<WorkerReply> {
      const first = await attempt(pool, request);
      if (first.kind !== 'infra') return first;
      if (pool.closed) return { kind: 'closed' };
      const second = await attempt(pool, request);
      if (second.kind !== 'infra') return second;
      if (pool.closed) return { kind: 'closed' };
      return { ...second, reason: `${second.reason} (after one retry)` };
    },
    warm(): void {
      while (!pool.closed && pool.workers.size < pool.maxWorkers) spawnWorker(pool);
    },
    /** Stops every worker; the tasks waiting or running get no answer (`closed`). */
    close: async () => closePool(pool),
  };
}

function note(pool: Pool, text: string | Buffer): void {
  pool.log.write(text);
}

function spawnWorker(pool: Pool): Worker {
  const spaces = pool.options.workspaces;
  const folders = spaces === undefined ? undefined : makeWorkerFolders(spaces.dir);
  const child = startTracked(
    spaces === undefined || folders === undefined ? pool.options.command : spaces.command(folders.mounted),
    'pipe',
  );
  const worker: Worker = {
    child,
    jobs: [],
    exited: false,
    stderrTail: '',
    ...(folders === undefined ? {} : { folders }),
  };
  child.stderr?.on('data', (chunk: Buffer) => {
    note(pool, chunk);
    worker.stderrTail = (worker.stderrTail + chunk.toString()).slice(-2000);
  });
  const maxLine = 2 * pool.capBytes + 4096;
  onLines(child, maxLine, (text) => {
    if (text === null) {
      note(pool, `[harness] a stdout line passed ${maxLine} bytes: the worker was stopped\n`);
      lose(pool, worker, 'TaskAgent exited (SIGKILL)');
      return;
    }
    onReplyLine(pool, worker, text);
  });
  child.on('exit', (code, signal) => {
    const tail = worker.stderrTail.trim().split('\n').slice(-3).join(' | ');
    lose(
      pool,
      worker,
      `TaskAgent exited (${signal ?? `code ${code}`})${tail === '' ? '' : `: ${tail}`}`,
      false,
    );
  });
  child.stdin?.on('error', () => undefined);
  pool.workers.add(worker);
  return worker;
}

/** A line the worker wrote: the reply to one of its tasks, which then settles, or a line ignored. */
function onReplyLine(pool: Pool, worker: Worker, text: string): void {
  const reply = parseReply(text, pool.capBytes);
  const index = reply === null ? -1 : worker.jobs.findIndex((j) => j.request.id === reply.id);
  if (reply === null || index < 0) {
    note(pool, `[harness] ignored a stdout line that is not a reply: ${text.slice(0, 200)}\n`);
    return;
  }
  const [job] = worker.jobs.splice(index, 1);
  if (job === undefined) return;
  clearTimeout(job.timer);
  pool.running -= 1;
  const latencyMs = Date.now() - job.since;
  const workspace =
    job.workspace === undefined
      ? undefined
      : collectWorkspace(job.workspace, pool.options.workspaces!.limits);
  job.workspace = undefined;
  if (pool.draining.has(worker) && worker.jobs.length === 0) lose(pool, worker, 'drained');
  job.settle({
    kind: 'reply',
    output: reply.output,
    error: reply.error,
    latencyMs,
    ...(workspace === undefined ? {} : { workspace }),
  });
  pump(pool);
}

/** A task of the worker starts now: its latency and timeout count from here. */
function begin(pool: Pool, worker: Worker, job: Job): void {
  job.since = Date.now();
  job.timer = setTimeout(() => timedOut(pool, worker, job), pool.options.taskTimeoutMs);
}

/**
 * The task fails alone and its worker drains: the tasks it runs beside it go on (they are not to blame), it
 * gets no more, and it is stopped when they are answered (at once when it ran nothing else).
 */
function timedOut(pool: Pool, worker: Worker, job: Job): void {
  const reason = `no reply within ${pool.options.taskTimeoutMs / 1000} s`;
  worker.jobs = worker.jobs.filter((j) => j !== job);
  pool.workers.delete(worker);
  pool.draining.add(worker);
  pool.running -= 1;
  drop(job);
  job.settle({ kind: 'infra', reason, latencyMs: Date.now() - job.since, agentFault: true });
  if (worker.jobs.length === 0) lose(pool, worker, reason);
  pump(pool);
}

/** Kills a worker (once) and fails the tasks it ran with `reason`, counting them no longer running. */
function lose(pool: Pool, worker: Worker, reason: string, kill = true): void {
  if (kill) killGroup(worker.child);
  if (worker.exited) return;
  worker.exited = true;
  pool.workers.delete(worker);
  pool.draining.delete(worker);
  const running = worker.jobs;
  worker.jobs = [];
  for (const job of running) {
    clearTimeout(job.timer);
    pool.running -= 1;
    drop(job);
    job.settle({ kind: 'infra', reason, latencyMs: Date.now() - job.since, agentFault: true });
  }
  if (worker.folders !== undefined) removeWorkerFolders(worker.folders);
  pump(pool);
}

/** Throws away the workspace of a task that has no answer. */
function drop(job: Job): void {
  if (job.workspace !== undefined) discardWorkspace(job.workspace);
  job.workspace = undefined;
}

function give(pool: Pool, worker: Worker, job: Job): void {
  const { workspace, ...rest } = job.request;
  let line: TaskRequestLine = rest;
  if (workspace !== undefined) {
    try {
      if (worker.folders === undefined) throw new Error('this task pool runs no workspace tasks');
      job.workspace = prepareWorkspace(worker.folders, workspace.files);
    } catch (error) {
      pool.running -= 1;
      const why = error instanceof Error ? error.message : String(error);
      job.settle({ kind: 'infra', reason: `the workspace could not be prepared: ${why}`, latencyMs: 0 });
      return;
    }
    line = { ...rest, workspace: wireWorkspace(job.workspace.path, workspace) };
  }
  worker.jobs.push(job);
  begin(pool, worker, job);
  worker.child.stdin?.write(`${JSON.stringify(line)}\n`);
}

/** The request's `workspace` field: where the files are, and what the prompt may say of them. */
function wireWorkspace(at: string, workspace: TaskWorkspace): NonNullable<TaskRequestLine['workspace']> {
  return {
    path: at,
    files: Object.keys(workspace.files).sort(),
    ...(workspace.language === undefined ? {} : { language: workspace.language }),
    ...(workspace.testCommand === undefined ? {} : { testCommand: workspace.testCommand }),
  };
}

/** The least busy worker with room for another task. */
function roomiest(pool: Pool): Worker | undefined {
  let best: Worker | undefined;
  for (const w of pool.workers)
    if (w.jobs.length < pool.perWorker && (best === undefined || w.jobs.length < best.jobs.length)) best = w;
  return best;
}

/** Hands waiting tasks to workers with room, while fewer than `size` run. */
function pump(pool: Pool): void {
  while (!pool.closed && pool.waiting.length > 0 && pool.running < pool.options.size) {
    const open = roomiest(pool);
    if (open === undefined && pool.workers.size >= pool.maxWorkers) break;
    pool.running += 1;
    give(pool, open ?? spawnWorker(pool), pool.waiting.shift()!);
  }
}

function attempt(pool: Pool, request: TaskRequest): Promise<WorkerReply> {
  return new Promise((settle) => {
    if (pool.closed) {
      settle({ kind: 'closed' });
      return;
    }
    pool.waiting.push({ request, settle, since: Date.now() });
    pump(pool);
  });
}

function closePool(pool: Pool): void {
  pool.closed = true;
  for (const job of pool.waiting.splice(0)) job.settle({ kind: 'closed' });
  for (const worker of [...pool.workers, ...pool.draining]) {
    for (const job of worker.jobs.splice(0)) {
      clearTimeout(job.timer);
      pool.running -= 1;
      drop(job);
      job.settle({ kind: 'closed' });
    }
    worker.child.stdin?.end();
    lose(pool, worker, 'the task pool was closed');
  }
  pool.log.close();
}

/** TaskAgent workers here (createTaskPool) or elsewhere (a queue). */
export interface TaskPool {
  run(request: TaskRequest): Promise<WorkerReply>;
  /**
   * Grades a workspace kept with a cached result where this pool's tasks are graded (a queue worker, which
   * has the toolchain); a reply whose `graded` is the grade. Absent: the harness grades it on this machine.
   */
  regrade?(request: TaskRequest, workspace: CollectedWorkspace): Promise<WorkerReply>;
  /** Starts every worker not yet running, so that the tasks to come do not wait for their start-up. */
  warm(): void;
  close(): Promise<void>;
}
