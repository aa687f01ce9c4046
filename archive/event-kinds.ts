import { z } from 'zod';
import { FAILURE_CAUSES, VARIANT_STATUSES, VARIANT_STEPS, type VariantStep } from './variant-states.ts';

/** The event kind every control of a run is recorded under; its data is a Control. */
export const CONTROL_EVENT = 'control' as const;

/**
 * What a user can tell a running run (`hyperagents control RUN ...`): `pause` starts no new generation until
 * `resume`; `stop-after` lets the generations under way finish and starts no more; `budget` sets
 * --budget-usd for the rest of the run; `note` is recorded and shown to the next MetaAgent (notes.md in its
 * evals folder).
 */
export const Control = z.discriminatedUnion('action', [
  z.object({ action: z.literal('pause') }),
  z.object({ action: z.literal('resume') }),
  z.object({ action: z.literal('stop-after') }),
  z.object({ action: z.literal('budget'), value: z.number().finite().nonnegative() }),
  z.object({ action: z.literal('note'), value: z.string().min(1) }),
]);
export type Control = z.infer<typeof Control>;

export const CONTROL_ACTIONS = ['pause', 'resume', 'stop-after', 'budget', 'note'] as const;

const step = z.enum(VARIANT_STEPS);
const range = z.object({ low: z.number(), high: z.number() });

/**
 * A variant moved on to `editing`, `gating`, `staged` or `full` (written with the move, see transitionVariant):
 * `from` the step it left, and what that step found.
 */
const stepMoved = z.object({
  from: step,
  /** Into `gating`: the files the committed edit changed. */
  changed: z.array(z.string()).optional(),
  /** Out of `gating`: the gate passed. */
  gate: z.literal('passed').optional(),
});

/** An agent entry point built for a variant (`built`), or run from its source, and why. */
const agentBuild = z.discriminatedUnion('built', [
  z.object({ built: z.literal(true), ms: z.number(), cached: z.boolean() }),
  /** `running: 'parent'`: the MetaAgent of the parent ran instead of its own build. */
  z.object({ built: z.literal(false), reason: z.string(), running: z.literal('parent').optional() }),
]);

/**
 * Every kind of event a run writes to its archive's event log, with the schema of its data. Writers are checked
 * against it by tsc (recordEvent) and at run time (a payload that does not match throws: a programmer error);
 * readers get the parsed data. A field added to a kind is optional or has a default, so that events written by
 * earlier versions keep reading; a row that still does not match its kind is skipped, with the reason, by
 * readers (see readEvent). Kinds are never renamed: an archive keeps the names it was written with.
 */
export const EVENT_KINDS = {
  // A generation's steps: `selected` when it starts, the others with the variant's move to that step.
  selected: z.object({ parent: z.number().nullable(), reason: z.string() }),
  editing: stepMoved,
  gating: stepMoved,
  staged: stepMoved,
  full: stepMoved,
  done: z.object({ from: step.optional(), status: z.enum(VARIANT_STATUSES), score: z.number().nullable() }),
  /** Earlier versions wrote it without `from` and `cause`. */
  failed: z.object({
    from: step.optional(),
    status: z.enum(VARIANT_STATUSES),
    reason: z.string(),
    cause: z.enum(FAILURE_CAUSES).nullable().default(null),
  }),

  // What happens inside a generation's steps.
  select_parent_failed: z.object({ chooser: z.number(), reason: z.string() }),
  /** `queued`: the MetaAgent runs on a queue worker. */
  meta_started: z.object({ parent: z.number().nullable(), queued: z.boolean().optional() }),
  /** `worker`: the queue worker it ran on. */
  meta_finished: z.object({
    exitCode: z.number().nullable(),
    timedOut: z.boolean(),
    worker: z.string().optional(),
  }),
  transcript_refused: z.object({ reason: z.string() }),
  meta_agent_build: agentBuild,
  task_agent_build: agentBuild,
  /** A kept evals folder had been changed since it was written, so it was written afresh. */
  evals_rewritten: z.object({ change: z.string() }),
  typecheck_skipped: z.object({ reason: z.string() }),
  entry_points_loaded: z.object({}),
  stage_unfinished: z.object({ stage: z.enum(['staged', 'full']), failed: z.number(), reason: z.string() }),
  /**
   * `--batch`: a batch of the variant's TaskAgent requests, at submission, at each poll and when collected:
   * its state (the provider's word), requests done and failed of its total, and the seconds it has waited.
   * `note`: what the user is told of it (requests retried as ordinary calls, a batch found again on resume).
   * When collected: `costUsd`, what its answers were charged at the batch price, and `savedUsd`, what they
   * would have cost more as ordinary calls.
   */
  batch: z.object({
    batch: z.number(),
    model: z.string(),
    round: z.number(),
    state: z.string(),
    done: z.number(),
    failed: z.number(),
    total: z.number(),
    waitedSec: z.number(),
    note: z.string().optional(),
    costUsd: z.number().optional(),
    savedUsd: z.number().optional(),
  }),
  /** `hyperagents eval`: a stored variant's evaluation on one split. */
  eval_started: z.object({ domains: z.array(z.string()), split: z.string() }),
  eval_finished: z.object({
    split: z.string(),
    interrupted: z.boolean(),
    unanswered: z.string().optional(),
    unfinished: z.string().optional(),
  }),

  // The run as a whole.
  /** `carried`: what the controls given before the resume left in force (see carriedControls). */
  resumed: z.object({
    pid: z.number(),
    spentUsd: z.number(),
    carried: z
      .object({ paused: z.boolean(), stopAfter: z.boolean().optional(), budgetUsd: z.number().nullable() })
      .optional(),
  }),
  /** The estimate generate-loop printed before the run (or a resume) started; `from`: the run its rates came from. */
  estimate: z.object({
    generations: z.number().default(0),
    resumed: z.boolean().default(false),
    calls: range,
    usd: range,
    seconds: range,
    from: z.string().nullable().default(null),
    lines: z.array(z.string()).default([]),
    spentUsd: z.number().default(0),
  }),
  interrupted: z.object({}),
  budget_reached: z.object({
    spentUsd: z.number(),
    budgetUsd: z.number().nullable(),
    heldUsd: z.number().default(0),
    nextCallUsd: z.number().nullable().default(null),
  }),
  stopped_after: z.object({ spentUsd: z.number() }),
  harness_error: z.object({ message: z.string() }),
  /**
   * With --queue: `waiting` tasks of `language` wait because no connected worker can grade it (the message
   * names the toolchain it needs); 0 when a worker that can connected.
   */
  tasks_waiting: z.object({ language: z.string(), waiting: z.number(), message: z.string() }),
  /** What a user told the run (`hyperagents control`, the page's buttons). */
  control: Control,
  /** An alert as it was sent, with the facts of its type (`percent` for a budget alert). */
  alert: z.looseObject({
    type: z.string(),
    runId: z.string(),
    time: z.string().optional(),
    message: z.string(),
    percent: z.number().optional(),
  }),
  /** A delivery names its alert by type and time (earlier versions by type alone). */
  alert_delivered: z.object({
    alert: z.string(),
    alertTime: z.string().optional(),
    target: z.string(),
    attempt: z.number().optional(),
  }),
  alert_delivery_failed: z.object({
    alert: z.string(),
    alertTime: z.string().optional(),
    target: z.string(),
    attempt: z.number().optional(),
    retrying: z.boolean().default(false),
    error: z.string().default('failed'),
  }),
};

export type EventKind = keyof typeof EVENT_KINDS;
/** An event's data as a reader gets it (defaults filled in). */
export type EventData<K extends EventKind> = z.output<(typeof EVENT_KINDS)[K]>;
/** An event's data as a writer gives it. */
export type EventInput<K extends EventKind> = z.input<(typeof EVENT_KINDS)[K]>;

/** One event of the log, its data parsed by its kind's schema; a union over kinds, told apart by `type`. */
export type ArchiveEvent<K extends EventKind = EventKind> = EventOfKind[K];
type EventOfKind = {
  [T in EventKind]: { id: number; ts: string; variantId: number | null; type: T; data: EventData<T> };
};

/** A row of the log this version cannot read as an event: a kind it does not know, or data that does not match. */
export interface UnreadEvent {
  id: number;
  ts: string;
  variantId: number | null;
  type: string;
  why: string;
}

/** The steps a variant moves to with transitionVariant (`selected` is where it starts). */
export type MovedStep = Exclude<VariantStep, 'selected'>;
/** What a move to step `S` records beside the step it left. */
export type StepEventInput<S extends MovedStep> = Omit<EventInput<S>, 'from'>;
/** The event argument of a move to `S`, which may be left out when none of its fields is required. */
export type StepEventArgs<S extends MovedStep> =
  Partial<StepEventInput<S>> extends StepEventInput<S>
    ? [event?: StepEventInput<S>]
    : [event: StepEventInput<S>];

// Every step is a kind: a move records an event named after the step it enters.
VARIANT_STEPS satisfies readonly EventKind[];

/** Writes an event row of `kind` as a string, its data checked at run time (see eventWriter). */
export type EventWriter = (variantId: number | null, kind: string, data: unknown) => void;

export const isEventKind = (type: string): type is EventKind => Object.hasOwn(EVENT_KINDS, type);

/** Whether `event` is of one of `kinds`: for narrowing a list read for several kinds. */
export const isOfKind =
  <K extends EventKind>(kinds: readonly K[]) =>
  (event: ArchiveEvent): event is ArchiveEvent<K> => {
    const wanted: readonly EventKind[] = kinds;
    return wanted.includes(event.type);
  };

/** The events of `kinds` among `events`, in order. Pure. */
export const eventsOfKinds = <K extends EventKind>(events: readonly ArchiveEvent[], kinds: readonly K[]) =>
  events.filter(isOfKind(kinds));

/**
 * A stored row (its data already parsed from JSON) as an event of its kind, or why it cannot be read. Must not
 * throw: a row an earlier or a later version wrote is skipped by readers, not fatal to them.
 */
export function readEvent(row: {
  id: number;
  ts: string;
  variantId: number | null;
  type: string;
  data: unknown;
}): { ok: true; event: ArchiveEvent } | { ok: false; unread: UnreadEvent } {
  const { id, ts, variantId, type } = row;
  if (!isEventKind(type))
    return { ok: false, unread: { id, ts, variantId, type, why: 'a kind this version does not know' } };
  const parsed = EVENT_KINDS[type].safeParse(row.data);
  if (!parsed.success)
    return { ok: false, unread: { id, ts, variantId, type, why: payloadProblem(parsed.error) } };
  // The data was parsed by the schema of `type` itself, which tsc cannot follow through the lookup.
  return { ok: true, event: { id, ts, variantId, type, data: parsed.data } as ArchiveEvent };
}

/**
 * `data` checked against the schema of `kind` before it is written; throws when it does not match (or the kind is
 * not registered), since only code can write an event.
 */
export function checkedEventData(kind: string, data: unknown): void {
  if (!isEventKind(kind)) throw new Error(`"${kind}" is not an event kind (see archive/event-kinds.ts)`);
  const parsed = EVENT_KINDS[kind].safeParse(data);
  if (!parsed.success)
    throw new Error(`the data of a ${kind} event does not match its kind: ${payloadProblem(parsed.error)}`);
}

function payloadProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  const at = issue === undefined || issue.path.length === 0 ? 'its data' : issue.path.join('.');
  return `${at}: ${issue?.message ?? 'invalid'}`;
}
