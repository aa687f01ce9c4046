import { type AlertLog, createNotifier, type Notifier } from './notifier.ts';
import type { RunEvent } from './run-events.ts';

/** Share of the budget at which the first budget alert goes out (the second at all of it). */
const BUDGET_WARNING = 0.8;

export interface AlertWatchOptions {
  runId: string;
  stallMinutes: number;
  failureStreak: number;
  /** The run's spend so far, in USD. */
  spentUsd(): number;
  /** The run's budget now (its --budget-usd, or what a `budget` control set); null: none. */
  budgetUsd(): number | null;
  /** Whether a `pause` control holds the run: a paused run is not stalled. */
  paused(): boolean;
  now?: () => number;
}

export interface RunEnd {
  state: 'done' | 'stopped' | 'failed';
  /** Why it stopped before its end (the summary's words), or what it failed with. */
  reason: string | null;
  best: { id: number; score: number } | null;
  /** Generations that ended (null: unknown, the archive could not be read). */
  generations: number | null;
}

const usd = (n: number): string => `$${n.toFixed(2)}`;

/**
 * Decides which moments of a run are worth telling someone who is not watching, and sends them through
 * `notifier`: a stall (no generation finished for `stallMinutes`, not while paused; once until one finishes),
 * 80 % and 100 % of the budget (each once, against the budget in force), `failureStreak` generations in a row
 * failed (once per streak), a harness error, and the end of the run. `observe` takes the run's events; `check`
 * is called on a timer for the stall.
 */
// Over 80 lines: one watcher whose members share the run's counts (finishes, failures, alerts sent).
export function watchAlerts(notifier: Notifier, options: AlertWatchOptions) {
  const now = options.now ?? Date.now;
  const stallMs = options.stallMinutes * 60_000;
  let lastFinished = now();
  let stallSent = false;
  let finished = 0;
  const failedInRow: number[] = [];
  let lastFailure: string | null = null;
  const budgetSent = new Set<number>();

  const send = (type: string, message: string, facts: Record<string, unknown> = {}): void =>
    notifier.send({ type, runId: options.runId, time: new Date(now()).toISOString(), message, ...facts });

  const checkBudget = (): void => {
    const budget = options.budgetUsd();
    if (budget === null || budget <= 0) return;
    const spent = options.spentUsd();
    for (const share of [BUDGET_WARNING, 1]) {
      const percent = Math.round(share * 100);
      if (spent < budget * share || budgetSent.has(percent)) continue;
      budgetReached(percent, spent, budget);
    }
  };
  const budgetReached = (percent: number, spent: number, budget: number): void => {
    if (budgetSent.has(percent)) return;
    budgetSent.add(percent);
    if (percent === 100) budgetSent.add(Math.round(BUDGET_WARNING * 100));
    send(
      'budget',
      percent === 100
        ? `run ${options.runId} reached its budget: ${usd(spent)} of ${usd(budget)} spent; it stops`
        : `run ${options.runId} has spent ${usd(spent)}, ${percent} % of its ${usd(budget)} budget`,
      { percent, spentUsd: spent, budgetUsd: budget },
    );
  };

  return {
    /** Takes each event of the run as it is emitted. Must not throw. */
    observe(event: RunEvent): void {
      if (event.type === 'llm_call') checkBudget();
      if (event.type !== 'variant_done' || event.variant === 0) return;
      finished++;
      lastFinished = now();
      stallSent = false;
      if (event.status === 'evaluated' || event.status === 'staged_only') {
        failedInRow.length = 0;
        return;
      }
      failedInRow.push(event.variant);
      lastFailure = event.reason ?? event.status;
      if (failedInRow.length !== options.failureStreak) return;
      send(
        'failure_streak',
        `run ${options.runId}: ${failedInRow.length} generations in a row failed (variants ` +
          `${failedInRow.join(', ')}); the last: ${lastFailure}`,
        { count: failedInRow.length, variants: [...failedInRow], lastReason: lastFailure },
      );
    },
    /** Sends a stall alert when no generation finished for `stallMinutes` (and the run is not paused). */
    check(): void {
      if (options.paused()) {
        lastFinished = now();
        return;
      }
      const idleMs = now() - lastFinished;
      if (stallSent || idleMs < stallMs) return;
      stallSent = true;
      const minutes = Math.round((idleMs / 60_000) * 10) / 10;
      const took = idleMs < 60_000 ? `${Math.round(idleMs / 1000)} seconds` : `${minutes} minutes`;
      send(
        'stall',
        `run ${options.runId}: no generation finished in the last ${took} (${finished} finished ` +
          `so far, ${usd(options.spentUsd())} spent)`,
        { minutes, generationsFinished: finished, spentUsd: options.spentUsd() },
      );
    },
    /** The run stopped at its budget: the 100 % alert, unless it went out already. */
    budgetReached(): void {
      const budget = options.budgetUsd();
      if (budget !== null) budgetReached(100, options.spentUsd(), budget);
    },
    harnessError(message: string): void {
      send('harness_error', `run ${options.runId} hit a harness error: ${message}`, { error: message });
    },
    ended(end: RunEnd): void {
      const spent = options.spentUsd();
      const best =
        end.best === null
          ? 'no scored variant'
          : `best variant ${end.best.id} (${end.best.score.toFixed(3)})`;
      send(
        'run_end',
        `run ${options.runId} ${end.state}${end.reason === null ? '' : `: ${end.reason}`}; ${best}; ` +
          `${usd(spent)} spent`,
        {
          state: end.state,
          reason: end.reason,
          best: end.best,
          generations: end.generations,
          spentUsd: spent,
        },
      );
    },
  };
}

export type AlertWatch = ReturnType<typeof watchAlerts>;

/** How often the stall check runs for a run that stalls after `stallMinutes`, in ms. */
export const stallCheckMs = (stallMinutes: number): number =>
  Math.max(200, Math.min(30_000, (stallMinutes * 60_000) / 4));

/** How long the end of a run waits for its alerts still being delivered (the last one, its end), in ms. */
export const ALERT_SETTLE_MS = 15_000;

/**
 * A run's alerts when its configuration names a target (`--notify`, `--notify-cmd`), else null: the watch,
 * its stall timer, and the notifier, each alert and each failed delivery logged in the run's events (until
 * `close`, which waits for deliveries at most ALERT_SETTLE_MS).
 */
export function runAlerts(
  config: { notifyUrl: string | null; notifyCmd: string | null; stallMinutes: number; failureStreak: number },
  log: AlertLog,
  options: Omit<AlertWatchOptions, 'stallMinutes' | 'failureStreak'>,
) {
  if (config.notifyUrl === null && config.notifyCmd === null) return null;
  let open = true;
  const notifier = createNotifier(
    { url: config.notifyUrl, command: config.notifyCmd },
    {
      log: (type, data) => {
        if (!open) return;
        try {
          log(type, data);
        } catch {
          // The archive cannot be written (a full disk): the alert still goes out.
        }
      },
    },
  );
  const watch = watchAlerts(notifier, {
    ...options,
    stallMinutes: config.stallMinutes,
    failureStreak: config.failureStreak,
  });
  const timer = setInterval(() => watch.check(), stallCheckMs(config.stallMinutes));
  timer.unref();
  return {
    ...watch,
    async close(): Promise<void> {
      clearInterval(timer);
      await notifier.settle(ALERT_SETTLE_MS);
      open = false;
    },
  };
}

export type RunAlerts = NonNullable<ReturnType<typeof runAlerts>>;
