import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSandbox } from '../process/index.ts';
import { PROJECT_ROOT } from '../run/index.ts';
import { createGradeContext } from './grade-context.ts';

const sandbox = resolveSandbox('bwrap');
if (sandbox.kind !== 'bwrap') throw new Error('these tests need bubblewrap (apt-get install bubblewrap)');
const ctx = createGradeContext({ sandbox, nodeModules: path.join(PROJECT_ROOT, 'node_modules') });
const limits = { timeoutMs: 30_000, memoryMb: 256, maxOutputBytes: 1000 };

describe('the grading context', () => {
  it('runs a command in a fresh folder holding the given files, with standard input', async () => {
    const result = await ctx.run({
      file: '/bin/sh',
      args: ['-c', 'cat data/in.txt; read line; echo "$line"; ls -a | tr "\\n" " "'],
      files: { 'data/in.txt': 'from a file\n' },
      stdin: 'from stdin\n',
      ...limits,
    });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, outputExceeded: false });
    expect(result.stdout).toBe('from a file\nfrom stdin\n. .. data ');
  });

  it('stops a command that writes more than its output limit', async () => {
    const result = await ctx.run({ file: '/usr/bin/yes', args: [], files: {}, ...limits });
    expect(result.outputExceeded).toBe(true);
    expect(result.stdout.length).toBe(1000);
  });

  it('reports a command that ran out of memory under its limit as memoryExceeded, and a plain failure as not', async () => {
    const hog = 'const hoard = []; for (;;) hoard.push(new Array(1e5).fill(Math.random()));';
    const result = await ctx.run({
      file: process.execPath,
      args: ['--max-old-space-size=64', '-e', hog],
      files: {},
      ...limits,
      maxOutputBytes: 100_000,
    });
    expect(result).toMatchObject({ memoryExceeded: true, timedOut: false, outputExceeded: false });
    const plain = await ctx.run({
      file: '/bin/sh',
      args: ['-c', 'echo out of memory >&2; exit 1'],
      files: {},
      ...limits,
    });
    expect(plain).toMatchObject({ exitCode: 1, memoryExceeded: false });
    const slow = await ctx.run({ file: '/bin/sleep', args: ['10'], files: {}, ...limits, timeoutMs: 200 });
    expect(slow).toMatchObject({ timedOut: true, memoryExceeded: false });
  });

  it('refuses a file that would land outside the working folder', async () => {
    const result = await ctx.run({ file: '/bin/true', args: [], files: { '../escape.txt': 'x' }, ...limits });
    expect(result).toMatchObject({
      exitCode: null,
      stderr: expect.stringMatching(/outside the working directory/),
    });
  });

  it('leaves the system read-only and the network unreachable', async () => {
    const result = await ctx.run({
      file: '/bin/sh',
      args: ['-c', 'touch /var/tmp/x 2>&1; touch ../x 2>&1; touch ok && echo wrote-inside'],
      files: {},
      ...limits,
    });
    expect(result.stdout).toMatch(/Read-only file system[\s\S]*Read-only file system[\s\S]*wrote-inside/);
  });
});
