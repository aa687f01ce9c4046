import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { version as esbuildVersion } from 'esbuild';

/**
 * A variant's code as the harness builds from it: the regular code files of `agents/` (the agent's files are
 * hostile: no links out), their digest, and a folder of build results kept by that digest, so that code
 * equal to an earlier variant's (most edits change a prompt) is built once.
 */

/** Bounds on what is copied, so a variant cannot make a build read without end. */
const MAX_FILES = 2000;
const MAX_BYTES = 20_000_000;
/** Files a build reads; everything else (prompts, data) is read from the worktree at run time. */
const CODE_FILE = /\.(ts|mts|js|mjs|json)$/;
/** Results kept in a cache folder; the oldest used are removed beyond this many. */
const CACHE_ENTRIES = 32;
/** Part of every cache key: a change to how results are made must not reuse older ones. */
const CACHE_FORMAT = '1';

/** The code files of `agents/` (names relative to the worktree, bytes) and the digest of all of them. */
export interface AgentCode {
  files: { name: string; bytes: Buffer }[];
  digest: string;
}

/**
 * Reads `agents/` of `worktree`, regular code files only: symbolic links, devices and sockets are left out.
 * The digest covers the files' names and bytes.
 */
function readAgentCode(worktree: string): { ok: true; code: AgentCode } | { ok: false; reason: string } {
  const files: AgentCode['files'] = [];
  let bytes = 0;
  const hash = createHash('sha256');
  const walk = (dir: string, relative: string): string | null => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const name = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        const problem = walk(path.join(dir, entry.name), name);
        if (problem !== null) return problem;
      } else if (entry.isFile() && CODE_FILE.test(entry.name)) {
        bytes += statSync(path.join(dir, entry.name)).size;
        if (files.length + 1 > MAX_FILES || bytes > MAX_BYTES) {
          return `agents/ holds more than ${MAX_FILES} code files or ${MAX_BYTES / 1e6} MB of them`;
        }
        const content = readFileSync(path.join(dir, entry.name));
        hash.update(`${name}\0${content.length}\0`).update(content);
        files.push({ name, bytes: content });
      }
    }
    return null;
  };
  const problem = walk(path.join(worktree, 'agents'), 'agents');
  return problem === null
    ? { ok: true, code: { files, digest: hash.digest('hex') } }
    : { ok: false, reason: problem };
}

/** Writes the code read by readAgentCode under `to` (as `<to>/agents/...`), for a build to read. */
export function writeAgentCode(code: AgentCode, to: string): void {
  for (const file of code.files) {
    const target = path.join(to, file.name);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.bytes);
  }
}

/**
 * What a build result depends on: what kind of result, its entry point, the code (its digest), the
 * packages it may use (their folder and when npm last changed it) and the bundler's version.
 */
function cacheKey(kind: string, entry: string, nodeModules: string, codeDigest: string): string {
  const lock = path.join(nodeModules, '.package-lock.json');
  const packages = existsSync(lock) ? statSync(lock).mtimeMs : 0;
  return createHash('sha256')
    .update(JSON.stringify([CACHE_FORMAT, kind, esbuildVersion, entry, nodeModules, packages, codeDigest]))
    .digest('hex');
}

/** The result kept under `key`, if there is one that `valid` accepts. */
function readCached<T>(cacheDir: string, key: string, valid: (value: unknown) => value is T): T | null {
  const file = path.join(cacheDir, `${key}.json`);
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!valid(value)) return null;
    // Marks it as used, for the pruning in writeCached.
    const now = new Date();
    utimesSync(file, now, now);
    return value;
  } catch {
    return null;
  }
}

/** Written whole or not at all (a rename), so builds at the same time never read half a result. */
function writeCached(cacheDir: string, key: string, value: unknown): void {
  mkdirSync(cacheDir, { recursive: true });
  const partial = path.join(cacheDir, `${key}.${randomBytes(4).toString('hex')}.partial`);
  writeFileSync(partial, JSON.stringify(value));
  renameSync(partial, path.join(cacheDir, `${key}.json`));
  const entries = readdirSync(cacheDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ name, used: statSync(path.join(cacheDir, name)).mtimeMs }));
  if (entries.length <= CACHE_ENTRIES) return;
  entries.sort((a, b) => a.used - b.used);
  for (const { name } of entries.slice(0, entries.length - CACHE_ENTRIES))
    rmSync(path.join(cacheDir, name), { force: true });
}

/** Where an agent entry point is built from and to (agent-build.ts bundles, agent-modules.ts compiles). */
export interface BuildOptions {
  /** The variant's checked-out tree; its `agents/` folder is the agent's code (untrusted). */
  worktree: string;
  /** Entry point relative to the worktree, e.g. `agents/task/main.ts`. */
  entry: string;
  /** A folder the harness owns; emptied first. The built file is written inside it. */
  outDir: string;
  /** The project's node_modules, where bare imports (`zod`) are found. */
  nodeModules: string;
  /**
   * A folder the harness owns where bundles are kept by the content of the code they were built from, so
   * that a variant whose code files equal an earlier variant's (most edits change a prompt) is not bundled
   * again. Without it every call bundles.
   */
  cacheDir?: string;
}

/** A build begun: its output folder emptied, the code read, and its entry in the cache. */
export type BuildStart<T> = { ok: false; reason: string } | ({ ok: true; code: AgentCode } & CacheEntry<T>);

/** Starts a build of `kind` (a bundle, compiled modules): one cache key per kind, entry and code. */
export function startBuild<T>(
  options: BuildOptions,
  kind: string,
  valid: (value: unknown) => value is T,
): BuildStart<T> {
  rmSync(options.outDir, { recursive: true, force: true });
  mkdirSync(options.outDir, { recursive: true });
  const read = readAgentCode(options.worktree);
  if (!read.ok) return read;
  return {
    ok: true,
    code: read.code,
    ...openCacheEntry(options, kind, options.entry, read.code.digest, valid),
  };
}

/** One key of the cache. */
export interface CacheEntry<T> {
  /**
   * The result kept under this key (one that `valid` accepts), else the one a build of the same key already
   * under way in this process makes (generations in flight at once often build the same code), else what
   * `make` makes, which is then kept. A failed `make` keeps nothing and is thrown; one under way that fails
   * is made again here. `cached`: this call did not make it.
   */
  get(make: () => Promise<T>): Promise<{ value: T; cached: boolean }>;
}

/** Builds under way in this process by their cache file, so that an equal one waits instead of repeating it. */
const underWay = new Map<string, Promise<unknown>>();

/**
 * The cache entry of a result of `kind` made for `entry` from code with digest `digest` (see cacheKey), in
 * `options.cacheDir`; without one, nothing is kept.
 */
export function openCacheEntry<T>(
  options: Pick<BuildOptions, 'cacheDir' | 'nodeModules'>,
  kind: string,
  entry: string,
  digest: string,
  valid: (value: unknown) => value is T,
): CacheEntry<T> {
  const { cacheDir } = options;
  if (cacheDir === undefined) return { get: async (make) => ({ value: await make(), cached: false }) };
  const key = cacheKey(kind, entry, options.nodeModules, digest);
  const file = path.join(cacheDir, key);
  return {
    async get(make) {
      const kept = readCached(cacheDir, key, valid);
      if (kept !== null) return { value: kept, cached: true };
      const other = underWay.get(file);
      if (other !== undefined) {
        await other.catch(() => undefined);
        const made = readCached(cacheDir, key, valid);
        if (made !== null) return { value: made, cached: true };
      }
      const making = make();
      underWay.set(file, making);
      try {
        const value = await making;
        writeCached(cacheDir, key, value);
        return { value, cached: false };
      } finally {
        if (underWay.get(file) === making) underWay.delete(file);
      }
    },
  };
}
