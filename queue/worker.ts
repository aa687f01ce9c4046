import { mkdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { GradeContext, LanguageName, LanguageToolchain, ProbeOptions } from '../domains/index.ts';
import { createGradeContext, createTaskPool, type TaskPool } from '../harness/evaluation/index.ts';
import { entryCommand, TASK_ENTRY } from '../harness/generation/index.ts';
import type { ResolvedSandbox, ResourceLimits } from '../harness/process/index.ts';
import { type AgentEntry, agentEnv, buildAgentEntry } from '../harness/process/index.ts';
import { fetchTree } from './code-transfer.ts';
import { connectionOptions } from './connection.ts';
import {
  editQueueName,
  encodeTaskResult,
  PREFIX,
  type TaskJob,
  type TaskJobResult,
  TaskJobSchema,
  VERSION_KEY,
} from './protocol.ts';
import { formatRedisTarget, type RedisTarget } from './redis-url.ts';
import { type RedisEvent, watchRedis } from './redis-watch.ts';
import { type Relay, startRelay } from './relay.ts';
import { faultReason, toolchainFault } from './toolchains.ts';
import { editJobProcessor } from './worker-edits.ts';
import { createWorkerGrader } from './worker-grading.ts';
import { jobGateway, readJob, throwIfLostInTransit } from './worker-jobs.ts';
import { listenForTasks, type TaskListeners } from './worker-languages.ts';
import { gradeTravelledWorkspace, workspaceLimits } from './worker-workspaces.ts';
import { receivedWorkspace } from './workspace-tasks.ts';

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
  /** Only workspace tasks of these languages are taken (`--languages`); null or absent: every one it can grade. */
  languages?: readonly LanguageName[] | null;
  /** Where the toolchains are probed (tests); default: this machine's, as grading runs them. */
  probe?: ProbeOptions;
}

export type StartedWorker =
  | {
      ok: true;
      id: string;
      /** What it found it can grade, and what not, when it started. */
      toolchains: LanguageToolchain[];
      close(): Promise<void>;
    }
  | { ok: false; message: string };

/** What a worker holds for one variant's commit while its tasks come: its tree, its build, its TaskAgents. */
interface Prepared {
  dir: string;
  entry: AgentEntry;
  pools: Map<string, TaskPool>;
  lastUsed: number;
  running: number;
}

const IDLE_MS = 30_000;

/** What a started worker holds: its Redis client, the variants it prepared and its relays to gateways. */
interface Held {
  options: QueueWorkerOptions;
  client: Redis;
  /** Per run and commit. */
  prepared: Map<string, Promise<Prepared>>;
  /** Variants prepared so far: each gets a folder of its own. */
  preparedCount: number;
  /** Per gateway address. */
  relays: Map<string, Promise<Relay>>;
  grader: ReturnType<typeof createWorkerGrader>;
  /** Runs graders' commands in this machine's sandbox. */
  grading: GradeContext;
  /** Set once the task queues are listened to, before any job runs. */
  listeners?: TaskListeners;
}

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
    return { ok: false, message: versionMismatch(options.version, theirs) };
  }
  mkdirSync(options.workDir, { recursive: true });
  const stopWatching = watchRedis(client, formatRedisTarget(options.target), (event) =>
    options.onRedis?.(event),
  );
  const id = `${hostname()}-${process.pid}`;
  const grading = createGradeContext({ sandbox: options.sandbox, nodeModules: options.nodeModules });
  const held: Held = {
    options,
    client,
    prepared: new Map(),
    preparedCount: 0,
    relays: new Map(),
    grader: createWorkerGrader(grading),
    grading,
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
  const listeners = await listenForTasks({
    client,
    version: options.version,
    name: id,
    workerOptions,
    concurrency: options.concurrency,
    only: options.languages ?? null,
    ...(options.probe === undefined ? {} : { probe: options.probe }),
    process: (job) => processTask(held, job),
  });
  held.listeners = listeners;
  const processEdit = editJobProcessor({
    name: id,
    version: options.version,
    client,
    relayFor: (url) => relayFor(held, url),
    sandbox: options.sandbox,
    nodeModules: options.nodeModules,
    workDir: options.workDir,
    note: options.note,
  });
  const editWorker = new Worker(editQueueName(options.version), processEdit, workerOptions);
  editWorker.on('error', () => undefined);
  const sweep = setInterval(() => closeIdle(held), 5000);

  return {
    ok: true,
    id,
    toolchains: listeners.toolchains(),
    async close() {
      clearInterval(sweep);
      stopWatching();
      await listeners.close();
      await editWorker.close();
      await closeHeld(held);
    },
  };
}

function versionMismatch(ours: string, theirs: string): string {
  return `This worker runs hyperagents-ts ${ours}, but the coordinator using this Redis runs ${theirs} (after the "+" is a hash of the project's domains/, harness/ and queue/ code: workers grade with their own copy of the domains, so it must match too). Install the same version on every machine (the same checkout, then npm ci), then start the worker again.`;
}

/** The relay to the gateway at `url`, started on first use. */
function relayFor(held: Held, url: string): Promise<Relay> {
  let relay = held.relays.get(url);
  if (relay === undefined) {
    const socket = path.join(held.options.workDir, `gateway-${held.relays.size}.sock`);
    relay = startRelay(socket, new URL(url));
    held.relays.set(url, relay);
  }
  return relay;
}

/** The job's variant: its tree fetched and its TaskAgent built, once per run and commit while in use. */
function prepare(held: Held, job: TaskJob): Promise<Prepared> {
  const key = `${job.runKey}:${job.commit}`;
  let ready = held.prepared.get(key);
  if (ready === undefined) {
    // A folder of its own: an idle copy of the same commit being closed may still be removing its folder.
    const dir = path.join(
      held.options.workDir,
      `${job.runKey.slice(0, 12)}-${job.commit.slice(0, 12)}-${++held.preparedCount}`,
    );
    ready = prepareIn(held, job, dir);
    held.prepared.set(key, ready);
    ready.catch(() => held.prepared.delete(key));
  }
  return ready;
}

async function prepareIn({ options, client }: Held, job: TaskJob, dir: string): Promise<Prepared> {
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
}

/**
 * The variant's TaskAgents for the job's token, reaching the gateway through `relay`; a workspace task's
 * folder is made in the variant's own folder, writable in its TaskAgent's sandbox alone (as on one machine).
 */
function poolFor({ options }: Held, job: TaskJob, variant: Prepared, relay: Relay): TaskPool {
  const key = `${job.token}:${relay.socketPath}`;
  let pool = variant.pools.get(key);
  if (pool === undefined) {
    const policy = {
      workdir: path.join(variant.dir, 'tree'),
      writable: false,
      readOnly: [options.nodeModules],
      gatewaySocket: relay.socketPath,
      limits: resourceLimits(job.settings),
    };
    const env = agentEnv({ url: `unix:${relay.socketPath}`, token: job.token });
    pool = createTaskPool({
      size: options.concurrency,
      tasksPerWorker: job.tasksPerWorker,
      command: entryCommand(options.sandbox, policy, variant.entry, [], env),
      taskTimeoutMs: job.settings.taskTimeoutSec * 1000,
      logFile: path.join(variant.dir, 'task-agent.log'),
      outputCapBytes: job.settings.outputKb * 1024,
      workspaces: {
        dir: path.join(variant.dir, `workspaces-${variant.pools.size}`),
        limits: workspaceLimits(job.settings),
        command: (mounted) =>
          entryCommand(options.sandbox, { ...policy, readWrite: [mounted] }, variant.entry, [], env),
      },
    });
    variant.pools.set(key, pool);
  }
  return pool;
}

/**
 * Runs one task job and grades its reply here: a workspace task with the grader that travelled with it, a
 * task of a domain shipped with the project with this installation's copy. A job that only regrades a kept
 * workspace runs no TaskAgent.
 */
async function processTask(held: Held, job: Job): Promise<TaskJobResult> {
  const task = readJob(TaskJobSchema, job.data, held.options.version, 'a job');
  const start = task.request.workspace?.files ?? {};
  if (task.regrade !== undefined) {
    const graded = await gradeTravelledWorkspace(held.grading, task, receivedWorkspace(start, task.regrade));
    if (graded === null) throw new UnrecoverableError('a regrade job without the grader of its workspace');
    return encodeTaskResult({ kind: 'reply', output: '', error: null, latencyMs: 0, graded });
  }
  const gateway = await jobGateway(held.client, (url) => relayFor(held, url), task.runKey);
  const variant = await prepare(held, task);
  variant.running += 1;
  try {
    const pool = poolFor(held, task, variant, gateway.relay);
    const failuresBefore = gateway.relay.failures();
    const reply = await pool.run({ ...task.request, settings: task.settings });
    // Its pool was closed (the worker is stopping): no answer, so the job is tried again elsewhere.
    if (reply.kind === 'closed') throw new Error('the worker stopped before the task had an answer');
    // A reply spoilt by a coordinator that went away is not a result: the job is tried again later.
    const failed = reply.kind === 'infra' || reply.error !== null;
    await throwIfLostInTransit(job, gateway, failuresBefore, failed, held.options.note);
    if (reply.kind === 'infra' || reply.error !== null) return encodeTaskResult(reply, start);
    const graded =
      task.workspaceGrader !== undefined
        ? await gradeTravelledWorkspace(held.grading, task, reply.workspace)
        : task.gradeHere
          ? await held.grader.grade(task.request, reply.output)
          : null;
    if (graded !== null && graded.score < 1 && task.language !== undefined) {
      // A toolchain that stopped working is this worker's fault, never the answer's (queue/worker-languages.ts).
      const fault = await toolchainFault(task.language, held.options.probe);
      if (fault !== null) {
        held.listeners?.drop(task.language, fault.problem, fault.install);
        const reason = faultReason(task.language, fault);
        held.options.note(`job ${job.id}: ${reason}`);
        // Failed, not completed: BullMQ tries it again, on a worker still listening to the language's queue.
        throw new Error(reason);
      }
    }
    return encodeTaskResult(graded === null ? reply : { ...reply, graded }, start);
  } finally {
    variant.running -= 1;
    variant.lastUsed = Date.now();
  }
}

/** Closes the variants no task has used for IDLE_MS. */
function closeIdle(held: Held): void {
  for (const [key, ready] of held.prepared) {
    void ready.then(async (variant) => {
      if (variant.running > 0 || Date.now() - variant.lastUsed < IDLE_MS) return;
      held.prepared.delete(key);
      await closeVariant(variant);
    });
  }
}

/** Closes every variant and relay, disconnects and removes the worker's folder. */
async function closeHeld(held: Held): Promise<void> {
  for (const ready of held.prepared.values()) await ready.then(closeVariant, () => undefined);
  for (const relay of held.relays.values())
    await relay.then(
      (r) => r.close(),
      () => undefined,
    );
  held.client.disconnect();
  rmSync(held.options.workDir, { recursive: true, force: true });
}

async function closeVariant(variant: Prepared): Promise<void> {
  for (const pool of variant.pools.values()) await pool.close();
  rmSync(variant.dir, { recursive: true, force: true });
}

/** The limits on each TaskAgent process, out of the task settings that carry them. */
function resourceLimits(settings: TaskJob['settings']): ResourceLimits {
  const { memoryMb, processes, openFiles, fileSizeMb, diskMb, outputKb } = settings;
  return { memoryMb, processes, openFiles, fileSizeMb, diskMb, outputKb };
}
