import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, gitBytes, gitInstalled } from './git.ts';

let tmp: string;
let marker: string;
let gitDir: string;
let first: string;
let second: string;

/** A repository whose own config asks git to run a program for everything it can. */
function hostileRepo(): void {
  const script = path.join(tmp, 'evil.sh');
  writeFileSync(script, `#!/bin/sh\necho "$0 $@" >> ${marker}\n`);
  chmodSync(script, 0o755);
  const work = path.join(tmp, 'work');
  mkdirSync(work);
  const plain = (args: string[]): string =>
    execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      encoding: 'utf8',
    });
  plain(['init', '--quiet']);
  writeFileSync(path.join(work, 'a.txt'), 'one\n');
  writeFileSync(path.join(work, '.gitattributes'), 'a.txt diff=evil\n');
  plain(['add', '--all']);
  plain(['commit', '--quiet', '-m', 'one']);
  writeFileSync(path.join(work, 'a.txt'), 'two\n');
  plain(['commit', '--quiet', '-am', 'two']);
  gitDir = path.join(work, '.git');
  for (const [key, value] of [
    ['core.fsmonitor', script],
    ['core.hooksPath', tmp],
    ['core.pager', script],
    ['diff.external', script],
    ['diff.evil.textconv', script],
    ['diff.evil.command', script],
    ['alias.diff', `!${script}`],
  ] as const)
    plain(['config', key, value]);
  for (const hook of ['pre-commit', 'post-commit', 'commit-msg']) {
    writeFileSync(path.join(tmp, hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`);
    chmodSync(path.join(tmp, hook), 0o755);
  }
  [first, second] = plain(['rev-list', '--reverse', 'HEAD']).trim().split('\n') as [string, string];
}

beforeEach(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'git-client-'));
  marker = path.join(tmp, 'ran');
  hostileRepo();
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('the git client', () => {
  it("runs no program a repository's config names: no fsmonitor, hook, pager, external diff or textconv", async () => {
    const diff = await git({ gitDir }, ['diff', first, second]);
    expect(diff).toContain('-one\n+two');
    const workTree = path.dirname(gitDir);
    writeFileSync(path.join(workTree, 'a.txt'), 'three\n');
    await git({ gitDir, workTree }, ['add', '--all']);
    await git({ gitDir, workTree }, ['commit', '--quiet', '-m', 'three']);
    expect(await git({ gitDir }, ['log', '--format=%an %s', '-1'])).toBe('hyperagents three\n');
    expect(existsSync(marker)).toBe(false);
  });

  it('reads no GIT_* variable, user or system config of the shell it runs from', async () => {
    const decoy = path.join(tmp, 'decoy.git');
    execFileSync('git', ['init', '--bare', '--quiet', decoy]);
    const saved = { ...process.env };
    try {
      process.env.GIT_DIR = decoy;
      process.env.GIT_CONFIG_PARAMETERS = `'core.pager'='${path.join(tmp, 'evil.sh')}'`;
      expect(await git({ gitDir }, ['rev-parse', 'HEAD'])).not.toBe('');
      expect(await git(null, ['--version'])).toMatch(/^git version/);
    } finally {
      process.env = saved;
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('passes bytes through both ways: stdin in, binary output out', async () => {
    const workTree = path.dirname(gitDir);
    const patch = await gitBytes({ gitDir }, ['diff', '--binary', second, first]);
    await gitBytes({ gitDir, workTree }, ['apply', '--binary', '-'], { input: patch, cwd: workTree });
    expect(execFileSync('cat', [path.join(workTree, 'a.txt')], { encoding: 'utf8' })).toBe('one\n');
    const tar = await gitBytes({ gitDir }, ['archive', '--format=tar', second]);
    expect(execFileSync('tar', ['-xO', 'a.txt'], { input: tar, encoding: 'utf8' })).toBe('two\n');
  });

  it('stops git and fails, naming the limit, when its output passes maxBytes', async () => {
    await expect(git({ gitDir }, ['log', '-p', '--all'], { maxBytes: 64 })).rejects.toThrow(
      'git log: its output passed 64 bytes',
    );
  });

  it("fails with git's own words when git fails, and when the folder it would run in is gone", async () => {
    await expect(git({ gitDir }, ['cat-file', '-e', `${'0'.repeat(40)}^{commit}`])).rejects.toThrow(
      /^git cat-file/,
    );
    const gone = path.join(tmp, 'gone', 'variants.git');
    await expect(git({ gitDir: gone }, ['rev-parse', 'HEAD'])).rejects.toThrow(/git could not start/);
    expect(await gitInstalled()).toBe(true);
  });
});
