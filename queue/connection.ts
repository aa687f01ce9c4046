import { formatRedisTarget, type RedisTarget } from './redis-url.ts';

/**
 * Options for BullMQ's connections: commands wait through a Redis restart (ioredis reconnects) instead of
 * failing, so a coordinator or worker survives one.
 */
export const connectionOptions = (target: RedisTarget) => ({
  host: target.host,
  port: target.port,
  db: target.db,
  maxRetriesPerRequest: null,
});

/**
 * Checks once that Redis answers, before anything is started: a message when it does not (nothing retried,
 * so a wrong address fails at once).
 */
export async function probeRedis(
  target: RedisTarget,
): Promise<{ ok: true } | { ok: false; message: string }> {
  // Loaded here, not when a command starts: `--help` never needs the client.
  const { Redis } = await import('ioredis');
  const client = new Redis({
    ...connectionOptions(target),
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return { ok: true };
  } catch (error) {
    return {
      ok: false,
      message: `Cannot reach Redis at ${formatRedisTarget(target)} (${(error as Error).message}). Start it (Debian/Ubuntu: apt-get install redis-server), or pass the right --queue redis://HOST:PORT[/DB].`,
    };
  } finally {
    client.disconnect();
  }
}
