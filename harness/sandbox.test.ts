import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapAvailable, wrapCommand } from './sandbox.ts';

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
});
