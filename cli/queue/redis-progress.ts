import type { RedisEvent } from '../../queue/index.ts';

/** The progress line of a Redis outage as a coordinator or worker lives it. Pure. */
export function redisLine(event: RedisEvent): string {
  const seconds = Math.round(event.waitedMs / 1000);
  switch (event.type) {
    case 'redis_waiting':
      return `waiting for Redis at ${event.url}, ${seconds} s (it does not answer; the queue goes on when it does)`;
    case 'redis_back':
      return `Redis at ${event.url} answers again, after ${seconds} s`;
  }
}
