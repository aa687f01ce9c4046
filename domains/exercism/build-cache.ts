import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * A grader's build cache: what grading builds once and then only reads (Go's compiled standard library,
 * a Rust exercise's compiled dependencies, C++'s Catch main). Each entry is built from the toolchain and
 * the exercise's own files alone, never from an answer, into a fresh folder that is renamed into place
 * whole; gradings mount it read-only. No TaskAgent's sandbox mounts it.
 */

/** The default folder of one language's cache: the user's cache, which no sandbox can write. */
export function defaultBuildCache(language: string): string {
  return path.join(
    process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'),
    'hyperagents-ts',
    `exercism-${language}`,
  );
}

export const sha16 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * How large one language's cache may grow, and how long an entry must have gone unused before it may be
 * removed. An entry is marked used each time a grading finds it (`markUsed`), and no grading runs an hour
 * (Go's grading stops at 4 min, a Rust entry's build at 15), so an entry idle that long is used by no
 * grading of any process on the machine: removing it can break none.
 */
export interface CacheLimits {
  capBytes: number;
  idleMs: number;
}

/** 2 GiB a language (an entry is 7 to 30 MB here: Go's standard library, one Rust manifest's crates). */
export const CACHE_LIMITS: CacheLimits = { capBytes: 2 * 1024 ** 3, idleMs: 60 * 60 * 1000 };

/**
 * Builds the entry `dir` once: `build` writes into the fresh folder it is given and says whether it
 * succeeded; only then is the folder renamed to `dir`, so a reader never sees half an entry. Calls for an
 * entry already there, or being built by this process, wait for it. The cache grows only here, so here it
 * is trimmed to `limits` (`trimBuildCache`) once the new entry is in place. Must not throw: a failed build
 * leaves no entry, and grading builds everything itself.
 */
export function buildOnce(
  building: Map<string, Promise<void>>,
  dir: string,
  build: (partial: string) => Promise<boolean>,
  limits: CacheLimits = CACHE_LIMITS,
): Promise<void> {
  let done = building.get(dir);
  if (done !== undefined) return done;
  if (existsSync(dir)) return Promise.resolve();
  done = (async () => {
    const partial = `${dir}.${randomBytes(6).toString('hex')}.partial`;
    try {
      mkdirSync(partial, { recursive: true });
      if (!(await build(partial)) || existsSync(dir)) return;
      renameSync(partial, dir);
      trimBuildCache(path.dirname(dir), limits);
    } catch {
      // Another process put the same entry in place first, or the cache folder cannot be written.
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  })();
  building.set(dir, done);
  return done;
}

/** Marks the entry `dir` used now (its folder's time), so that trimming keeps it. Must not throw. */
export function markUsed(dir: string, now = new Date()): void {
  try {
    utimesSync(dir, now, now);
  } catch {
    // The entry went away, or the cache cannot be written: it is then only less likely to be kept.
  }
}

/**
 * Removes the least recently used entries of the cache `root` until it holds at most `capBytes`, never an
 * entry used within `idleMs` (it may be in use; the cache then stays over its cap until it is not), and
 * removes a half-built entry (`*.partial`) left that long by a build that died. Returns the names removed.
 * Must not throw: a cache that cannot be read or trimmed is left as it is.
 */
export function trimBuildCache(root: string, limits: CacheLimits = CACHE_LIMITS, now = Date.now()): string[] {
  const removed: string[] = [];
  try {
    const entries = readdirSync(root).map((name) => {
      const file = path.join(root, name);
      const usedAt = lstatSync(file).mtimeMs;
      return { name, file, idle: now - usedAt >= limits.idleMs, usedAt, bytes: sizeOf(file) };
    });
    for (const entry of entries.filter((e) => e.name.endsWith('.partial') && e.idle)) {
      rmSync(entry.file, { recursive: true, force: true });
      removed.push(entry.name);
    }
    const kept = entries.filter((e) => !e.name.endsWith('.partial'));
    let total = entries.filter((e) => !removed.includes(e.name)).reduce((sum, e) => sum + e.bytes, 0);
    for (const entry of kept.sort((a, b) => a.usedAt - b.usedAt)) {
      if (total <= limits.capBytes) break;
      if (!entry.idle) continue;
      rmSync(entry.file, { recursive: true, force: true });
      removed.push(entry.name);
      total -= entry.bytes;
    }
  } catch {
    // A cache folder that cannot be read or trimmed now is trimmed when its next entry is added.
  }
  return removed;
}

/** Bytes of the files under `file`, links not followed. */
function sizeOf(file: string): number {
  const stat = lstatSync(file);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(file).reduce((sum, name) => sum + sizeOf(path.join(file, name)), 0);
}
