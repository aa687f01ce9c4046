import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's JUnit runner and its guard, as Java sources (compiled once per content, see compileRunner). */
export const RUNNER_SOURCES = fileURLToPath(new URL('./java-runner/', import.meta.url));
export const RUNNER_PACKAGE = 'hyperagents.grading';
const JAVAC = '/usr/bin/javac';

const sha16 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * The folder of the runner's compiled classes: in the user's cache, which no sandbox can write, keyed by the
 * runner's sources and the JDK that compiles them. Holds a file `ok` once it is whole.
 */
let cacheDir: string | undefined;
export function runnerCache(): string {
  cacheDir ??= cacheFolder();
  return cacheDir;
}

function cacheFolder(): string {
  const sources = readdirSync(RUNNER_SOURCES)
    .filter((f) => f.endsWith('.java'))
    .sort()
    .map((f) => `${f}\n${readFileSync(path.join(RUNNER_SOURCES, f), 'utf8')}`)
    .join('\n');
  let jdk = JAVAC;
  try {
    jdk = realpathSync(JAVAC);
  } catch {
    // No JDK: the toolchain check refuses the exercises before any grading.
  }
  const base = path.join(
    process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'),
    'hyperagents-ts',
    'exercism-java',
  );
  return path.join(base, `${sha16(sources)}-${sha16(jdk)}`);
}

let compiling: Promise<void> | undefined;

/**
 * Compiles the runner into its cache folder once per process (the project's own code, so outside the
 * sandbox). Written in a private folder and renamed into place, so a grading never sees half of it. Never
 * rejects: without the cache, grading compiles the runner itself.
 */
export function compileRunner(classPath: string): Promise<void> {
  compiling ??= new Promise<void>((resolve) => {
    const dir = runnerCache();
    if (existsSync(path.join(dir, 'ok'))) return resolve();
    const partial = `${dir}.${randomBytes(6).toString('hex')}.partial`;
    try {
      mkdirSync(partial, { recursive: true });
    } catch {
      return resolve(); // The cache cannot be written (a read-only home): grading compiles the runner.
    }
    const sources = readdirSync(RUNNER_SOURCES)
      .filter((f) => f.endsWith('.java'))
      .map((f) => path.join(RUNNER_SOURCES, f));
    const args = [
      '-XDstringConcat=inline',
      '-encoding',
      'UTF-8',
      '-nowarn',
      '-d',
      partial,
      '-cp',
      classPath,
      ...sources,
    ];
    execFile(JAVAC, args, { timeout: 300_000 }, (error) => {
      try {
        if (error === null) {
          writeFileSync(path.join(partial, 'ok'), '');
          renameSync(partial, dir);
        }
      } catch {
        // Another process put the same entry in place first.
      } finally {
        rmSync(partial, { recursive: true, force: true });
        resolve();
      }
    });
  });
  return compiling;
}
