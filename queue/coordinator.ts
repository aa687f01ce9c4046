import { Redis } from 'ioredis';
import { variantRepoDir } from '../archive/index.ts';
import type { DomainRef, LanguageName } from '../domains/index.ts';
import type { CollectedWorkspace, TaskPool, TaskRequest, WorkerReply } from '../harness/evaluation/index.ts';
import type {
  RemoteEditContext,
  RemoteEditReply,
  RemoteEditRequest,
  RemoteEdits,
  RemoteTaskContext,
  RemoteTasks,
} from '../harness/generation/index.ts';
import { TaskSettingsSchema } from '../harness/run/index.ts';
import { type AwaitedJobs, KEEP_SECONDS, openAwaitedJobs } from './awaited-jobs.ts';
import { gitArchive, tarFolder } from './code-transfer.ts';
import { connectionOptions } from './connection.ts';
import {
  codeKey,
  decodeEditResult,
  decodeTaskResult,
  type EditJob,
  editJobId,
  editQueueName,
  gatewayKey,
  type TaskJob,
  taskJobId,
  VERSION_KEY,
} from './protocol.ts';
import { formatRedisTarget, type RedisTarget } from './redis-url.ts';
import { type RedisEvent, watchRedis } from './redis-watch.ts';
import { taskLanguage, taskQueueOf, type WaitingChange } from './routing.ts';
import { type RunSecret, runSecret } from './run-secret.ts';
import { watchWaitingTasks } from './waiting-tasks.ts';
import { sentWorkspace, startingFiles, workspaceGraders } from './workspace-tasks.ts';

export interface CoordinatorOptions {
  target: RedisTarget;
  version: string;
  /** The gateway's address as workers reach it; default: the address it listens on. */
  gatewayUrl: string | null;
  /** Told when Redis stops answering, while it does not, and when it is back. */
  onRedis?(event: RedisEvent): void;
  /**
   * Told when a language's tasks begin to wait because no connected worker can grade it, and when one
   * connects; beside the progress line and archive event of the run whose tasks wait.
   */
  onWaiting?(change: WaitingChange): void;
  /**
   * The language whose queue a task goes on (null: the plain queue, every worker's); default: a workspace
   * task's language (queue/routing.ts). Tests route plain tasks by it to try the routing alone.
   */
  languageOf?(request: TaskRequest): LanguageName | null;
}

export type Coordinator = RemoteTasks &
  RemoteEdits & {
    /** Worker processes connected to the queue now. */
    workers(): Promise<number>;
    close(): Promise<void>;
  };

/**
 * What the coordinator holds while open: its Redis client and the queues it awaits jobs on (the plain task
 * queue, a queue per language of the workspace tasks it sent, opened with the first, and the MetaAgent queue).
 */
interface Held {
  options: CoordinatorOptions;
  client: Redis;
  tasks: AwaitedJobs<WorkerReply>;
  languages: Map<LanguageName, AwaitedJobs<WorkerReply>>;
  edits: AwaitedJobs<RemoteEditReply>;
  /** The run whose tasks were last sent: told what waits (see CoordinatorOptions.onWaiting). */
  run?: Pick<RemoteTaskContext, 'progress' | 'archive'>;
}

/**
 * The coordinator's side of the queue: each task of a variant becomes one BullMQ job, whose id is derived
 * from the task (run, commit, domain, task id, input), so adding it again (after a restart of the
 * coordinator or of Redis) finds the job already there, or its result, instead of running it twice. With
 * `--remote-generations` each MetaAgent run is one job on a second queue, its id derived from the run,
 * generation and parent commit in the same way.
 */
export async function openCoordinator(options: CoordinatorOptions): Promise<Coordinator> {
  const connection = connectionOptions(options.target);
  const client = new Redis(connection);
  client.on('error', () => undefined);
  await client.set(VERSION_KEY, options.version);
  const stopWatching = watchRedis(client, formatRedisTarget(options.target), (event) =>
    options.onRedis?.(event),
  );
  const tasks = openTaskJobs(connection, taskQueueOf(options.version, null));
  const edits = openAwaitedJobs<RemoteEditReply>({
    connection,
    queueName: editQueueName(options.version),
    jobName: 'edit',
    read: decodeEditResult,
    infra: (reason) => ({ kind: 'infra', reason }),
    isResult: (reply) => reply.kind !== 'infra',
  });
  const held: Held = { options, client, tasks, languages: new Map(), edits };
  const stopWaiting = watchWaitingTasks(
    () => held.languages,
    (change) => tellWaiting(held, change),
  );
  return {
    pool: (ctx, variant, attempt) => remotePool(held, ctx, variant, attempt),
    edit: (ctx, request) => remoteEdit(held, ctx, request),
    workers: () => tasks.queue.getWorkersCount(),
    async close() {
      stopWatching();
      await stopWaiting();
      for (const jobs of held.languages.values()) await jobs.close();
      await tasks.close();
      await edits.close();
      client.disconnect();
    },
  };
}

/** Task jobs on one queue: the plain one or a language's. */
function openTaskJobs(connection: ReturnType<typeof connectionOptions>, queueName: string) {
  return openAwaitedJobs<WorkerReply>({
    connection,
    queueName,
    jobName: 'task',
    // A workspace comes back as its changes to the job's starting files.
    read: (value, job) => decodeTaskResult(value, startingFiles(job)),
    infra: (reason, latencyMs) => ({ kind: 'infra', reason, latencyMs }),
    // A failure of the worker's machine is no result: found again by a resumed coordinator, the job is run
    // again. The TaskAgent's own failure (it crashed or hung, twice) is its result.
    isResult: (reply) => reply.kind !== 'infra' || reply.agentFault === true,
  });
}

/** The jobs awaited on the queue of `language`'s tasks (the plain queue's for null), opened on first use. */
function taskJobsOf(held: Held, language: LanguageName | null): AwaitedJobs<WorkerReply> {
  if (language === null) return held.tasks;
  let jobs = held.languages.get(language);
  if (jobs === undefined) {
    jobs = openTaskJobs(connectionOptions(held.options.target), taskQueueOf(held.options.version, language));
    held.languages.set(language, jobs);
  }
  return jobs;
}

/** A change in what waits for a worker, told to the run (progress line, archive event) and the caller. */
function tellWaiting(held: Held, change: WaitingChange): void {
  held.run?.progress(change.message);
  held.run?.archive?.recordEvent(null, 'tasks_waiting', {
    language: change.language,
    waiting: change.kind === 'waiting' ? change.tasks : 0,
    message: change.message,
  });
  held.options.onWaiting?.(change);
}

/**
 * What workers read beside a run's jobs (the project version, the gateway's address, the commits' trees), made
 * present in Redis: each call looks (one round trip) and writes only what is missing or differs, so it is
 * cheap enough to call whenever jobs are added or awaited, and puts back what a Redis restart lost. The
 * gateway's address is compared, not only found: a killed coordinator's address stays in Redis, and a
 * resumed one's gateway listens elsewhere. Calls made while one is under way share it.
 */
function publisher(
  { options, client }: Held,
  ctx: Pick<RemoteTaskContext, 'runDir' | 'gateway'>,
  secret: RunSecret,
  commits: readonly string[],
): () => Promise<void> {
  const gatewayUrl = options.gatewayUrl ?? ctx.gateway.tcpUrl;
  const trees = [...new Set(commits)].map((commit) => ({ commit, key: codeKey(secret.runKey, commit) }));
  const publish = async (): Promise<void> => {
    if (gatewayUrl === undefined) throw new Error('the gateway listens on no TCP address for queue workers');
    const look = client.pipeline().get(VERSION_KEY).get(gatewayKey(secret.runKey));
    for (const { key } of trees) look.exists(key);
    const answers = (await look.exec()) ?? [];
    const failed = answers.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0];
    const [version, gateway, ...present] = answers.map(([, value]) => value);
    if (version !== options.version) await client.set(VERSION_KEY, options.version);
    if (gateway !== gatewayUrl) await client.set(gatewayKey(secret.runKey), gatewayUrl);
    for (const [i, { commit, key }] of trees.entries()) {
      if (present[i] === 1) continue;
      await client.setex(key, KEEP_SECONDS, await gitArchive(variantRepoDir(ctx.runDir), commit));
    }
  };
  let underWay: Promise<void> | null = null;
  return () => {
    underWay ??= publish().finally(() => {
      underWay = null;
    });
    return underWay;
  };
}

/**
 * A variant's tasks as jobs on the task queue, for one attempt: its token tells the model which attempt the
 * calls belong to (as a local attempt's does), and its jobs are its own.
 */
async function remotePool(
  held: Held,
  ctx: RemoteTaskContext,
  variant: { id: number; commit: string },
  attempt = 0,
): Promise<TaskPool> {
  const secret = runSecret(ctx.runDir);
  const token = ctx.gateway.issueToken(
    {
      runId: ctx.runId,
      variantId: variant.id,
      role: 'task',
      model: ctx.config.taskModel,
      ...(attempt > 0 ? { attempt } : {}),
    },
    secret.taskToken(variant.id, attempt),
  );
  const publish = publisher(held, ctx, secret, [variant.commit]);
  await publish();
  const base = {
    version: held.options.version,
    runKey: secret.runKey,
    runId: ctx.runId,
    variantId: variant.id,
    ...(attempt > 0 ? { attempt } : {}),
    commit: variant.commit,
    token,
    tasksPerWorker: ctx.config.tasksPerWorker,
    // Whole, as the evaluation made them; checked here so that a worker never gets a part of them.
    settings: TaskSettingsSchema.parse(ctx.taskSettings),
  };
  const shipped = shippedDomains(ctx.config.domains);
  const graderOf = workspaceGraders(ctx.config.domains, ctx.domains);
  /** The job of a task, with its workspace task's grader; an infrastructure failure when none can travel. */
  const jobOf = (request: TaskRequest): TaskJob | { kind: 'infra'; reason: string; latencyMs: number } => {
    const { settings: _, workspace, ...sent } = request;
    const language = (held.options.languageOf ?? taskLanguage)(request);
    const routed = language === null ? {} : { language };
    if (workspace === undefined)
      return { ...base, request: sent, gradeHere: shipped.has(request.domain), ...routed };
    const workspaceGrader = graderOf(request.domain, request.id);
    // Refused before a run starts (cli/loop/generate-loop.ts); kept here so no worker is ever sent one.
    if (workspaceGrader === undefined)
      return {
        kind: 'infra',
        reason: `the grader of ${request.domain} cannot travel to a queue worker`,
        latencyMs: 0,
      };
    return { ...base, request: { ...sent, workspace }, gradeHere: false, workspaceGrader, ...routed };
  };
  held.run = ctx;
  return {
    run: (request: TaskRequest) => {
      // A workspace task goes on its language's queue (queue/routing.ts).
      const job = jobOf(request);
      if ('kind' in job) return Promise.resolve(job);
      return taskJobsOf(held, job.language ?? null).run(taskJobId(job), job, ctx.signal, publish);
    },
    regrade: (request: TaskRequest, workspace: CollectedWorkspace) => {
      const job = jobOf(request);
      if ('kind' in job) return Promise.resolve(job);
      const regrade = { ...job, regrade: sentWorkspace(job.request.workspace?.files ?? {}, workspace) };
      return taskJobsOf(held, regrade.language ?? null).run(taskJobId(regrade), regrade, ctx.signal, publish);
    },
    // Workers start their TaskAgents when their first job of the variant arrives.
    warm() {},
    async close() {
      ctx.gateway.revokeToken(token);
    },
  };
}

/** One MetaAgent run as a job on the edit queue. */
async function remoteEdit(
  held: Held,
  ctx: RemoteEditContext,
  request: RemoteEditRequest,
): Promise<RemoteEditReply> {
  const secret = runSecret(ctx.runDir);
  const token = ctx.gateway.issueToken(
    { runId: ctx.runId, variantId: request.variantId, role: 'meta', model: ctx.config.metaModel },
    secret.metaToken(request.variantId),
  );
  try {
    const publish = publisher(held, ctx, secret, [request.parentCommit, request.metaCommit]);
    await publish();
    const job: EditJob = {
      version: held.options.version,
      runKey: secret.runKey,
      runId: ctx.runId,
      variantId: request.variantId,
      parentCommit: request.parentCommit,
      metaCommit: request.metaCommit,
      token,
      iterationsLeft: request.iterationsLeft,
      metaTimeoutMs: ctx.config.metaTimeoutSec * 1000,
      limits: ctx.config.limits,
      evals: (await tarFolder(request.evalsDir)).toString('base64'),
    };
    return await held.edits.run(editJobId(job), job, ctx.signal, publish);
  } finally {
    // On an interrupt the token stays good until the gateway closes: a MetaAgent still running on a
    // worker then fails to reach it and its job is tried again (and picked up by --resume), rather than
    // ending with an answer of "unknown token" that would read as the agent's own failure.
    if (!ctx.signal.aborted) ctx.gateway.revokeToken(token);
  }
}

/** Names of the run's domains that come with the project (a worker has them); not users' datasets. */
function shippedDomains(domains: readonly DomainRef[]): Set<string> {
  return new Set(domains.filter((r) => r.kind === 'named').map((r) => r.name));
}
