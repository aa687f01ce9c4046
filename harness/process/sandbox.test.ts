import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cgroupSupport, DEFAULT_LIMITS, type ResourceLimits } from './resource-limits.ts';
import { bwrapAvailable, resolveSandbox, wrapCommand } from './sandbox.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'sandbox-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A node script that tries what an agent must not do and prints one verdict per line. */
const PROBE = `
const fs = require('node:fs');
const net = require('node:net');
const outside = process.argv[2];
const hostPort = Number(process.argv[3]);
const attempt = async (name, fn) => {
  try { await fn(); console.log(name + ' allowed'); } catch (e) { console.log(name + ' denied'); }
};
(async () => {
  await attempt('write-workdir', () => fs.writeFileSync('made-inside.txt', 'x'));
  await attempt('write-outside', () => fs.writeFileSync(outside, 'x'));
  await attempt('read-home', () => fs.readdirSync('/root'));
  await attempt('network', () => new Promise((resolve, reject) => {
    const s = net.connect(hostPort, '127.0.0.1');
    s.on('connect', resolve);
    s.on('error', reject);
    setTimeout(() => reject(new Error('timeout')), 3000);
  }));
  console.log('secret=' + (process.env.SANDBOX_TEST_SECRET ?? 'absent'));
})();
`;

// bubblewrap is installed by .ci/run and npm run setup; without it there is nothing to test here.
describe.skipIf(!bwrapAvailable())('the bubblewrap sandbox', () => {
  it('confines an agent process to its worktree, with no network and a clean environment', async () => {
    // A server on the host's loopback: reachable from the host, not from the sandbox's own network.
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const workdir = path.join(tmp, 'worktree');
    mkdirSync(workdir);
    const probe = path.join(tmp, 'probe.cjs');
    writeFileSync(probe, PROBE);
    // A host folder the sandbox does not mount (its /tmp is private, so a path there would prove nothing).
    const outside = path.join(process.cwd(), `sandbox-escape-${process.pid}.txt`);
    const command = wrapCommand(
      { kind: 'bwrap' },
      { workdir, writable: true, readOnly: [probe] },
      process.execPath,
      [probe, outside, String(port)],
      { PATH: process.env.PATH ?? '' },
    );
    const out = execFileSync(command.file, command.args, {
      encoding: 'utf8',
      env: { ...process.env, SANDBOX_TEST_SECRET: 'hunter2' },
    });
    expect(out.trim().split('\n')).toEqual([
      'write-workdir allowed',
      'write-outside denied',
      'read-home denied',
      'network denied',
      'secret=absent',
    ]);
    expect(existsSync(path.join(workdir, 'made-inside.txt'))).toBe(true);
    expect(existsSync(outside)).toBe(false);
    server.close();
  });

  it('mounts the worktree read-only for task evaluation', () => {
    const workdir = path.join(tmp, 'readonly');
    mkdirSync(workdir);
    const command = wrapCommand(
      { kind: 'bwrap' },
      { workdir, writable: false, readOnly: [] },
      'sh',
      ['-c', 'touch x 2>/dev/null && echo wrote || echo refused'],
      {
        PATH: process.env.PATH ?? '',
      },
    );
    expect(execFileSync(command.file, command.args, { encoding: 'utf8' }).trim()).toBe('refused');
  });

  /** Every process below `pid`, read from the host's /proc. */
  const descendants = (pid: number): number[] => {
    const parents = new Map<number, number>();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const ppid = /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
        if (ppid !== undefined) parents.set(Number(name), Number(ppid));
      } catch {}
    }
    const out: number[] = [];
    const walk = (p: number): void => {
      for (const [child, parent] of parents) {
        if (parent !== p) continue;
        out.push(child);
        walk(child);
      }
    };
    walk(pid);
    return out;
  };

  it('leaves an agent no capabilities, seen from the host, and no way to undo a read-only mount', async () => {
    const sandbox = resolveSandbox('bwrap');
    expect(sandbox.kind).toBe('bwrap');
    if (sandbox.kind !== 'bwrap') return;
    const workdir = path.join(tmp, 'caps');
    const guarded = path.join(tmp, 'guarded');
    mkdirSync(workdir);
    mkdirSync(guarded);
    const marker = path.join(workdir, 'ready');
    const script =
      `mount -o remount,rw,bind ${guarded} 2>/dev/null; touch ${guarded}/written 2>/dev/null; ` +
      `unshare -Urm true 2>/dev/null && echo userns >> ${marker}; touch ${marker}; sleep 600`;
    const command = wrapCommand(
      sandbox,
      { workdir, writable: true, readOnly: [guarded] },
      'sh',
      ['-c', script],
      {
        PATH: '/usr/bin:/bin',
      },
    );
    const child = spawn(command.file, command.args, { env: command.env, stdio: 'ignore', detached: true });
    try {
      // The agent is ready once its `sleep` runs: found from the host, by walking the process tree.
      const sleeper = await new Promise<number>((resolve) => {
        const poll = setInterval(() => {
          const found = descendants(child.pid!).find((pid) => {
            try {
              return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep');
            } catch {
              return false;
            }
          });
          if (found !== undefined && existsSync(marker)) {
            clearInterval(poll);
            resolve(found);
          }
        }, 100);
      });
      expect(sleeper).toBeDefined();
      const status = readFileSync(`/proc/${sleeper}/status`, 'utf8');
      expect(/CapEff:\s+(\w+)/.exec(status)?.[1]).toBe('0000000000000000');
      expect(/CapBnd:\s+(\w+)/.exec(status)?.[1]).toBe('0000000000000000');
      expect(/NoNewPrivs:\s+(\d)/.exec(status)?.[1]).toBe('1');
      expect(existsSync(path.join(guarded, 'written'))).toBe(false);
      expect(readFileSync(marker, 'utf8')).toBe('');
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  }, 60_000);

  const runLimited = (limits: Partial<ResourceLimits>, workdir: string, script: string) => {
    mkdirSync(workdir, { recursive: true });
    const command = wrapCommand(
      { kind: 'bwrap' },
      { workdir, writable: true, readOnly: [], limits: { ...DEFAULT_LIMITS, ...limits } },
      'sh',
      ['-c', script],
      { PATH: '/usr/bin:/bin' },
    );
    try {
      return execFileSync(command.file, command.args, {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? '');
    }
  };

  it('caps the processes an agent can run at once', () => {
    // The shell marks each process it started (a builtin, no process of its own); it ends at the first it
    // cannot start.
    const workdir = path.join(tmp, 'spray');
    runLimited(
      { processes: 20 },
      workdir,
      'for i in $(seq 80); do sleep 30 & echo > started-$i; done 2>/dev/null; exit 0',
    );
    const started = readdirSync(workdir).filter((f) => f.startsWith('started-')).length;
    expect(started).toBeGreaterThan(5);
    expect(started).toBeLessThan(20);
  }, 60_000);

  it('caps the size of a file, of the private /tmp, and the open files', () => {
    const workdir = path.join(tmp, 'fill');
    const out = runLimited(
      { fileSizeMb: 1, diskMb: 2, openFiles: 64 },
      workdir,
      'dd if=/dev/zero of=big bs=1M count=8 2>/dev/null; ' +
        'dd if=/dev/zero of=/tmp/a bs=512K count=1 2>/dev/null; dd if=/dev/zero of=/tmp/b bs=512K count=1 2>/dev/null; ' +
        'dd if=/dev/zero of=/tmp/c bs=512K count=1 2>/dev/null; dd if=/dev/zero of=/tmp/d bs=512K count=1 2>/dev/null; ' +
        'dd if=/dev/zero of=/tmp/e bs=512K count=1 2>/dev/null && echo tmp-full-not-reached; ' +
        'cat /tmp/? | wc -c; ulimit -n',
    );
    expect(statSync(path.join(workdir, 'big')).size).toBeLessThanOrEqual(1024 * 1024);
    const [tmpBytes, openFiles] = out.trim().split('\n').slice(-2);
    expect(out).not.toContain('tmp-full-not-reached');
    expect(Number(tmpBytes)).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(openFiles).toBe('64');
  }, 60_000);

  it('kills an agent that passes its memory limit, where the machine has a memory cgroup', () => {
    const workdir = path.join(tmp, 'memory');
    const hasMemory = cgroupSupport().controllers.some(
      (c) => c.base.includes('memory') || c.base.includes('unified'),
    );
    const out = runLimited(
      { memoryMb: 128 },
      workdir,
      `${process.execPath} -e "const a=[]; for (let i=0;i<64;i++) a.push(Buffer.alloc(16*1024*1024, 1)); console.log('allocated')"`,
    );
    expect(out.includes('allocated')).toBe(!hasMemory);
  }, 60_000);
});
