import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

/** An experiment folder that cannot be used is refused with the folder or file named; nothing is written. */

const tmp = mkdtempSync(path.join(tmpdir(), 'experiment-folder-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LOOP = ['--', '--domains', 'arithmetic', '--model', 'sim', '--generations', '1'];
const experiment = (dir: string) =>
  runCli('hyperagents', ['experiment', '--seeds', '1', '--out', dir, ...LOOP]);

/** Every path under `dir`, to see that nothing was written. */
const tree = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

describe('hyperagents experiment refuses a folder it cannot use', () => {
  it.runIf(process.getuid?.() === 0)('a folder on a read-only file system: named, exit 2', async () => {
    const ro = path.join(tmp, 'ro');
    mkdirSync(ro);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,ro', 'tmpfs', ro]);
    try {
      for (const dir of [path.join(ro, 'exp'), ro]) {
        const result = await experiment(dir);
        expect(result.code).toBe(2);
        expect(result.stderr).toBe(
          `hyperagents: --out ${dir} is not writable (${ro} is on a read-only file system). Choose a folder you can write to.\n`,
        );
      }
    } finally {
      execFileSync('umount', [ro]);
    }
  });

  it.each([
    ['not JSON', '{"seeds": [1', /it is not valid JSON: /],
    ['another shape', '{"seeds": "1-4"}\n', /it is not an experiment record this version can read/],
  ])(
    'a damaged experiment.json (%s): the file named, what to do, exit 2, nothing changed',
    async (_name, text, why) => {
      const dir = path.join(tmp, `damaged-${_name.replace(/\W/g, '')}`);
      mkdirSync(dir);
      const file = path.join(dir, 'experiment.json');
      writeFileSync(file, text);
      for (const args of [
        ['experiment', '--seeds', '1', '--out', dir, ...LOOP],
        ['experiment', 'report', dir],
      ]) {
        const result = await runCli('hyperagents', args);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(new RegExp(`^hyperagents: ${file} is damaged \\(`));
        expect(result.stderr).toMatch(why);
        expect(result.stderr).toContain(
          'Restore it, or delete it and run hyperagents experiment again with the options the experiment was started with',
        );
        expect(result.stderr).not.toMatch(/\n\s+at /);
        expect(tree(dir)).toEqual(['experiment.json']);
        expect(readFileSync(file, 'utf8')).toBe(text);
      }
    },
  );

  it('a folder where another experiment is running: its process named, exit 2, nothing run', async () => {
    const dir = path.join(tmp, 'held');
    mkdirSync(dir);
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => undefined, 60_000)'], { stdio: 'ignore' });
    try {
      writeFileSync(path.join(dir, 'experiment.lock'), JSON.stringify({ pid: other.pid, runs: {} }));
      const result = await experiment(dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `hyperagents: ${dir}: another experiment is running in this folder (process ${other.pid}). Wait for it to ` +
          `end, or stop it (Ctrl-C in its terminal, or kill ${other.pid}); then run this again.`,
      );
      expect(tree(dir)).toEqual(['experiment.lock']);
    } finally {
      other.kill('SIGKILL');
    }
  });
});
