import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { git, gitBytes } from '../../system/git.ts';

const TEMPLATE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'variant-template');

/** Files a variant commit may change; everything else is the harness's. */
export const EDITABLE_PREFIX = 'agents/';

export interface DiffSummary {
  files: string[];
  insertions: number;
  deletions: number;
  /** Paths outside `agents/`: a non-empty list rejects the child. */
  outside: string[];
  /** Paths committed as something other than a regular file (a link, a submodule): rejects the child. */
  notFiles: string[];
}

export interface VariantRepo {
  gitDir: string;
  /** Checks a commit out into a new worktree, with the project's node_modules linked in. */
  addWorktree(commit: string, dir: string): Promise<void>;
  removeWorktree(dir: string): Promise<void>;
  /**
   * Stages everything in the worktree and commits it if it differs from `parent`; null when nothing
   * changed. Git runs on the worktree through the repo's own record of it, never through its `.git` file.
   */
  commitWorktree(
    dir: string,
    parent: string,
    message: string,
  ): Promise<{ sha: string; diff: DiffSummary } | null>;
  /**
   * Applies a binary diff (from `trackTree`) to a worktree of this repo. git refuses paths outside the
   * worktree and paths beyond a link; what it writes is checked like any agent's edit before a commit.
   */
  applyPatch(dir: string, patch: Buffer): Promise<void>;
  /** Names the commit `variant-<id>` so `git log --all` shows the whole lineage. */
  tagVariant(id: number, sha: string): Promise<void>;
  /** Hash of the TaskAgent's code at a commit: the `agents/` tree without `agents/meta/`. */
  taskCodeHash(commit: string): Promise<string>;
  diffStat(from: string, to: string): Promise<DiffSummary>;
}

/**
 * A tree outside any variant repo (a queue worker's copy of a parent commit) recorded as it is now in a
 * repository of its own at `gitDir`; `changes()` is the binary diff of what changed in it since, as
 * `applyPatch` takes it (ignored files left out, as a commit leaves them out).
 */
export async function trackTree(gitDir: string, workTree: string): Promise<{ changes(): Promise<Buffer> }> {
  const where = { gitDir, workTree };
  await git({ gitDir }, ['init', '--bare', '--quiet']);
  await git(where, ['add', '--all']);
  await git(where, ['commit', '--quiet', '--no-verify', '--allow-empty', '-m', 'parent']);
  return {
    async changes() {
      await git(where, ['add', '--all']);
      return gitBytes(where, [
        'diff',
        '--cached',
        '--binary',
        '--no-renames',
        '--no-ext-diff',
        '--no-textconv',
        'HEAD',
      ]);
    },
  };
}

/**
 * The administrative folder of a worktree inside the variant repo, found from the repo's side (each
 * `worktrees/<name>/gitdir` names its worktree), never from the worktree's agent-writable `.git` file.
 */
function worktreeGitDir(gitDir: string, dir: string): string {
  const admin = path.join(gitDir, 'worktrees');
  const expected = path.join(path.resolve(dir), '.git');
  for (const name of existsSync(admin) ? readdirSync(admin) : []) {
    const pointer = path.join(admin, name, 'gitdir');
    if (existsSync(pointer) && readFileSync(pointer, 'utf8').trim() === expected)
      return path.join(admin, name);
  }
  throw new Error(`${dir} is not a worktree of ${gitDir}`);
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
  await git({ gitDir }, ['init', '--bare', '--quiet', '--initial-branch=variant-0']);
  const staging = `${gitDir}.staging`;
  rmSync(staging, { recursive: true, force: true });
  cpSync(agentsDir, path.join(staging, 'agents'), { recursive: true });
  cpSync(path.join(TEMPLATE_DIR, 'package.json'), path.join(staging, 'package.json'));
  cpSync(path.join(TEMPLATE_DIR, 'tsconfig.json'), path.join(staging, 'tsconfig.json'));
  cpSync(path.join(TEMPLATE_DIR, 'gitignore'), path.join(staging, '.gitignore'));
  const where = { gitDir, workTree: staging };
  await git(where, ['add', '--all']);
  await git(where, ['commit', '--quiet', '--no-verify', '-m', 'variant 0: the initial agent']);
  const rootCommit = (await git(where, ['rev-parse', 'HEAD'])).trim();
  rmSync(staging, { recursive: true, force: true });
  return { repo: openVariantRepo(gitDir, nodeModules), rootCommit };
}

/**
 * git's worktree bookkeeping is not safe to run concurrently on one repository: a `worktree prune` or
 * `worktree add` can read another's half-written entry under `worktrees/` and fail ("failed to read
 * .../commondir"). Generations running in parallel take turns for it, one queue per repository.
 */
const worktreeTurns = new Map<string, Promise<unknown>>();

function inTurn<T>(gitDir: string, work: () => Promise<T>): Promise<T> {
  const next = (worktreeTurns.get(gitDir) ?? Promise.resolve()).then(work, work);
  worktreeTurns.set(
    gitDir,
    next.catch(() => undefined),
  );
  return next;
}

export function openVariantRepo(gitDir: string, nodeModules: string): VariantRepo {
  const bare = (args: string[]): Promise<string> => git({ gitDir }, args);
  const removeWorktree = async (dir: string): Promise<void> => {
    // Not `git worktree remove`: that reads the worktree. rmSync removes links, never follows them.
    rmSync(dir, { recursive: true, force: true });
    await bare(['worktree', 'prune']);
  };
  const diffStat = async (from: string, to: string): Promise<DiffSummary> => {
    const numstat = await bare(['diff', '--numstat', '--no-renames', from, to]);
    const summary: DiffSummary = { files: [], insertions: 0, deletions: 0, outside: [], notFiles: [] };
    // Mode of each changed path after the change: only regular files (100644, 100755) may be committed.
    for (const line of (await bare(['diff', '--raw', '--no-renames', from, to])).split('\n')) {
      const [meta, file] = line.split('\t');
      const mode = meta?.split(' ')[1];
      if (file !== undefined && mode !== undefined && !['100644', '100755', '000000'].includes(mode)) {
        summary.notFiles.push(file);
      }
    }
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
    addWorktree(commit, dir) {
      return inTurn(gitDir, async () => {
        if (existsSync(dir)) await removeWorktree(dir);
        await bare(['worktree', 'add', '--detach', '--quiet', path.resolve(dir), commit]);
        symlinkSync(nodeModules, path.join(dir, 'node_modules'), 'dir');
      });
    },
    removeWorktree(dir) {
      return inTurn(gitDir, () => removeWorktree(dir));
    },
    async commitWorktree(dir, parent, message) {
      const where = { gitDir: worktreeGitDir(gitDir, dir), workTree: path.resolve(dir) };
      await git(where, ['add', '--all']);
      const staged = await git(where, ['diff', '--cached', '--name-only', parent]);
      if (staged.trim() === '') return null;
      await git(where, ['commit', '--quiet', '--no-verify', '-m', message]);
      const sha = (await git(where, ['rev-parse', 'HEAD'])).trim();
      return { sha, diff: await diffStat(parent, sha) };
    },
    async applyPatch(dir, patch) {
      if (patch.length === 0) return;
      const where = { gitDir: worktreeGitDir(gitDir, dir), workTree: path.resolve(dir) };
      await gitBytes(where, ['apply', '--binary', '--whitespace=nowarn', '-'], {
        input: patch,
        cwd: path.resolve(dir),
      });
    },
    async tagVariant(id, sha) {
      await bare(['branch', '--force', `variant-${id}`, sha]);
    },
    async taskCodeHash(commit) {
      const listing = await bare(['ls-tree', '-r', commit, '--', 'agents']);
      const taskSide = listing
        .split('\n')
        .filter((line) => line !== '' && !line.split('\t')[1]?.startsWith('agents/meta/'))
        .join('\n');
      return createHash('sha256').update(taskSide).digest('hex').slice(0, 16);
    },
    diffStat,
  };
}
