import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { MIB, type ResourceLimits } from './resource-limits.ts';

/** Entries at the top of a worktree that the harness put there and never reads through. */
const HARNESS_ENTRIES = new Set(['.git', 'node_modules']);

export interface TreeReport {
  /** One line per problem: a link, a special file, a nested repository, a file over the size limit. */
  problems: string[];
  files: number;
  bytes: number;
}

/**
 * Walks a folder an agent could write without following anything (lstat only) and reports what must not
 * be committed or run: links, special files (FIFOs, sockets, devices), nested `.git`, files over
 * `maxFileBytes`, more than `maxFiles` entries. Stops counting at `maxFiles`.
 */
export function inspectTree(root: string, limits: { maxFileBytes: number; maxFiles: number }): TreeReport {
  const report: TreeReport = { problems: [], files: 0, bytes: 0 };
  const walk = (dir: string, rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      report.problems.push(`${rel || '.'}: cannot be read (${(error as NodeJS.ErrnoException).code})`);
      return;
    }
    for (const name of names.sort()) {
      if (rel === '' && HARNESS_ENTRIES.has(name)) continue;
      if (report.files >= limits.maxFiles) {
        report.problems.push(`more than ${limits.maxFiles} files`);
        return;
      }
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const full = path.join(dir, name);
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (stat === undefined) continue;
      report.files += 1;
      if (stat.isSymbolicLink()) report.problems.push(`${relPath}: a symbolic link`);
      else if (name === '.git') report.problems.push(`${relPath}: a nested git repository`);
      else if (stat.isDirectory()) walk(full, relPath);
      else if (!stat.isFile()) report.problems.push(`${relPath}: a special file`);
      else {
        report.bytes += stat.size;
        if (stat.size > limits.maxFileBytes) {
          report.problems.push(`${relPath}: ${stat.size} bytes, over the ${limits.maxFileBytes}-byte limit`);
        }
      }
    }
  };
  walk(root, '');
  return report;
}

/** The limits an edited tree is inspected with before it is committed (here or on a queue worker). */
export const treeLimits = (
  limits: Pick<ResourceLimits, 'fileSizeMb'>,
): { maxFileBytes: number; maxFiles: number } => ({
  maxFileBytes: limits.fileSizeMb * MIB,
  maxFiles: 5000,
});

/** Bytes of regular files under `root`, links not followed, harness entries skipped. Never throws. */
export function treeBytes(root: string): number {
  try {
    return inspectTree(root, { maxFileBytes: Number.POSITIVE_INFINITY, maxFiles: 100_000 }).bytes;
  } catch {
    return 0;
  }
}
