import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolchainFault } from './toolchains.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'toolchain-fault-'));
  mkdirSync(path.join(root, 'usr', 'bin'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function go(body: string): void {
  const file = path.join(root, 'usr', 'bin', 'go');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
}

describe('toolchainFault', () => {
  it('blames nothing when the toolchain still works: the answer failed on its own', async () => {
    go('echo "go version go1.19.8 linux/amd64"');
    expect(await toolchainFault('go', { root })).toBeNull();
  });

  it('blames the toolchain when it no longer runs, with what to install', async () => {
    go('exit 1');
    expect(await toolchainFault('go', { root })).toEqual({
      problem: '`go version` fails (exit 1)',
      install: 'apt-get install golang-go, or npm run setup -- --polyglot',
    });
  });

  it('never blames Node, which runs the worker itself', async () => {
    expect(await toolchainFault('javascript', { root })).toBeNull();
  });
});
