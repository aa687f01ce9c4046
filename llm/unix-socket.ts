import { createHash } from 'node:crypto';
import { lstat, unlink } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Unix socket paths are limited to 104-108 bytes depending on the OS. */
const MAX_SOCKET_PATH_BYTES = 100;

/** The path itself, or for one too long for a unix socket a short stable one in os.tmpdir(). */
export function usableSocketPath(path: string): string {
  if (Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES) return path;
  const digest = createHash('sha256').update(path).digest('hex').slice(0, 16);
  return join(tmpdir(), `hyperagents-${digest}.sock`);
}

/** Removes a socket file nobody listens on; refuses to touch a live socket or a non-socket file. */
export async function clearStaleSocket(path: string): Promise<void> {
  const stat = await lstat(path).catch(() => undefined);
  if (!stat) return;
  if (!stat.isSocket()) throw new Error(`cannot start the gateway: ${path} exists and is not a socket`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new Error(`cannot start the gateway: another process is listening on ${path}`);
  await unlink(path);
}

export function listen(server: Server, ...args: [string] | [number, string]): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(...(args as [number, string]), () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
