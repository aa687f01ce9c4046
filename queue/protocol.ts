import { createHash } from 'node:crypto';
import { z } from 'zod';
import { TASK_OUTCOMES } from '../archive/index.ts';
import { LANGUAGE_NAMES } from '../domains/index.ts';
import type { WorkerReply } from '../harness/evaluation/index.ts';
import type { RemoteEditReply } from '../harness/generation/index.ts';
import { TaskSettingsSchema } from '../harness/run/index.ts';
import {
  receivedWorkspace,
  SentWorkspaceSchema,
  sentWorkspace,
  TaskWorkspaceSchema,
  WorkspaceGraderSchema,
} from './workspace-tasks.ts';

/**
 * What crosses Redis between a coordinator and its workers: a job names a run (by a key derived from the
 * run's secret, not its folder), a variant's commit, the gateway token for that variant's tasks, and one
 * task's input; its result is the TaskAgent's reply and, for a domain shipped with the project, the grade
 * the worker gave it with its own copy of that domain. Gold answers, provider keys and the archive never
 * enter Redis.
 */

/** BullMQ's key prefix: every key this project writes in Redis starts with it. */
export const PREFIX = 'hyperagents';

/** One queue per project version, so a worker of another version never takes a job it would misread. */
export const taskQueueName = (version: string): string => `tasks-v${version.replace(/[^\w.-]/g, '_')}`;

/** The queue of whole MetaAgent runs (`--remote-generations`), one per project version like the tasks'. */
export const editQueueName = (version: string): string => `edits-v${version.replace(/[^\w.-]/g, '_')}`;

/** The version of the last coordinator that opened the queue; a worker of another version refuses to start. */
export const VERSION_KEY = `${PREFIX}:coordinator-version`;

/** The coordinator's gateway as workers reach it (`http://HOST:PORT`); rewritten by a resumed coordinator. */
export const gatewayKey = (runKey: string): string => `${PREFIX}:gateway:${runKey}`;

/** A variant's tree at a commit, as a tar of `git archive`. */
export const codeKey = (runKey: string, commit: string): string => `${PREFIX}:code:${runKey}:${commit}`;

const LimitsSchema = z.object({
  memoryMb: z.number(),
  processes: z.number(),
  openFiles: z.number(),
  fileSizeMb: z.number(),
  diskMb: z.number(),
  outputKb: z.number(),
});

export const TaskJobSchema = z.object({
  version: z.string(),
  runKey: z.string().regex(/^[0-9a-f]{16,64}$/),
  runId: z.string(),
  variantId: z.number().int().nonnegative(),
  /** Which attempt at the task (`--eval-repeats`, confirmation): absent for the first. */
  attempt: z.number().int().positive().optional(),
  commit: z.string().regex(/^[0-9a-f]{40,64}$/),
  token: z.string().min(20),
  /** The run's --tasks-per-worker (its config has it, see RunConfigSchema): tasks one TaskAgent process runs at once. */
  tasksPerWorker: z.number().int().positive(),
  /** What the task runs under, whole (the run's TaskSettings): its limits, time, tool calls, sandbox... */
  settings: TaskSettingsSchema,
  request: z.object({
    id: z.string(),
    domain: z.string(),
    /** Absent when undefined, as JSON leaves it (a local TaskAgent's request has none either). */
    input: z
      .unknown()
      .optional()
      .transform((input): unknown => input),
    formatHint: z.string().optional(),
    /** A workspace task's starting files: the worker writes them into its TaskAgent's folder. */
    workspace: TaskWorkspaceSchema.optional(),
    /** The tool-call cap again, for TaskAgents written before `settings`; sent with a workspace task. */
    limits: z.object({ maxToolCalls: z.number() }).optional(),
  }),
  /** The task's domain is one shipped with the project (not a user's dataset): the worker grades it. */
  gradeHere: z.boolean(),
  /**
   * What grading a workspace task needs (an exercise's hidden tests and references): read only by the
   * worker's grading code, in its grading sandbox, never given to the TaskAgent (queue/workspace-tasks.ts).
   */
  workspaceGrader: WorkspaceGraderSchema.optional(),
  /**
   * A workspace kept with a cached result, to grade again instead of running the TaskAgent (a reused result
   * is graded again, as on one machine, by a worker that has the toolchain): its changes to the starting files.
   */
  regrade: SentWorkspaceSchema.optional(),
  /**
   * The Polyglot language whose toolchain grading the task needs (a workspace task's): the job is on that
   * language's queue (queue/routing.ts). Absent for a plain task.
   */
  language: z.enum(LANGUAGE_NAMES).optional(),
});
export type TaskJob = z.infer<typeof TaskJobSchema>;

/**
 * A graded reply as it crosses Redis. The prediction travels as its JSON text, null when there is none (a
 * parse failure without a `response`, a model error): JSON itself drops an absent value, and this is the
 * text the archive stores for it either way.
 */
const GradedWireSchema = z.object({
  outcome: z.enum(TASK_OUTCOMES),
  prediction: z.string().nullable(),
  score: z.number(),
  error: z.string().nullable(),
  detail: z.string().nullable(),
  /** The test output the grader saw (graders that run tests); null when none. */
  log: z.string().nullable().default(null),
});

/**
 * A job's result: the TaskAgent's reply (`graded` when the worker graded it), or an infrastructure failure on
 * the worker (both are results). Every field is present, so nothing is lost to JSON on the way.
 */
export const TaskJobResultSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('reply'),
    output: z.string(),
    error: z.string().nullable(),
    latencyMs: z.number(),
    graded: GradedWireSchema.nullable(),
    /**
     * A workspace task's final folder as the worker collected it, for the coordinator's result cache: its
     * changes to the starting files, which the coordinator has.
     */
    workspace: SentWorkspaceSchema.nullable().default(null),
  }),
  z.object({
    kind: z.literal('infra'),
    reason: z.string(),
    latencyMs: z.number(),
    agentFault: z.boolean().optional(),
  }),
]);
export type TaskJobResult = z.infer<typeof TaskJobResultSchema>;

/** What a job's result can carry: a pool that was `closed` gave no reply, and its job is tried again instead. */
export type JobReply = Exclude<WorkerReply, { kind: 'closed' }>;

/** A worker's reply as the job's result; `start`: the starting files of the job's workspace, if any. */
export function encodeTaskResult(reply: JobReply, start: Record<string, string> = {}): TaskJobResult {
  if (reply.kind === 'infra')
    return {
      kind: 'infra',
      reason: reply.reason,
      latencyMs: reply.latencyMs,
      ...(reply.agentFault === true ? { agentFault: true } : {}),
    };
  const { graded } = reply;
  return {
    kind: 'reply',
    output: reply.output,
    error: reply.error,
    latencyMs: reply.latencyMs,
    graded:
      graded === undefined
        ? null
        : {
            outcome: graded.outcome,
            prediction: graded.prediction === undefined ? null : (JSON.stringify(graded.prediction) ?? null),
            score: graded.score,
            error: graded.error,
            detail: graded.detail,
            log: graded.log ?? null,
          },
    workspace: reply.workspace === undefined ? null : sentWorkspace(start, reply.workspace),
  };
}

/**
 * A job's result (as BullMQ read it back from its JSON) as the worker's reply it came from, its workspace made
 * whole from the job's starting files `start`; null when it is not one this version wrote.
 */
export function decodeTaskResult(value: unknown, start: Record<string, string> = {}): JobReply | null {
  const parsed = TaskJobResultSchema.safeParse(value);
  if (!parsed.success) return null;
  const result = parsed.data;
  if (result.kind === 'infra') return result;
  const { graded, workspace, ...rest } = result;
  const reply = workspace === null ? rest : { ...rest, workspace: receivedWorkspace(start, workspace) };
  if (graded === null) return reply;
  let prediction: unknown;
  try {
    prediction = graded.prediction === null ? undefined : JSON.parse(graded.prediction);
  } catch {
    return null;
  }
  const { log, ...fields } = graded;
  return { ...reply, graded: { ...fields, prediction, ...(log === null ? {} : { log }) } };
}

/**
 * A job's id: the same task of the same commit in the same run is the same job, so adding it again (after a
 * restart of the coordinator or of Redis) finds the job, or its result, instead of running it twice.
 */
export function taskJobId(
  job: Pick<TaskJob, 'runKey' | 'commit' | 'request' | 'attempt'> & Pick<Partial<TaskJob>, 'regrade'>,
): string {
  // Grading a kept workspace again is a job apart from running the task (a resumed run may do both).
  const named = [
    job.runKey,
    job.commit,
    job.request.domain,
    job.request.id,
    job.request.input,
    ...(job.regrade === undefined ? [] : ['regrade']),
  ];
  // Each attempt is a job of its own; the first keeps the id it always had (jobs of a run being resumed).
  const digest = createHash('sha256')
    .update(JSON.stringify(job.attempt === undefined ? named : [...named, job.attempt]))
    .digest('hex')
    .slice(0, 40);
  return `task-${digest}`;
}

const commitSchema = z.string().regex(/^[0-9a-f]{40,64}$/);

/**
 * One generation's MetaAgent run (`--remote-generations`): the parent's commit to edit and the commit whose
 * MetaAgent runs (both fetched like a task's code), the evals folder as a base64 tar, the MetaAgent's
 * arguments and limits, and a meta-role gateway token for the variant.
 */
export const EditJobSchema = z.object({
  version: z.string(),
  runKey: z.string().regex(/^[0-9a-f]{16,64}$/),
  runId: z.string(),
  variantId: z.number().int().positive(),
  parentCommit: commitSchema,
  metaCommit: commitSchema,
  token: z.string().min(20),
  iterationsLeft: z.number().int(),
  metaTimeoutMs: z.number().int().positive(),
  limits: LimitsSchema,
  evals: z.string(),
});
export type EditJob = z.infer<typeof EditJobSchema>;

/** How the MetaAgent's process ended, its log and transcript, and its edit as a base64 binary diff. */
export const EditJobResultSchema = z.object({
  worker: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  overLimit: z.string().nullable(),
  tail: z.string(),
  log: z.string(),
  transcript: z.string().nullable(),
  /** Why the worker would not send the edited tree (a link, a special or oversized file); null when sent. */
  refused: z.string().nullable(),
  patch: z.string(),
});
export type EditJobResult = z.infer<typeof EditJobResultSchema>;

/** A MetaAgent run that ended on a worker, as the edit the coordinator applies. */
export type RanEdit = Extract<RemoteEditReply, { kind: 'ran' }>;

/** A finished MetaAgent run as the job's result. */
export function encodeEditResult(ran: RanEdit): EditJobResult {
  const { kind: _, patch, ...rest } = ran;
  return { ...rest, patch: patch.toString('base64') };
}

/** A MetaAgent job's result (as BullMQ read it back) as the run it came from; null when this version cannot read it. */
export function decodeEditResult(value: unknown): RanEdit | null {
  const parsed = EditJobResultSchema.safeParse(value);
  if (!parsed.success) return null;
  return { kind: 'ran', ...parsed.data, patch: Buffer.from(parsed.data.patch, 'base64') };
}

/**
 * A MetaAgent job's id: one per generation of a run and parent commit, so a resumed coordinator finds the job
 * (and a result that arrived while it was down) instead of running the MetaAgent again.
 */
export function editJobId(
  job: Pick<EditJob, 'runKey' | 'variantId' | 'parentCommit' | 'metaCommit'>,
): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([job.runKey, job.variantId, job.parentCommit, job.metaCommit]))
    .digest('hex')
    .slice(0, 40);
  return `edit-${digest}`;
}
