import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readNoFollow } from '../system/read-no-follow.ts';

/** `run.lock` in a run folder holds the pid of the process running it; it is removed when the run ends. */
export const runLockFile = (runDir: string): string => path.join(runDir, 'run.lock');

/**
 * The pid of the live process that holds the run (this one included), or null when nobody does: no lock,
 * or the lock of a process that died without removing it (SIGKILL, a reboot).
 */
export function runLockHolder(runDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(runLockFile(runDir), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : null;
}

/** Whether a process with this pid exists (one we may not signal counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A run id as it may appear in a URL or on a command line: one plain folder name, no path. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export type RunLookup =
  | { ok: true; dir: string; id: string }
  | { ok: false; reason: string; known: string[] };

const isPlainDir = (p: string): boolean => {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
};
const isPlainFile = (p: string): boolean => {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
};

/** The run folders directly under `runsDir` (real folders holding an archive.sqlite), sorted by name. */
export function listRunIds(runsDir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(runsDir);
  } catch {
    return [];
  }
  return entries
    .filter((name) => RUN_ID.test(name) && isPlainDir(path.join(runsDir, name)))
    .filter((name) => isPlainFile(path.join(runsDir, name, 'archive.sqlite')))
    .sort();
}

/**
 * A run named by id: a folder directly under `runsDir`. Rejects anything that could lead elsewhere
 * (separators, `..`, encoded forms already decoded into either, symbolic links), so a name taken from
 * a URL can only ever open a run inside `runsDir`.
 */
export function runById(runsDir: string, id: string): RunLookup {
  const known = listRunIds(runsDir);
  if (!RUN_ID.test(id) || id === '..' || !known.includes(id)) {
    return { ok: false, reason: `no run "${id}" in ${runsDir}`, known };
  }
  const root = realpathSync(runsDir);
  const dir = realpathSync(path.join(runsDir, id));
  if (path.dirname(dir) !== root) return { ok: false, reason: `no run "${id}" in ${runsDir}`, known };
  return { ok: true, dir, id };
}

/** A run named on the command line: an id under `runsDir`, or a run folder given by path. */
export function findRun(runsDir: string, ref: string): RunLookup {
  const byId = RUN_ID.test(ref) ? runById(runsDir, ref) : null;
  if (byId?.ok) return byId;
  if (isPlainFile(path.join(ref, 'archive.sqlite'))) {
    const dir = realpathSync(ref);
    return { ok: true, dir, id: path.basename(dir) };
  }
  return {
    ok: false,
    reason: `no run "${ref}": it is neither a run id in ${runsDir} nor a folder holding archive.sqlite`,
    known: listRunIds(runsDir),
  };
}

/**
 * Reads a file inside a run folder written by agents (logs/...): refuses symbolic links anywhere
 * below the run folder and files over `maxBytes`, since an agent could have planted either.
 * Returns null when the file is missing or refused.
 */
export function readAgentFile(
  runDir: string,
  relative: readonly string[],
  maxBytes = 8 * 1024 * 1024,
): string | null {
  let at = runDir;
  for (const part of relative.slice(0, -1)) {
    at = path.join(at, part);
    if (!isPlainDir(at)) return null;
  }
  const read = readNoFollow(path.join(at, relative.at(-1) ?? ''), maxBytes);
  return read === null || read.size > maxBytes ? null : read.bytes.toString('utf8');
}
