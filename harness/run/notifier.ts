import { execa } from 'execa';
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
  log(type: 'alert' | 'alert_delivery_failed' | 'alert_delivered', data: Record<string, unknown>): void;
}

export const ALERT_ATTEMPTS = 4;
export const ALERT_BACKOFF_MS = 1000;
export const ALERT_ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * Delivers alerts without holding up whoever sends them: `send` logs the alert and returns at once, while
 * each target is tried in the background, its alerts in the order they were sent (a POST of the JSON to the URL, answered 2xx; the command run by the
 * shell with the JSON on stdin, exiting 0), retried with a doubling wait. A failed attempt is logged, never
 * thrown. `settle` waits for deliveries still under way, at most `capMs` (the end of a run, so that its last
 * alert has a chance to go out).
 */
export function createNotifier(targets: NotifyTargets, options: NotifierOptions) {
  const attempts = options.attempts ?? ALERT_ATTEMPTS;
  const backoffMs = options.backoffMs ?? ALERT_BACKOFF_MS;
  const timeoutMs = options.attemptTimeoutMs ?? ALERT_ATTEMPT_TIMEOUT_MS;
  const pending = new Set<Promise<void>>();
  const stop = new AbortController();
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

  const deliver = async (
    alert: DeliveredAlert,
    target: string,
    once: (body: string, signal: AbortSignal) => Promise<void>,
  ) => {
    const body = JSON.stringify(alert);
    for (let attempt = 1; attempt <= attempts && !stop.signal.aborted; attempt++) {
      try {
        await once(body, AbortSignal.any([stop.signal, AbortSignal.timeout(timeoutMs)]));
        options.log('alert_delivered', { alert: alert.type, alertTime: alert.time, target, attempt });
        return;
      } catch (error) {
        const retry = attempt < attempts && !stop.signal.aborted;
        options.log('alert_delivery_failed', {
          alert: alert.type,
          alertTime: alert.time,
          target,
          attempt,
          retrying: retry,
          error: errorLine(error),
        });
        if (retry) await wait(backoffMs * 2 ** (attempt - 1), stop.signal);
      }
    }
  };

  return {
    /** Logs the alert and starts delivering it; returns at once. Must not throw. */
    send(alert: DeliveredAlert): void {
      options.log('alert', alert);
      for (const queue of deliveries) {
        const delivery: Promise<void> = queue.last
          .then(() => deliver(alert, queue.target, queue.deliver))
          .catch(() => undefined)
          .finally(() => pending.delete(delivery));
        queue.last = delivery;
        pending.add(delivery);
      }
    },
    /** Waits for the deliveries under way, at most `capMs`; then gives up on those still trying. */
    async settle(capMs: number): Promise<void> {
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
