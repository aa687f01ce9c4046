import type { EventView, RunState, RunView, VariantView } from '../archive/index.ts';

/** The run events that say why a run stopped or what it was told; read by runHealth. */
export const HEALTH_EVENTS = [
  'resumed',
  'interrupted',
  'budget_reached',
  'harness_error',
  'control',
] as const;

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
}

export interface HealthInput {
  run: RunView;
  variants: readonly VariantView[];
  /** The run's events of the types in HEALTH_EVENTS, oldest first. */
  events: readonly EventView[];
  lastActivityAt: string | null;
  runDir: string;
  /** Milliseconds since the epoch, for the pace and a stall. */
  now: number;
}

/** A running run that has written nothing for this long (or 3 generations' time, if longer) is stalled. */
const STALL_MS = 15 * 60_000;

const word = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`);

const causeOf = (v: VariantView): string =>
  v.outcome === 'rejected' ? 'rejected at the gate' : (v.failureCause ?? 'unknown');

const usd = (n: number): string => `$${n.toFixed(4)}`;

const budgetOf = (config: unknown): number | null => {
  const value = (config as { budgetUsd?: unknown } | null)?.budgetUsd;
  return typeof value === 'number' ? value : null;
};

/**
 * A run's health as its page shows it at the top: its state and why, the resume command, failures by
 * cause, the budget, the pace and what is left at it. Pure.
 */
export function runHealth(input: HealthInput): RunHealth {
  const { run, variants, events, now } = input;
  const children = variants.filter((v) => v.id !== 0);
  const ended = children.filter((v) => v.outcome !== 'in_progress');
  const failedOnes = ended.filter((v) => v.outcome === 'failed' || v.outcome === 'rejected');
  const counts = new Map<string, number>();
  for (const v of failedOnes) counts.set(causeOf(v), (counts.get(causeOf(v)) ?? 0) + 1);
  const failures = [...counts].map(([cause, count]) => ({ cause, count })).sort((a, b) => b.count - a.count);
  const budgetControl = events.findLast(
    (e) => e.type === 'control' && (e.data as { action?: unknown } | null)?.action === 'budget',
  );
  const budgetValue = (budgetControl?.data as { value?: unknown } | undefined)?.value;
  const budgetUsd = typeof budgetValue === 'number' ? budgetValue : budgetOf(run.config);
  const planned = run.generationsPlanned ?? children.length;

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

  const since = events.slice(events.findLastIndex((e) => e.type === 'resumed') + 1);
  const last = (type: string) => since.findLast((e) => e.type === type);
  const resume = `hyperagents generate-loop --resume ${word(input.runDir)}`;
  const actions = events
    .filter((e) => e.type === 'control')
    .map((e) => (e.data as { action?: unknown } | null)?.action);
  const paused = actions.lastIndexOf('pause') > actions.lastIndexOf('resume');
  const base = {
    paused,
    resume: null as string | null,
    finished: ended.length,
    failed: failedOnes.length,
    failures,
    budgetUsd,
    spentUsd: run.costUsd,
    perHour,
    estimate,
    lastActivityAt: input.lastActivityAt,
    controls: events
      .filter((e) => e.type === 'control')
      .map((e) => {
        const data = (e.data ?? {}) as { action?: unknown; value?: unknown };
        return {
          ts: e.ts,
          action: String(data.action ?? '?'),
          value: data.value === undefined || data.value === null ? null : String(data.value),
        };
      }),
  };
  const allFailed = ended.length > 0 && failedOnes.length === ended.length;
  const failedWhy = `every generation failed (${failedOnes.length} of ${ended.length}: ${failures
    .map((f) => `${f.count} ${f.cause}`)
    .join(', ')})`;

  switch (run.state) {
    case 'running': {
      if (paused)
        return {
          ...base,
          state: 'running',
          level: 'warning',
          why: 'paused: the generations under way finish, and no new one starts until it is resumed',
        };
      const quiet = now - Date.parse(input.lastActivityAt ?? run.createdAt);
      const pace = perHour === null ? 0 : (3 * 3_600_000) / perHour;
      if (quiet > Math.max(STALL_MS, pace)) {
        const minutes = Math.round(quiet / 60_000);
        return {
          ...base,
          state: 'stalled',
          level: 'warning',
          why: `running, but nothing was written for ${minutes} minutes: the run may be stuck`,
        };
      }
      return {
        ...base,
        state: 'running',
        level: allFailed && ended.length >= 3 ? 'warning' : 'ok',
        why: allFailed && ended.length >= 3 ? `running; ${failedWhy} so far` : 'running',
      };
    }
    case 'interrupted':
      return {
        ...base,
        resume,
        state: 'interrupted',
        level: 'warning',
        why: 'its process ended without finishing (killed, or the machine stopped); nothing finished is lost',
      };
    case 'stopped': {
      const budget = last('budget_reached');
      const control = since.findLast(
        (e) => e.type === 'control' && (e.data as { action?: unknown })?.action === 'stop-after',
      );
      const why =
        budget !== undefined
          ? `stopped by the budget: ${usd(run.costUsd)} spent of ${budgetUsd === null ? 'its budget' : usd(budgetUsd)}; raise --budget-usd to go on`
          : control !== undefined
            ? 'stopped when asked (stop-after): the generations under way finished, no more were started'
            : last('interrupted') !== undefined
              ? 'interrupted (Ctrl-C or a stop signal)'
              : 'stopped before its end';
      const command =
        budget !== undefined ? `${resume} --budget-usd ${nextBudget(run.costUsd, budgetUsd)}` : resume;
      return { ...base, resume: command, state: 'stopped', level: 'warning', why };
    }
    case 'failed': {
      const error = last('harness_error');
      const message = (error?.data as { message?: unknown } | undefined)?.message;
      return {
        ...base,
        resume,
        state: 'failed',
        level: 'error',
        why: typeof message === 'string' ? `a harness error: ${message}` : 'the run failed',
      };
    }
    case 'done':
      return allFailed
        ? { ...base, state: 'failed', level: 'error', why: failedWhy }
        : { ...base, state: 'done', level: 'ok', why: `done: ${ended.length} generation(s) ended` };
  }
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
