import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
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
 * Builds the entry `dir` once: `build` writes into the fresh folder it is given and says whether it
 * succeeded; only then is the folder renamed to `dir`, so a reader never sees half an entry. Calls for an
 * entry already there, or being built by this process, wait for it. Must not throw: a failed build leaves
 * no entry, and grading builds everything itself.
 */
export function buildOnce(
  building: Map<string, Promise<void>>,
  dir: string,
  build: (partial: string) => Promise<boolean>,
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
    } catch {
      // Another process put the same entry in place first, or the cache folder cannot be written.
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  })();
  building.set(dir, done);
  return done;
}
