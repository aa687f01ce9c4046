import type { ArchiveEvent, RunState, RunView, VariantView } from '../archive/index.ts';
import { shellWord } from '../system/shell-word.ts';

/** The run events that say why a run stopped or what it was told; read by runHealth. */
export const HEALTH_EVENTS = [
  'resumed',
  'interrupted',
  'budget_reached',
  'harness_error',
  'control',
  'tasks_waiting',
] as const;
type HealthEvent = ArchiveEvent<(typeof HEALTH_EVENTS)[number]>;

/**
 * The state a page shows: the stored one, except that a run whose every generation failed reads as
 * `failed`, and a running run that has written nothing for a long while as `stalled`.
 */
export type ShownState = RunState | 'stalled';

export interface RunHealth {
  state: ShownState;
  /** How a page colours it: `error` failed, `warning` stopped early, interrupted or stalled. */
  level: 'ok' | 'warning' | 'error';
  /** Why the run is in that state, in one sentence. */
  why: string;
  /** The command that continues the run; null when there is nothing to continue. */
  resume: string | null;
  /** Generations that ended (beside variant 0), and how many of them failed or were rejected. */
  finished: number;
  failed: number;
  /** Failed and rejected generations by cause, most first. */
  failures: { cause: string; count: number }[];
  budgetUsd: number | null;
  spentUsd: number;
  /** Generations ended per hour, over the time the run has run; null before one has ended. */
  perHour: number | null;
  /** What is left at the current pace; null when the run is done or no generation has ended yet. */
  estimate: { generations: number; hours: number; costUsd: number } | null;
  lastActivityAt: string | null;
  /** Whether a `pause` control holds (it carries over a resume; see carriedControls). */
  paused: boolean;
  /** The controls the run was given (pause, budget, note ...), oldest first. */
  controls: { ts: string; action: string; value: string | null }[];
  /**
   * With --queue, while the run runs: why tasks wait, one message per language no connected worker can
   * grade ("3 go tasks wait: no connected worker can grade go (it needs go: ...)").
   */
  waiting: string[];
}

export interface HealthInput {
  run: RunView;
  variants: readonly VariantView[];
  /** The run's events of the types in HEALTH_EVENTS, oldest first. */
  events: readonly HealthEvent[];
  lastActivityAt: string | null;
  runDir: string;
  /** Milliseconds since the epoch, for the pace and a stall. */
  now: number;
}

/** A running run that has written nothing for this long (or 3 generations' time, if longer) is stalled. */
const STALL_MS = 15 * 60_000;

const causeOf = (v: VariantView): string =>
  v.outcome === 'rejected' ? 'rejected at the gate' : (v.failureCause ?? 'unknown');

const usd = (n: number): string => `$${n.toFixed(4)}`;

const budgetOf = (config: unknown): number | null => {
  const value = (config as { budgetUsd?: unknown } | null)?.budgetUsd;
  return typeof value === 'number' ? value : null;
};

/** The part of a run's health that depends on its state: the state shown, its colour, why, and the resume. */
type StateVerdict = Pick<RunHealth, 'state' | 'level' | 'why' | 'resume'>;

/** What the verdict of each state is made from. */
interface StateFacts {
  input: HealthInput;
  ended: readonly VariantView[];
  failedOnes: readonly VariantView[];
  failures: RunHealth['failures'];
  budgetUsd: number | null;
  perHour: number | null;
  paused: boolean;
}

/**
 * A run's health as its page shows it at the top: its state and why, the resume command, failures by
 * cause, the budget, the pace and what is left at it. Pure.
 */
export function runHealth(input: HealthInput): RunHealth {
  const { run, variants, events } = input;
  const children = variants.filter((v) => v.id !== 0);
  const ended = children.filter((v) => v.outcome !== 'in_progress');
  const failedOnes = ended.filter((v) => v.outcome === 'failed' || v.outcome === 'rejected');
  const failures = failuresByCause(failedOnes);
  const budgetUsd = budgetIn(run, events);
  const { perHour, estimate } = paceOf(input, ended, run.generationsPlanned ?? children.length);
  const controls = controlsOf(events);
  const actions = controls.map((c) => c.action);
  const paused = actions.lastIndexOf('pause') > actions.lastIndexOf('resume');
  const facts: StateFacts = { input, ended, failedOnes, failures, budgetUsd, perHour, paused };
  return {
    paused,
    finished: ended.length,
    failed: failedOnes.length,
    failures,
    budgetUsd,
    spentUsd: run.costUsd,
    perHour,
    estimate,
    lastActivityAt: input.lastActivityAt,
    controls,
    waiting: run.state === 'running' ? waitingNow(events) : [],
    ...verdict(facts),
  };
}

/** The languages whose tasks wait now: the last `tasks_waiting` event of each says some do. */
function waitingNow(events: readonly HealthEvent[]): string[] {
  const last = new Map<string, ArchiveEvent<'tasks_waiting'>>();
  for (const e of events) if (e.type === 'tasks_waiting') last.set(e.data.language, e);
  return [...last.values()].filter((e) => e.data.waiting > 0).map((e) => e.data.message);
}

/** Failed and rejected generations by cause, most first. */
function failuresByCause(failedOnes: readonly VariantView[]): RunHealth['failures'] {
  const counts = new Map<string, number>();
  for (const v of failedOnes) counts.set(causeOf(v), (counts.get(causeOf(v)) ?? 0) + 1);
  return [...counts].map(([cause, count]) => ({ cause, count })).sort((a, b) => b.count - a.count);
}

/** The budget in force: the last `budget` control's, else the configured one. */
function budgetIn(run: RunView, events: readonly HealthEvent[]): number | null {
  const budgetControl = controlEvents(events)
    .map((e) => e.data)
    .findLast((c) => c.action === 'budget');
  return budgetControl?.value ?? budgetOf(run.config);
}

/** The `control` events among the run's events. */
const controlEvents = (events: readonly HealthEvent[]): ArchiveEvent<'control'>[] =>
  events.filter((e): e is ArchiveEvent<'control'> => e.type === 'control');

/** Generations ended per hour over the time the run has run, and what is left at that pace. */
function paceOf(
  input: HealthInput,
  ended: readonly VariantView[],
  planned: number,
): Pick<RunHealth, 'perHour' | 'estimate'> {
  const { run, now } = input;
  const start = Date.parse(run.createdAt);
  const until = run.state === 'running' ? now : Date.parse(lastEnd(ended) ?? run.finishedAt ?? run.createdAt);
  const hours = Math.max(until - start, 1) / 3_600_000;
  const perHour = ended.length === 0 ? null : ended.length / hours;
  const left = Math.max(0, planned - ended.length);
  const cost = ended.reduce((sum, v) => sum + v.costUsd, 0);
  const estimate =
    perHour === null || left === 0 || run.state === 'done'
      ? null
      : { generations: left, hours: left / perHour, costUsd: (cost / ended.length) * left };
  return { perHour, estimate };
}

/** The controls the run was given, oldest first. */
function controlsOf(events: readonly HealthEvent[]): RunHealth['controls'] {
  return controlEvents(events).map(({ ts, data }) => ({
    ts,
    action: data.action,
    value: 'value' in data ? String(data.value) : null,
  }));
}

/** The state shown and why, by the stored state. */
function verdict(facts: StateFacts): StateVerdict {
  const { input, ended, failedOnes, failures } = facts;
  const { run, events } = input;
  const resume = `hyperagents generate-loop --resume ${shellWord(input.runDir)}`;
  const since = events.slice(events.findLastIndex((e) => e.type === 'resumed') + 1);
  const last = <K extends HealthEvent['type']>(kind: K) =>
    since.findLast((e): e is ArchiveEvent<K> => e.type === kind);
  const allFailed = ended.length > 0 && failedOnes.length === ended.length;
  const failedWhy = `every generation failed (${failedOnes.length} of ${ended.length}: ${failures
    .map((f) => `${f.count} ${f.cause}`)
    .join(', ')})`;

  switch (run.state) {
    case 'running':
      return runningVerdict(facts, allFailed, failedWhy);
    case 'interrupted':
      return {
        resume,
        state: 'interrupted',
        level: 'warning',
        why: 'its process ended without finishing (killed, or the machine stopped); nothing finished is lost',
      };
    case 'stopped':
      return stoppedVerdict(facts, since, resume);
    case 'failed': {
      const error = last('harness_error');
      return {
        resume,
        state: 'failed',
        level: 'error',
        why: error === undefined ? 'the run failed' : `a harness error: ${error.data.message}`,
      };
    }
    case 'done':
      return allFailed
        ? { resume: null, state: 'failed', level: 'error', why: failedWhy }
        : { resume: null, state: 'done', level: 'ok', why: `done: ${ended.length} generation(s) ended` };
  }
}

/** A running run: paused, stalled (nothing written for a long while), or running. */
function runningVerdict(facts: StateFacts, allFailed: boolean, failedWhy: string): StateVerdict {
  const { input, ended, perHour } = facts;
  if (facts.paused)
    return {
      resume: null,
      state: 'running',
      level: 'warning',
      why: 'paused: the generations under way finish, and no new one starts until it is resumed',
    };
  const quiet = input.now - Date.parse(input.lastActivityAt ?? input.run.createdAt);
  const pace = perHour === null ? 0 : (3 * 3_600_000) / perHour;
  if (quiet > Math.max(STALL_MS, pace)) {
    const minutes = Math.round(quiet / 60_000);
    return {
      resume: null,
      state: 'stalled',
      level: 'warning',
      why: `running, but nothing was written for ${minutes} minutes: the run may be stuck`,
    };
  }
  const worrying = allFailed && ended.length >= 3;
  return {
    resume: null,
    state: 'running',
    level: worrying ? 'warning' : 'ok',
    why: worrying ? `running; ${failedWhy} so far` : 'running',
  };
}

/** A stopped run: by the budget (resumed with a larger one), when asked, by a signal, or early. */
function stoppedVerdict(facts: StateFacts, since: readonly HealthEvent[], resume: string): StateVerdict {
  const { run } = facts.input;
  const { budgetUsd } = facts;
  const budget = since.findLast((e) => e.type === 'budget_reached');
  const control = controlEvents(since).findLast((e) => e.data.action === 'stop-after');
  const why =
    budget !== undefined
      ? `stopped by the budget: ${usd(run.costUsd)} spent of ${budgetUsd === null ? 'its budget' : usd(budgetUsd)}; raise --budget-usd to go on`
      : control !== undefined
        ? 'stopped when asked (stop-after): the generations under way finished, no more were started'
        : since.findLast((e) => e.type === 'interrupted') !== undefined
          ? 'interrupted (Ctrl-C or a stop signal)'
          : 'stopped before its end';
  const command =
    budget !== undefined ? `${resume} --budget-usd ${nextBudget(run.costUsd, budgetUsd)}` : resume;
  return { resume: command, state: 'stopped', level: 'warning', why };
}

/** The latest time a generation ended. */
function lastEnd(ended: readonly VariantView[]): string | null {
  let latest: string | null = null;
  for (const v of ended)
    if (v.finishedAt !== null && (latest === null || v.finishedAt > latest)) latest = v.finishedAt;
  return latest;
}

/** A budget to resume with: double what was allowed, or what was spent plus a dollar when none was set. */
function nextBudget(spent: number, budget: number | null): string {
  const next = budget === null || budget <= 0 ? spent + 1 : Math.max(budget * 2, spent + 0.01);
  return String(Math.ceil(next * 100) / 100);
}
