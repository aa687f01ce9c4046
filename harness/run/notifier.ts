import { execa } from 'execa';
import type { EventInput } from '../../archive/index.ts';
import { errorLine } from '../process/index.ts';

/** Where a run's alerts go (`--notify URL`, `--notify-cmd CMD`); either may be absent. */
export interface NotifyTargets {
  url: string | null;
  command: string | null;
}

/** An alert as it is delivered: a type, the run, when, a line for a person, and the facts behind it. */
export interface DeliveredAlert {
  type: string;
  runId: string;
  time: string;
  message: string;
  [fact: string]: unknown;
}

export interface NotifierOptions {
  /** Attempts per target in all (the first and its retries). */
  attempts?: number;
  /** The wait before the first retry, in ms; it doubles before each next one. */
  backoffMs?: number;
  /** How long one attempt may take (an HTTP request, a command), in ms. */
  attemptTimeoutMs?: number;
  /**
   * Told of every alert sent, of every failed attempt and of every delivery that succeeded (each naming the
   * alert by its type and time); must not throw.
   */
  log: AlertLog;
}

/** Records an alert event in the run's archive (see EVENT_KINDS). */
export type AlertLog = <K extends 'alert' | 'alert_delivery_failed' | 'alert_delivered'>(
  kind: K,
  data: EventInput<K>,
) => void;

export const ALERT_ATTEMPTS = 4;
export const ALERT_BACKOFF_MS = 1000;
export const ALERT_ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * Delivers alerts without holding up whoever sends them: `send` logs the alert and returns at once, while
 * each target is tried in the background, its alerts in the order they were sent (a POST of the JSON to the
 * URL, answered 2xx; the command run by the shell with the JSON on stdin, exiting 0), retried with a doubling
 * wait. An attempt that fails is logged, never thrown, and retried only when the receiver cannot have the
 * alert: one that got no answer in time (a slow receiver, a command that hung) may have it, and is not sent
 * again. `settle` (the end of a run) stops the retries of every alert but the last one sent, so that the last
 * one (its end) goes out next even behind an earlier alert still retrying, and waits at most `capMs`.
 */
export function createNotifier(targets: NotifyTargets, options: NotifierOptions) {
  const stop = new AbortController();
  const policy: RetryPolicy = {
    attempts: options.attempts ?? ALERT_ATTEMPTS,
    backoffMs: options.backoffMs ?? ALERT_BACKOFF_MS,
    timeoutMs: options.attemptTimeoutMs ?? ALERT_ATTEMPT_TIMEOUT_MS,
    stop: stop.signal,
    log: options.log,
  };
  const pending = new Set<Promise<void>>();
  /** Per alert sent, what stops its retries: settle aborts all but the last one's. */
  const giveUps: AbortController[] = [];
  /** Each target's alerts go one after another, in the order sent: `last` is its delivery under way. */
  const deliveries: {
    target: string;
    deliver(body: string, signal: AbortSignal): Promise<void>;
    last: Promise<void>;
  }[] = [];
  if (targets.url !== null)
    deliveries.push({ target: 'notify', deliver: post(targets.url), last: Promise.resolve() });
  if (targets.command !== null)
    deliveries.push({ target: 'notify-cmd', deliver: runCommand(targets.command), last: Promise.resolve() });

  return {
    /** Logs the alert and starts delivering it; returns at once. Must not throw. */
    send(alert: DeliveredAlert): void {
      options.log('alert', alert);
      const giveUp = new AbortController();
      giveUps.push(giveUp);
      for (const queue of deliveries) {
        const delivery: Promise<void> = queue.last
          .then(() => deliverWithRetries(alert, queue.target, queue.deliver, giveUp.signal, policy))
          .catch(() => undefined)
          .finally(() => pending.delete(delivery));
        queue.last = delivery;
        pending.add(delivery);
      }
    },
    /**
     * Stops the retries of every alert but the last one sent (the end of a run goes out next, even behind an
     * earlier one still retrying), waits for the deliveries under way at most `capMs`, then gives up on those
     * still trying.
     */
    async settle(capMs: number): Promise<void> {
      for (const giveUp of giveUps.slice(0, -1)) giveUp.abort();
      if (pending.size > 0) {
        const cap = new Promise<void>((resolve) => setTimeout(resolve, capMs).unref());
        await Promise.race([Promise.all(pending), cap]);
      }
      stop.abort();
      await Promise.all(pending);
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;

/** How one alert is tried on one target: attempts, the first wait, each attempt's time, the run's stop. */
interface RetryPolicy {
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
  /** Aborted when the run has settled: nothing more is tried. */
  stop: AbortSignal;
  log: NotifierOptions['log'];
}

/** Tries one alert on one target until it is delivered, the attempts run out, or it must not be sent again. */
async function deliverWithRetries(
  alert: DeliveredAlert,
  target: string,
  once: (body: string, signal: AbortSignal) => Promise<void>,
  giveUp: AbortSignal,
  policy: RetryPolicy,
): Promise<void> {
  const { attempts, backoffMs, timeoutMs, stop, log } = policy;
  const body = JSON.stringify(alert);
  const facts = { alert: alert.type, alertTime: alert.time, target };
  for (let attempt = 1; attempt <= attempts && !stop.aborted; attempt++) {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      await once(body, AbortSignal.any([stop, timeout]));
      log('alert_delivered', { ...facts, attempt });
      return;
    } catch (error) {
      const slow = timeout.aborted && !stop.aborted;
      const retry = attempt < attempts && !stop.aborted && !slow && !giveUp.aborted;
      log('alert_delivery_failed', {
        ...facts,
        attempt,
        retrying: retry,
        error: slow
          ? `no answer within ${timeoutMs / 1000} s: not sent again, as the receiver may have it`
          : errorLine(error),
      });
      if (!retry) return;
      await wait(backoffMs * 2 ** (attempt - 1), AbortSignal.any([stop, giveUp]));
      if (giveUp.aborted && !stop.aborted) {
        log('alert_delivery_failed', {
          ...facts,
          attempt,
          retrying: false,
          error: 'not tried again: the run ended, and its last alert goes out now',
        });
        return;
      }
    }
  }
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** One POST of the alert's JSON; anything but a 2xx answer is a failure. */
function post(url: string) {
  return async (body: string, signal: AbortSignal): Promise<void> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'hyperagents-ts' },
      body,
      signal,
    });
    await response.body?.cancel();
    // The address's origin only: a webhook's path often is its secret, and this text is stored and shown.
    if (!response.ok) throw new Error(`${new URL(url).origin} answered HTTP ${response.status}`);
  };
}

/** One run of the command by the shell, the alert's JSON on its stdin; a non-zero exit is a failure. */
function runCommand(command: string) {
  return async (body: string, signal: AbortSignal): Promise<void> => {
    const result = await execa(command, [], {
      shell: true,
      input: body,
      cancelSignal: signal,
      forceKillAfterDelay: 1000,
      reject: false,
      stdout: 'ignore',
      stderr: 'pipe',
      maxBuffer: 64 * 1024,
    });
    if (result.exitCode === 0 && !result.isCanceled) return;
    const why = result.isCanceled
      ? 'was stopped (too slow)'
      : `exited with ${result.exitCode ?? result.signal}`;
    const stderr =
      String(result.stderr ?? '')
        .trim()
        .split('\n')
        .at(-1) ?? '';
    throw new Error(`the command ${why}${stderr === '' ? '' : `: ${stderr}`}`);
  };
}
