import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SimpleGit, simpleGit } from 'simple-git';

const TEMPLATE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'variant-template');
const IDENTITY = ['user.name=hyperagents', 'user.email=hyperagents@localhost', 'commit.gpgsign=false'];

/** Files a variant commit may change; everything else is the harness's. */
export const EDITABLE_PREFIX = 'agents/';

export interface DiffSummary {
  files: string[];
  insertions: number;
  deletions: number;
  /** Paths outside `agents/`: a non-empty list rejects the child. */
  outside: string[];
}

export interface VariantRepo {
  gitDir: string;
  /** Checks a commit out into a new worktree, with the project's node_modules linked in. */
  addWorktree(commit: string, dir: string): Promise<void>;
  removeWorktree(dir: string): Promise<void>;
  /** Stages everything in the worktree and commits it if it differs from `parent`; null when nothing changed. */
  commitWorktree(
    dir: string,
    parent: string,
    message: string,
  ): Promise<{ sha: string; diff: DiffSummary } | null>;
  /** Names the commit `variant-<id>` so `git log --all` shows the whole lineage. */
  tagVariant(id: number, sha: string): Promise<void>;
  /** Hash of the TaskAgent's code at a commit: the `agents/` tree without `agents/meta/`. */
  taskCodeHash(commit: string): Promise<string>;
  diffStat(from: string, to: string): Promise<DiffSummary>;
}

function git(baseDir: string): SimpleGit {
  return simpleGit({ baseDir, config: IDENTITY });
}

/**
 * Creates the per-run variant repo: a bare repository whose first commit (variant 0) holds a copy of
 * `agentsDir` plus the few files the agent code needs to run and typecheck.
 */
export async function createVariantRepo(
  gitDir: string,
  agentsDir: string,
  nodeModules: string,
): Promise<{ repo: VariantRepo; rootCommit: string }> {
  mkdirSync(gitDir, { recursive: true });
  await git(gitDir).raw(['init', '--bare', '--quiet', '--initial-branch=variant-0']);
  const staging = `${gitDir}.staging`;
  rmSync(staging, { recursive: true, force: true });
  cpSync(agentsDir, path.join(staging, 'agents'), { recursive: true });
  cpSync(path.join(TEMPLATE_DIR, 'package.json'), path.join(staging, 'package.json'));
  cpSync(path.join(TEMPLATE_DIR, 'tsconfig.json'), path.join(staging, 'tsconfig.json'));
  cpSync(path.join(TEMPLATE_DIR, 'gitignore'), path.join(staging, '.gitignore'));
  const g = git(staging).env({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    GIT_DIR: gitDir,
    GIT_WORK_TREE: staging,
  });
  await g.raw(['add', '--all']);
  await g.raw(['commit', '--quiet', '-m', 'variant 0: the initial agent']);
  const rootCommit = (await g.raw(['rev-parse', 'HEAD'])).trim();
  rmSync(staging, { recursive: true, force: true });
  return { repo: openVariantRepo(gitDir, nodeModules), rootCommit };
}

export function openVariantRepo(gitDir: string, nodeModules: string): VariantRepo {
  const bare = git(gitDir);
  const diffStat = async (from: string, to: string): Promise<DiffSummary> => {
    const numstat = await bare.raw(['diff', '--numstat', '--no-renames', from, to]);
    const summary: DiffSummary = { files: [], insertions: 0, deletions: 0, outside: [] };
    for (const line of numstat.split('\n')) {
      const [added, deleted, file] = line.split('\t');
      if (file === undefined) continue;
      summary.files.push(file);
      summary.insertions += Number(added) || 0;
      summary.deletions += Number(deleted) || 0;
      if (!file.startsWith(EDITABLE_PREFIX)) summary.outside.push(file);
    }
    return summary;
  };
  return {
    gitDir,
    async addWorktree(commit, dir) {
      if (existsSync(dir)) await this.removeWorktree(dir);
      await bare.raw(['worktree', 'add', '--detach', '--quiet', dir, commit]);
      symlinkSync(nodeModules, path.join(dir, 'node_modules'), 'dir');
    },
    async removeWorktree(dir) {
      await bare.raw(['worktree', 'remove', '--force', dir]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      await bare.raw(['worktree', 'prune']);
    },
    async commitWorktree(dir, parent, message) {
      const wt = git(dir);
      await wt.raw(['add', '--all']);
      const staged = await wt.raw(['diff', '--cached', '--name-only', parent]);
      if (staged.trim() === '') return null;
      await wt.raw(['commit', '--quiet', '--no-verify', '-m', message]);
      const sha = (await wt.raw(['rev-parse', 'HEAD'])).trim();
      return { sha, diff: await diffStat(parent, sha) };
    },
    async tagVariant(id, sha) {
      await bare.raw(['branch', '--force', `variant-${id}`, sha]);
    },
    async taskCodeHash(commit) {
      const listing = await bare.raw(['ls-tree', '-r', commit, '--', 'agents']);
      const taskSide = listing
        .split('\n')
        .filter((line) => line !== '' && !line.split('\t')[1]?.startsWith('agents/meta/'))
        .join('\n');
      return createHash('sha256').update(taskSide).digest('hex').slice(0, 16);
    },
    diffStat,
  };
}
