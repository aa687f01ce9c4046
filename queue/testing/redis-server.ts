import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * A real redis-server on loopback (for tests and benchmarks: Debian's redis-server at /usr/bin), in its own temp
 * folder, without persistence; restartable on the same port.
 */
export interface TestRedis {
  url: string;
  port: number;
  restart(): Promise<void>;
  /** Kills the server (SIGKILL); `up` starts it again on the same port, empty. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Stops and continues the server's process (SIGSTOP, SIGCONT): connections stay open, nothing answers. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hyperagents-redis-'));
  const port = await freePort();
  let child: ChildProcess = await launch(port, dir);
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const stopChild = async (): Promise<void> => {
    if (!running()) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async restart() {
      await stopChild();
      child = await launch(port, dir);
    },
    down: stopChild,
    async up() {
      if (running()) return;
      child = await launch(port, dir);
    },
    freeze() {
      child.kill('SIGSTOP');
    },
    thaw() {
      child.kill('SIGCONT');
    },
    async stop() {
      await stopChild();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      '/usr/bin/redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)));
  });
}
