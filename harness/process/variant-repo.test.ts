import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkDiff } from '../generation/index.ts';
import { createVariantRepo, trackTree } from './variant-repo.ts';

let tmp: string;
let agents: string;
let nodeModules: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'variant-repo-'));
  agents = path.join(tmp, 'src', 'agents');
  mkdirSync(path.join(agents, 'task'), { recursive: true });
  mkdirSync(path.join(agents, 'meta'), { recursive: true });
  writeFileSync(path.join(agents, 'task', 'prompt.md'), 'Answer as <json>{"response": 1}</json>.\n');
  writeFileSync(path.join(agents, 'meta', 'prompt.md'), 'Improve the agent.\n');
  nodeModules = path.join(tmp, 'node_modules');
  mkdirSync(nodeModules);
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('the variant repo', () => {
  it('holds agents/ plus package.json and tsconfig.json as variant 0', async () => {
    const gitDir = path.join(tmp, 'run', 'variants.git');
    const { rootCommit } = await createVariantRepo(gitDir, agents, nodeModules);
    const files = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', rootCommit], {
      encoding: 'utf8',
    });
    expect(files.trim().split('\n').sort()).toEqual([
      '.gitignore',
      'agents/meta/prompt.md',
      'agents/task/prompt.md',
      'package.json',
      'tsconfig.json',
    ]);
    const branches = execFileSync('git', ['--git-dir', gitDir, 'branch', '--list'], { encoding: 'utf8' });
    expect(branches).toContain('variant-0');
  });

  it('lets generations running in parallel add, commit and remove worktrees at the same time', async () => {
    const { repo, rootCommit } = await createVariantRepo(path.join(tmp, 'variants.git'), agents, nodeModules);
    const generation = async (id: number) => {
      const wt = path.join(tmp, 'worktrees', `variant-${id}`);
      await repo.addWorktree(rootCommit, wt);
      writeFileSync(
        path.join(wt, 'agents/task/prompt.md'),
        `Variant ${id}: answer as <json>{"response": 1}</json>.\n`,
      );
      const child = await repo.commitWorktree(wt, rootCommit, `variant ${id} (parent 0)`);
      await repo.removeWorktree(wt);
      return child?.sha;
    };
    const shas = await Promise.all(Array.from({ length: 16 }, (_, i) => generation(i + 1)));
    expect(new Set(shas).size).toBe(16);
    const left = execFileSync('git', ['--git-dir', repo.gitDir, 'worktree', 'list', '--porcelain'], {
      encoding: 'utf8',
    });
    expect(left).not.toContain(path.join(tmp, 'worktrees'));
  });

  it('commits a worktree edit as a child whose parent commit is the parent variant', async () => {
    const { repo, rootCommit } = await createVariantRepo(path.join(tmp, 'variants.git'), agents, nodeModules);
    const wt = path.join(tmp, 'worktrees', 'variant-1');
    await repo.addWorktree(rootCommit, wt);
    expect(readFileSync(path.join(wt, 'agents/task/prompt.md'), 'utf8')).toContain('response');
    writeFileSync(
      path.join(wt, 'agents/task/prompt.md'),
      'Think step by step.\nAnswer as <json>{"response": 1}</json>.\n',
    );
    writeFileSync(path.join(wt, 'agents/task/notes.md'), 'new file\n');
    const child = await repo.commitWorktree(wt, rootCommit, 'variant 1 (parent 0)');
    expect(child).not.toBeNull();
    expect(child!.diff.files.sort()).toEqual(['agents/task/notes.md', 'agents/task/prompt.md']);
    expect(child!.diff).toMatchObject({ insertions: 2, deletions: 0, outside: [] });
    expect(checkDiff(child!.diff)).toEqual({ ok: true });
    const parent = execFileSync('git', ['--git-dir', repo.gitDir, 'rev-parse', `${child!.sha}^`], {
      encoding: 'utf8',
    });
    expect(parent.trim()).toBe(rootCommit);
    await repo.tagVariant(1, child!.sha);
    await repo.removeWorktree(wt);
    const log = execFileSync('git', ['--git-dir', repo.gitDir, 'log', '--all', '--oneline'], {
      encoding: 'utf8',
    });
    expect(log.trim().split('\n')).toHaveLength(2);
  });

  it('returns null for a worktree left unchanged, and the node_modules link is never committed', async () => {
    const { repo, rootCommit } = await createVariantRepo(path.join(tmp, 'variants.git'), agents, nodeModules);
    const wt = path.join(tmp, 'wt');
    await repo.addWorktree(rootCommit, wt);
    expect(await repo.commitWorktree(wt, rootCommit, 'nothing')).toBeNull();
    expect(checkDiff(null)).toEqual({ ok: false, reason: 'the MetaAgent changed nothing' });
  });

  it('flags changes outside agents/ so the gate rejects them', async () => {
    const { repo, rootCommit } = await createVariantRepo(path.join(tmp, 'variants.git'), agents, nodeModules);
    const wt = path.join(tmp, 'wt');
    await repo.addWorktree(rootCommit, wt);
    writeFileSync(path.join(wt, 'package.json'), '{"type":"module","dependencies":{"left-pad":"1"}}\n');
    writeFileSync(path.join(wt, 'grader.ts'), 'export const score = () => 1;\n');
    const child = await repo.commitWorktree(wt, rootCommit, 'escape');
    expect(child!.diff.outside.sort()).toEqual(['grader.ts', 'package.json']);
    const gate = checkDiff(child!.diff);
    expect(gate.ok).toBe(false);
    expect(!gate.ok && gate.reason).toMatch(/outside agents\/: .*package.json/);
  });

  it('hashes the task-side code only: a MetaAgent-only change keeps the hash', async () => {
    const { repo, rootCommit } = await createVariantRepo(path.join(tmp, 'variants.git'), agents, nodeModules);
    const wt = path.join(tmp, 'wt');
    await repo.addWorktree(rootCommit, wt);
    writeFileSync(path.join(wt, 'agents/meta/prompt.md'), 'Improve the agent, carefully.\n');
    const metaOnly = await repo.commitWorktree(wt, rootCommit, 'meta only');
    writeFileSync(path.join(wt, 'agents/task/prompt.md'), 'Something else.\n');
    const taskToo = await repo.commitWorktree(wt, metaOnly!.sha, 'task too');
    expect(await repo.taskCodeHash(metaOnly!.sha)).toBe(await repo.taskCodeHash(rootCommit));
    expect(await repo.taskCodeHash(taskToo!.sha)).not.toBe(await repo.taskCodeHash(rootCommit));
  });

  it('ignores a .git planted in the worktree: no fsmonitor or hook runs, and the change lands in the variant repo', async () => {
    const { repo, rootCommit } = await createVariantRepo(path.join(tmp, 'variants.git'), agents, nodeModules);
    const wt = path.join(tmp, 'wt');
    await repo.addWorktree(rootCommit, wt);
    const marker = path.join(tmp, 'hook-ran');
    const script = path.join(tmp, 'evil.sh');
    writeFileSync(script, `#!/bin/sh\necho "$@" >> ${marker}\nenv >> ${marker}\n`);
    chmodSync(script, 0o755);
    rmSync(path.join(wt, '.git'));
    execFileSync('git', ['init', '--quiet', path.join(wt, 'decoy')]);
    const decoyGit = path.join(wt, 'decoy', '.git');
    execFileSync('git', ['--git-dir', decoyGit, 'config', 'core.fsmonitor', script]);
    execFileSync('git', ['--git-dir', decoyGit, 'config', 'core.hooksPath', tmp]);
    for (const hook of ['pre-commit', 'post-commit', 'commit-msg']) writeFileSync(path.join(tmp, hook), '');
    execFileSync('mv', [decoyGit, path.join(wt, '.git')]);
    rmSync(path.join(wt, 'decoy'), { recursive: true });
    writeFileSync(path.join(wt, 'agents/task/prompt.md'), 'Changed.\n');
    const child = await repo.commitWorktree(wt, rootCommit, 'tampered');
    expect(existsSync(marker)).toBe(false);
    expect(child!.diff.files).toEqual(['agents/task/prompt.md']);
    const parent = execFileSync('git', ['--git-dir', repo.gitDir, 'rev-parse', `${child!.sha}^`], {
      encoding: 'utf8',
    });
    expect(parent.trim()).toBe(rootCommit);
  });

  it('reports a committed link as not a file, so the gate rejects it', async () => {
    const { repo, rootCommit } = await createVariantRepo(path.join(tmp, 'variants.git'), agents, nodeModules);
    const wt = path.join(tmp, 'wt');
    await repo.addWorktree(rootCommit, wt);
    execFileSync('ln', ['-s', '/etc/passwd', path.join(wt, 'agents/task/passwd.txt')]);
    const child = await repo.commitWorktree(wt, rootCommit, 'link');
    expect(child!.diff.notFiles).toEqual(['agents/task/passwd.txt']);
    expect(checkDiff(child!.diff)).toEqual({
      ok: false,
      reason: 'committed links or submodules: agents/task/passwd.txt',
    });
  });
  it('commits an edit made in a copy elsewhere, carried as a binary diff, as the same child', async () => {
    const { repo, rootCommit } = await createVariantRepo(path.join(tmp, 'variants.git'), agents, nodeModules);
    // The copy a queue worker makes: the parent's tree, tracked in a repository of its own.
    const copy = path.join(tmp, 'copy');
    mkdirSync(copy);
    execFileSync('sh', ['-c', `git --git-dir ${repo.gitDir} archive ${rootCommit} | tar -x -C ${copy}`]);
    const tracked = await trackTree(path.join(tmp, 'copy.git'), copy);
    const binary = Buffer.from([0, 1, 2, 255, 254, 10, 0]);
    writeFileSync(path.join(copy, 'agents/task/blob.bin'), binary);
    writeFileSync(path.join(copy, 'agents/task/prompt.md'), 'Be brief.\n');
    writeFileSync(path.join(copy, 'agents/task/run.sh'), '#!/bin/sh\n');
    chmodSync(path.join(copy, 'agents/task/run.sh'), 0o755);
    rmSync(path.join(copy, 'agents/meta/prompt.md'));
    mkdirSync(path.join(copy, 'node_modules'));
    writeFileSync(path.join(copy, 'node_modules/ignored.js'), 'ignored\n');
    const patch = await tracked.changes();

    const wt = path.join(tmp, 'worktrees', 'variant-1');
    await repo.addWorktree(rootCommit, wt);
    await repo.applyPatch(wt, patch);
    const child = await repo.commitWorktree(wt, rootCommit, 'variant 1 (parent 0)');
    expect(child!.diff.files.sort()).toEqual([
      'agents/meta/prompt.md',
      'agents/task/blob.bin',
      'agents/task/prompt.md',
      'agents/task/run.sh',
    ]);
    const show = (file: string): Buffer =>
      execFileSync('git', ['--git-dir', repo.gitDir, 'show', `${child!.sha}:${file}`]);
    expect(show('agents/task/blob.bin').equals(binary)).toBe(true);
    expect(show('agents/task/prompt.md').toString()).toBe('Be brief.\n');
    const mode = execFileSync('git', ['--git-dir', repo.gitDir, 'ls-tree', child!.sha, 'agents/task/run.sh']);
    expect(mode.toString()).toMatch(/^100755 /);
  });

  it('applies no diff for an unchanged copy, so the child is "no change"', async () => {
    const { repo, rootCommit } = await createVariantRepo(path.join(tmp, 'variants.git'), agents, nodeModules);
    const copy = path.join(tmp, 'copy');
    mkdirSync(copy);
    execFileSync('sh', ['-c', `git --git-dir ${repo.gitDir} archive ${rootCommit} | tar -x -C ${copy}`]);
    const patch = await (await trackTree(path.join(tmp, 'copy.git'), copy)).changes();
    expect(patch.length).toBe(0);
    const wt = path.join(tmp, 'worktrees', 'variant-1');
    await repo.addWorktree(rootCommit, wt);
    await repo.applyPatch(wt, patch);
    expect(await repo.commitWorktree(wt, rootCommit, 'variant 1')).toBeNull();
  });
});
