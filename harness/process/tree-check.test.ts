import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkTree } from '../generation/index.ts';
import { inspectTree } from './tree-check.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tree-check-'));
  mkdirSync(path.join(root, 'agents', 'task'), { recursive: true });
  writeFileSync(path.join(root, 'agents', 'task', 'main.ts'), 'export {};\n');
  // What the harness itself puts at the top of a worktree is never looked into.
  symlinkSync('/usr', path.join(root, 'node_modules'));
  writeFileSync(path.join(root, '.git'), 'gitdir: /elsewhere\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const limits = { maxFileBytes: 1000, maxFiles: 100 };

describe('inspectTree', () => {
  it.each<[string, () => void, RegExp | null]>([
    ['a clean tree', () => {}, null],
    [
      'a link to a secret',
      () => symlinkSync('/root/.env', path.join(root, 'agents/task/env.ts')),
      /env.ts: a symbolic link/,
    ],
    [
      'a link to a folder',
      () => symlinkSync('/', path.join(root, 'agents/root')),
      /agents\/root: a symbolic link/,
    ],
    [
      'a FIFO',
      () => execFileSync('mkfifo', [path.join(root, 'agents/pipe')]),
      /agents\/pipe: a special file/,
    ],
    [
      'a nested repository',
      () => mkdirSync(path.join(root, 'agents/x/.git'), { recursive: true }),
      /nested git repository/,
    ],
    [
      'a file over the limit',
      () => writeFileSync(path.join(root, 'agents/big.txt'), 'x'.repeat(1001)),
      /big.txt: 1001 bytes/,
    ],
  ])('%s', (_name, plant, problem) => {
    plant();
    const report = inspectTree(root, limits);
    if (problem === null) expect(report.problems).toEqual([]);
    else expect(report.problems.join('\n')).toMatch(problem);
    expect(checkTree(report).ok).toBe(problem === null);
  });

  it('stops counting at the file limit', () => {
    for (let i = 0; i < 120; i++) writeFileSync(path.join(root, 'agents', `f${i}`), '');
    expect(inspectTree(root, limits).problems).toContain('more than 100 files');
  });
});
