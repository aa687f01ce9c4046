import { createServer } from 'node:net';
import { parseRedisUrl, probeRedis, type RedisTarget } from '../../queue/index.ts';
import { UsageError } from '../shared/usage-error.ts';

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

/** Checks that the gateway can listen where `--gateway-listen` says, before the run folder is written. */
export async function assertListenable(where: { host: string; port: number }): Promise<void> {
  const server = createServer();
  const failed = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    server.once('error', resolve);
    server.listen(where.port, where.host, () => server.close(() => resolve(null)));
  });
  if (failed === null) return;
  const why =
    failed.code === 'EADDRINUSE'
      ? `port ${where.port} is in use`
      : failed.code === 'EADDRNOTAVAIL' || failed.code === 'ENOTFOUND'
        ? `${where.host} is no address of this machine`
        : failed.message;
  throw new UsageError(
    `--gateway-listen ${where.host}:${where.port}: the gateway cannot listen there (${why}). Pick another address or port.`,
  );
}
