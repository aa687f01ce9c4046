import { probeRedis } from '../queue/connection.ts';
import { parseRedisUrl, type RedisTarget } from '../queue/redis-url.ts';
import { UsageError } from './usage-error.ts';

/** The `--queue` URL, checked for form and for a Redis that answers: else a UsageError saying what to do. */
export async function queueTarget(url: string | undefined, command: string): Promise<RedisTarget> {
  if (url === undefined || url === '') {
    throw new UsageError(
      `${command} needs --queue redis://HOST:PORT[/DB]: the Redis server the coordinator uses.`,
    );
  }
  const parsed = parseRedisUrl(url);
  if (!parsed.ok) throw new UsageError(`--queue: ${parsed.message}`);
  const probe = await probeRedis(parsed.target);
  if (!probe.ok) throw new UsageError(probe.message);
  return parsed.target;
}
