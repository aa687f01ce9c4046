import type { Redis } from 'ioredis';

/**
 * Redis as a coordinator or worker waits for it: `redis_waiting` when it stops answering and again every
 * `reportMs` while it does not, `redis_back` once it answers again. `waitedMs` counts from its last answer.
 */
export type RedisEvent =
  | { type: 'redis_waiting'; url: string; waitedMs: number }
  | { type: 'redis_back'; url: string; waitedMs: number };

export interface RedisWatchOptions {
  /** Time between two questions (PING) while it answers. Default 1 s. */
  intervalMs?: number;
  /** A question without an answer for this long is an outage (a stopped server, or one that hangs). Default 3 s. */
  timeoutMs?: number;
  /** How often an outage is reported while it lasts. Default 10 s. */
  reportMs?: number;
}

/**
 * Asks Redis through `client` whether it answers, one question at a time (a question asked while the client is
 * reconnecting waits in its offline queue and is answered once Redis is back), and tells `emit` when it stops
 * and starts answering. Returns a stop function; call it before the client is disconnected. Never throws.
 */
export function watchRedis(
  client: Redis,
  url: string,
  emit: (event: RedisEvent) => void,
  options: RedisWatchOptions = {},
): () => void {
  const intervalMs = options.intervalMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 3000;
  const reportMs = options.reportMs ?? 10_000;
  let stopped = false;
  let lastAnswer = Date.now();
  let reporting: ReturnType<typeof setInterval> | null = null;
  let next: ReturnType<typeof setTimeout> | null = null;

  const report = (): void => emit({ type: 'redis_waiting', url, waitedMs: Date.now() - lastAnswer });
  const lost = (): void => {
    if (stopped || reporting !== null) return;
    report();
    reporting = setInterval(report, reportMs);
    reporting.unref();
  };

  const ask = (): void => {
    if (stopped) return;
    const overdue = setTimeout(lost, timeoutMs);
    overdue.unref();
    void client.ping().then(
      () => answered(overdue, true),
      () => answered(overdue, false),
    );
  };
  const answered = (overdue: ReturnType<typeof setTimeout>, ok: boolean): void => {
    clearTimeout(overdue);
    if (stopped) return;
    if (!ok) lost();
    else {
      if (reporting !== null) {
        clearInterval(reporting);
        reporting = null;
        emit({ type: 'redis_back', url, waitedMs: Date.now() - lastAnswer });
      }
      lastAnswer = Date.now();
    }
    next = setTimeout(ask, intervalMs);
    next.unref();
  };

  ask();
  return () => {
    stopped = true;
    if (reporting !== null) clearInterval(reporting);
    if (next !== null) clearTimeout(next);
  };
}
