import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionOptions } from './connection.ts';
import { type RedisEvent, watchRedis } from './redis-watch.ts';
import { startRedis, type TestRedis } from './testing/redis-server.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** A client as the coordinator's (it waits through an outage), watched with short times; its events. */
function watched() {
  const client = new Redis({
    ...connectionOptions({ host: '127.0.0.1', port: redis.port, db: 0 }),
    retryStrategy: () => 50,
  });
  client.on('error', () => undefined);
  const events: RedisEvent[] = [];
  const waiters: { test: (e: RedisEvent) => boolean; resolve: () => void }[] = [];
  const stop = watchRedis(
    client,
    redis.url,
    (event) => {
      events.push(event);
      for (const w of waiters.filter((w) => w.test(event))) w.resolve();
    },
    { intervalMs: 50, timeoutMs: 1000, reportMs: 300 },
  );
  return {
    events,
    /** Resolves at the first event (from now on) that passes `test`. */
    next: (test: (e: RedisEvent) => boolean) =>
      new Promise<void>((resolve) => waiters.push({ test, resolve })),
    close() {
      stop();
      client.disconnect();
    },
  };
}

describe('watchRedis', () => {
  it('says nothing while Redis answers', async () => {
    const watch = watched();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    watch.close();
    expect(watch.events).toEqual([]);
  });

  it.each([
    ['stopped, then started again', () => redis.down(), () => redis.up()],
    ['frozen (its connections open, no answer), then thawed', () => redis.freeze(), () => redis.thaw()],
  ])('reports Redis %s: waiting, again while it lasts, and back', async (_what, fail, recover) => {
    const watch = watched();
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await fail();
      await watch.next((e) => e.type === 'redis_waiting');
      await watch.next((e) => e.type === 'redis_waiting');
      await recover();
      await watch.next((e) => e.type === 'redis_back');
    } finally {
      watch.close();
    }
    const types = watch.events.map((e) => e.type);
    expect(types.slice(0, -1).every((t) => t === 'redis_waiting')).toBe(true);
    expect(types.at(-1)).toBe('redis_back');
    expect(watch.events.every((e) => e.url === redis.url)).toBe(true);
    // The time counts up from the last answer, and the end says how long it lasted.
    const waited = watch.events.map((e) => e.waitedMs);
    expect(waited).toEqual([...waited].sort((a, b) => a - b));
    expect(waited[0]).toBeGreaterThanOrEqual(1000);
  });
});
