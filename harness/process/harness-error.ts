import { existsSync, statfsSync } from 'node:fs';
import path from 'node:path';

/** Free space under which a disk counts as full: what a run writes next (a commit, a log) would not fit. */
export const LOW_DISK_BYTES = 2 * 1024 * 1024;

/** Bytes an ordinary user may still write on the disk holding `dir`; Infinity when that cannot be read. */
export function freeBytes(dir: string): number {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * A harness failure (git, disk, a process that cannot start) as one line for the archive and the terminal:
 * no stack trace, and the real cause when the run's disk is full (git then says only that it could not write
 * a file) or its variant repository was removed under it (git then reports only "spawn git ENOENT", as if
 * git were missing).
 */
export function describeHarnessError(error: unknown, repoDir: string): string {
  const runDir = path.dirname(repoDir);
  const message = errorLine(error);
  const free = freeBytes(runDir);
  if (diskFull(error) || free < LOW_DISK_BYTES) {
    const left = Number.isFinite(free) ? `${Math.floor(free / 1024)} KiB free; ` : '';
    return (
      `the disk holding ${runDir} is full (${left}${message}). Nothing unfinished was stored: make room on ` +
      'it, then run again (what was under way is redone)'
    );
  }
  // git takes a folder for a repository only while it has all three; rm -r takes them one by one.
  if (!['HEAD', 'objects', 'refs'].every((part) => existsSync(path.join(repoDir, part)))) {
    return (
      `the variant repository ${repoDir} was removed while the run was going, so no variant can be ` +
      'checked out or committed; the variants finished before it are kept in the archive'
    );
  }
  return message;
}

/** An error's message on one line, without stack lines, cut at 400 characters (git lists every file it failed). */
export function errorLine(error: unknown): string {
  const line = firstLine(error instanceof Error ? error.message : String(error));
  return line.length <= 400 ? line : `${line.slice(0, 400)}…`;
}

/** The system's and SQLite's words for a full disk (or quota), on the error or any error that caused it. */
function diskFull(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') return true;
    if (/No space left on device|database or disk is full|Disk quota exceeded/.test(e.message)) return true;
  }
  return false;
}

/**
 * Variant 0, the run's initial agent, ended without a score for a reason of the machine, the sandbox or the
 * run's limits: no generation can start from it, and the message says what to change.
 */
export class InitialAgentError extends Error {}

/** The message without the stack lines some libraries fold into it. */
function firstLine(message: string): string {
  const lines = message.split('\n').filter((line) => !/^\s+at /.test(line) && line.trim() !== '');
  return (lines.join(' ').trim() || 'unknown error').replace(/^Error: /, '');
}
