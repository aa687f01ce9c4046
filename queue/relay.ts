import { chmod, unlink } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';

export interface Relay {
  /** The unix socket agents on this worker use as their gateway (bound into their sandbox). */
  socketPath: string;
  /** Connections that could not reach the coordinator, since the relay started. */
  failures(): number;
  lastFailure(): string | null;
  close(): Promise<void>;
}

/**
 * Passes each connection on a local unix socket through to the coordinator's gateway over TCP, byte for
 * byte: the sandboxed agent keeps its one way out (a socket file), and only the coordinator holds keys.
 * A connection the coordinator refuses or drops is counted, so the job it served can be retried. "Drops"
 * includes a gateway that ends a kept-alive connection while a request on it is still unanswered: the
 * gateway closes idle connections after a few seconds, and an agent's next request can cross that close
 * on the way (more often here than beside the gateway, the relay being one more hop), which the agent
 * would report as a failed model call, a task outcome that depends on timing.
 */
export async function startRelay(socketPath: string, gateway: URL): Promise<Relay> {
  let failures = 0;
  let last: string | null = null;
  const open = new Set<Socket>();
  const server = createServer((local) => {
    const remote = connect(Number(gateway.port || 80), gateway.hostname.replace(/^\[(.*)\]$/, '$1'));
    open.add(local).add(remote);
    local.pipe(remote);
    remote.pipe(local);
    /** Bytes went to the gateway and none came back since: a request is waiting for its answer. */
    let unanswered = false;
    local.on('data', () => {
      unanswered = true;
    });
    remote.on('data', () => {
      unanswered = false;
    });
    const fail = (reason: string): void => {
      failures += 1;
      last = reason;
      local.destroy();
    };
    remote.on('error', (error) => fail(error.message));
    remote.on('end', () => {
      if (unanswered) fail('the gateway closed the connection before answering a request');
    });
    local.on('error', () => remote.destroy());
    local.on('close', () => {
      open.delete(local);
      remote.destroy();
    });
    remote.on('close', () => open.delete(remote));
  });
  await unlink(socketPath).catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  await chmod(socketPath, 0o600);
  return {
    socketPath,
    failures: () => failures,
    lastFailure: () => last,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await unlink(socketPath).catch(() => undefined);
    },
  };
}

/** Whether the gateway's TCP port accepts a connection now. */
export function reachable(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port || 80), url.hostname.replace(/^\[(.*)\]$/, '$1'));
    socket.setTimeout(3000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
