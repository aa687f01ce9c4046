import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readTreeNoFollow, removeTreeNoFollow } from '../../system/read-no-follow.ts';

/** Caps on a workspace the harness collects from a TaskAgent (run options, recorded with the run). */
export interface WorkspaceLimits {
  /** Files and folders in the final workspace. */
  maxFiles: number;
  /** Bytes of all its files together, in KiB. */
  maxKb: number;
}

export const DEFAULT_WORKSPACE_LIMITS: WorkspaceLimits = { maxFiles: 1000, maxKb: 4096 };
/** Folders inside folders a workspace may have. */
const MAX_DEPTH = 32;

/**
 * One TaskAgent process's workspace folders: `mounted` is bind-mounted writable into its sandbox (the only
 * one it sees); `staging` and `collected` are the harness's own, out of its reach. A workspace is written
 * in `staging`, renamed into `mounted` under an unguessable name for the task, and renamed into `collected`
 * once the TaskAgent has replied, so the agent can never redirect what the harness writes or reads.
 */
export interface WorkerFolders {
  root: string;
  staging: string;
  mounted: string;
  collected: string;
}

/** The workspace of one task, under way in a worker's `mounted` folder. */
export interface PreparedWorkspace {
  folders: WorkerFolders;
  name: string;
  /** Absolute path the TaskAgent works in. */
  path: string;
}

/** What the harness took back from a workspace: its files, or why it is refused (the agent's wrong answer). */
export type CollectedWorkspace =
  | { kind: 'files'; files: Record<string, string>; skipped: string[] }
  | { kind: 'refused'; reason: string };

export function makeWorkerFolders(parent: string): WorkerFolders {
  mkdirSync(parent, { recursive: true });
  const root = mkdtempSync(path.join(parent, 'worker-'));
  const folders = {
    root,
    staging: path.join(root, 'staging'),
    mounted: path.join(root, 'mounted'),
    collected: path.join(root, 'collected'),
  };
  for (const dir of [folders.staging, folders.mounted, folders.collected]) mkdirSync(dir, { mode: 0o700 });
  return folders;
}

/** Removes a worker's folders (what its agent left in `mounted` included), never through a link. */
export function removeWorkerFolders(folders: WorkerFolders): void {
  removeTreeNoFollow(folders.root);
}

/** A relative path that stays inside its folder: forward slashes, no empty, `.` or `..` part. */
export function safeRelativePath(rel: string): boolean {
  return (
    rel !== '' && !rel.startsWith('/') && rel.split('/').every((p) => p !== '' && p !== '.' && p !== '..')
  );
}

/** Writes the starting files in the harness's staging folder, then moves them where the TaskAgent works. */
export function prepareWorkspace(folders: WorkerFolders, files: Record<string, string>): PreparedWorkspace {
  const name = randomBytes(16).toString('hex');
  const staged = path.join(folders.staging, name);
  mkdirSync(staged, { mode: 0o755 });
  for (const [rel, text] of Object.entries(files)) {
    if (!safeRelativePath(rel))
      throw new Error(`workspace file ${JSON.stringify(rel)} is not a relative path`);
    const file = path.join(staged, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  const at = path.join(folders.mounted, name);
  renameSync(staged, at);
  return { folders, name, path: at };
}

/**
 * Moves the workspace out of the TaskAgent's reach and reads it (no link followed, within `limits`), then
 * removes it. Never throws: a workspace the agent removed, replaced or overfilled is refused with the reason.
 */
export function collectWorkspace(workspace: PreparedWorkspace, limits: WorkspaceLimits): CollectedWorkspace {
  const out = path.join(workspace.folders.collected, workspace.name);
  try {
    renameSync(workspace.path, out);
  } catch {
    return { kind: 'refused', reason: 'the workspace folder was removed or renamed by the TaskAgent' };
  }
  try {
    const tree = readTreeNoFollow(out, {
      maxEntries: limits.maxFiles,
      maxBytes: limits.maxKb * 1024,
      maxDepth: MAX_DEPTH,
    });
    if (tree === null)
      return { kind: 'refused', reason: 'the workspace folder was replaced by a link or a file' };
    if (tree.over !== null) {
      return {
        kind: 'refused',
        reason: `the workspace is over its limits (${limits.maxFiles} files, ${limits.maxKb} KiB): it has ${tree.over}`,
      };
    }
    const files: Record<string, string> = {};
    for (const [rel, bytes] of [...tree.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      files[rel] = bytes.toString('utf8');
    return { kind: 'files', files, skipped: tree.skipped };
  } finally {
    removeTreeNoFollow(out);
  }
}

/** Takes a workspace back and throws it away (its task timed out or its worker was lost). */
export function discardWorkspace(workspace: PreparedWorkspace): void {
  const out = path.join(workspace.folders.collected, workspace.name);
  try {
    renameSync(workspace.path, out);
  } catch {
    return;
  }
  removeTreeNoFollow(out);
}
