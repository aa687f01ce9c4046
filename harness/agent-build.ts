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
import { builtinModules } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, version as esbuildVersion, type Plugin, transform } from 'esbuild';

/**
 * Where a variant's TaskAgent workers start from: one JavaScript file built from the variant's entry point
 * (nothing to compile when a worker starts), or the TypeScript source run through tsx when the build failed.
 */
export type AgentEntry =
  /** `cached`: the same code was built before (see BuildOptions.cacheDir), so nothing was bundled. */
  | { kind: 'built'; file: string; ms: number; cached: boolean }
  | { kind: 'source'; entry: string; reason: string };

/** Bounds on what is copied, so a variant cannot make the build read without end. */
const MAX_FILES = 2000;
const MAX_BYTES = 20_000_000;
/** Files the bundler reads; everything else (prompts, data) is read from the worktree at run time. */
const CODE_FILE = /\.(ts|mts|js|mjs|json)$/;
const BUILTINS = new Set(builtinModules);
/**
 * `import(`./${name}`)` and the like: from a bundle such a path would be resolved beside the bundle, not
 * beside the module. (A computed absolute path loads the same file either way.)
 */
const RELATIVE_COMPUTED_IMPORT = /\b(?:import|require)\s*\(\s*(?:`\.{1,2}\/|["']\.{1,2}\/[^"']*["']\s*\+)/;

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

/** Bundles kept in a cache folder; the oldest used are removed beyond this many. */
const CACHE_ENTRIES = 64;
/** Part of every cache key: a change to how bundles are made must not reuse older ones. */
const BUILD_FORMAT = '1';

/**
 * Bundles an agent entry point into `<outDir>/<name>.mjs`. The agent's files are hostile, so the bundler
 * reads a copy of `agents/` that holds regular code files only (no links out) and may resolve nothing
 * outside that copy but node builtins and packages in `nodeModules`. Each module's `import.meta.url`,
 * `.dirname` and `.filename` are fixed to the file's place in the worktree, so files it reads beside itself
 * (its prompt) are the worktree's, as they are when run from source. Never throws: a failure is the reason
 * the caller runs the source instead.
 */
export async function buildAgentEntry(options: BuildOptions): Promise<AgentEntry> {
  const started = performance.now();
  const source = (reason: string): AgentEntry => ({ kind: 'source', entry: options.entry, reason });
  const copyRoot = path.join(options.outDir, 'src');
  const file = path.join(options.outDir, `${path.basename(options.entry).replace(/\.[^.]+$/, '')}.mjs`);
  // Built as if the worktree were at a root no file names: the bundle then fits any worktree.
  const root = `/hyperagents-build-root-${randomBytes(8).toString('hex')}`;
  try {
    rmSync(options.outDir, { recursive: true, force: true });
    const copied = copyCodeFiles(path.join(options.worktree, 'agents'), path.join(copyRoot, 'agents'));
    if (!copied.ok) return source(copied.reason);
    const key = cacheKey(options, copied.digest);
    const cached = options.cacheDir === undefined ? null : readCached(options.cacheDir, key);
    let bundle = cached;
    if (bundle === null) {
      const result = await build({
        entryPoints: [path.join(copyRoot, options.entry)],
        absWorkingDir: copyRoot,
        write: false,
        outfile: file,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        nodePaths: [options.nodeModules],
        // Bundled CommonJS packages call require for node builtins.
        banner: {
          js: "import { createRequire as __agentRequire } from 'node:module';\nconst require = __agentRequire(import.meta.url);",
        },
        plugins: [confine(copyRoot, root, options.nodeModules)],
        logLevel: 'silent',
      });
      if (result.errors.length > 0) return source(result.errors[0]!.text.replaceAll(root, options.worktree));
      bundle = { code: result.outputFiles[0]!.text, root };
      if (options.cacheDir !== undefined) writeCached(options.cacheDir, key, bundle);
    }
    writeFileSync(file, placeAt(bundle, options.worktree));
    return {
      kind: 'built',
      file,
      ms: Math.round(performance.now() - started),
      cached: cached !== null,
    };
  } catch (error) {
    // Its messages name the worktree's files, not the root they were bundled under.
    return source(buildFailure(error).replaceAll(root, options.worktree));
  } finally {
    rmSync(copyRoot, { recursive: true, force: true });
  }
}

/** A bundle whose modules believe they live under `root`, a folder name nothing else contains. */
interface Bundle {
  code: string;
  root: string;
}

/** The bundle with its modules' `import.meta` paths moved from its root to `worktree`. */
function placeAt(bundle: Bundle, worktree: string): string {
  const url = stringBody(pathToFileURL(worktree).href);
  const dir = stringBody(worktree);
  return bundle.code
    .replaceAll(pathToFileURL(bundle.root).href, () => url)
    .replaceAll(bundle.root, () => dir);
}

/** `text` as it may stand inside any JavaScript string literal ('...', "..." or `...`). */
const stringBody = (text: string): string =>
  JSON.stringify(text)
    .slice(1, -1)
    .replace(/[`'$]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * What a bundle depends on: the code files (names and bytes), the entry point, the packages it may bundle
 * (their folder and when npm last changed it) and the bundler's version.
 */
function cacheKey(options: BuildOptions, codeDigest: string): string {
  const lock = path.join(options.nodeModules, '.package-lock.json');
  const packages = existsSync(lock) ? statSync(lock).mtimeMs : 0;
  return createHash('sha256')
    .update(
      JSON.stringify([
        BUILD_FORMAT,
        esbuildVersion,
        options.entry,
        options.nodeModules,
        packages,
        codeDigest,
      ]),
    )
    .digest('hex');
}

function readCached(cacheDir: string, key: string): Bundle | null {
  const file = path.join(cacheDir, `${key}.json`);
  try {
    const bundle = JSON.parse(readFileSync(file, 'utf8')) as Bundle;
    if (typeof bundle.code !== 'string' || typeof bundle.root !== 'string') return null;
    // Marks it as used, for the pruning below.
    const now = new Date();
    utimesSync(file, now, now);
    return bundle;
  } catch {
    return null;
  }
}

/** Written whole or not at all (a rename), so builds at the same time never read half a bundle. */
function writeCached(cacheDir: string, key: string, bundle: Bundle): void {
  mkdirSync(cacheDir, { recursive: true });
  const partial = path.join(cacheDir, `${key}.${randomBytes(4).toString('hex')}.partial`);
  writeFileSync(partial, JSON.stringify(bundle));
  renameSync(partial, path.join(cacheDir, `${key}.json`));
  const entries = readdirSync(cacheDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ name, used: statSync(path.join(cacheDir, name)).mtimeMs }));
  if (entries.length <= CACHE_ENTRIES) return;
  entries.sort((a, b) => a.used - b.used);
  for (const { name } of entries.slice(0, entries.length - CACHE_ENTRIES))
    rmSync(path.join(cacheDir, name), { force: true });
}

/**
 * Copies regular code files only: symbolic links, devices and sockets are left behind. The digest covers
 * the copied files' names and bytes.
 */
function copyCodeFiles(
  from: string,
  to: string,
): { ok: true; digest: string } | { ok: false; reason: string } {
  let files = 0;
  let bytes = 0;
  const hash = createHash('sha256');
  const walk = (dir: string, out: string, relative: string): string | null => {
    mkdirSync(out, { recursive: true });
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const source = path.join(dir, entry.name);
      const target = path.join(out, entry.name);
      const name = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        const problem = walk(source, target, name);
        if (problem !== null) return problem;
      } else if (entry.isFile() && CODE_FILE.test(entry.name)) {
        files += 1;
        bytes += statSync(source).size;
        if (files > MAX_FILES || bytes > MAX_BYTES) {
          return `agents/ holds more than ${MAX_FILES} code files or ${MAX_BYTES / 1e6} MB of them`;
        }
        const content = readFileSync(source);
        hash.update(`${name}\0${content.length}\0`).update(content);
        writeFileSync(target, content);
      }
    }
    return null;
  };
  const problem = walk(from, to, 'agents');
  return problem === null ? { ok: true, digest: hash.digest('hex') } : { ok: false, reason: problem };
}

const inside = (root: string, file: string): boolean => {
  const relative = path.relative(root, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

/**
 * Resolves node builtins as external, keeps the agent's own imports inside the copy, and rewrites
 * `import.meta` of the agent's modules to their paths under `root` (see placeAt). Imports the bundle cannot
 * follow (a computed `import()` or `require`) fail the build, since the bundle would resolve them elsewhere.
 */
function confine(copyRoot: string, root: string, nodeModules: string): Plugin {
  return {
    name: 'confine-agent-code',
    setup(bundler) {
      bundler.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const bare = args.path.replace(/^node:/, '').split('/')[0] ?? '';
        if (args.path.startsWith('node:') || BUILTINS.has(bare)) return { path: args.path, external: true };
        if (inside(nodeModules, args.importer)) return undefined;
        if (args.path.startsWith('.') || path.isAbsolute(args.path)) {
          const target = path.resolve(args.resolveDir, args.path);
          if (inside(path.join(copyRoot, 'agents'), target)) return undefined;
          return {
            errors: [{ text: `${shown(copyRoot, args.importer)} imports ${args.path}, outside agents/` }],
          };
        }
        if (args.path.split('/').includes('..')) {
          return { errors: [{ text: `${shown(copyRoot, args.importer)} imports ${args.path}` }] };
        }
        return undefined;
      });
      // Only the copy's files come here: the packages' files are loaded by the bundler alone, never crossing
      // to JavaScript one by one.
      const copied = new RegExp(`^${escapeRegExp(copyRoot)}/.*\\.(ts|mts|js|mjs)$`);
      bundler.onLoad({ filter: copied }, async (args) => {
        if (!inside(copyRoot, args.path)) return undefined;
        const original = path.join(root, path.relative(copyRoot, args.path));
        const { code } = await transform(readFileSync(args.path, 'utf8'), {
          loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js',
          format: 'esm',
          sourcefile: original,
          define: {
            'import.meta.url': JSON.stringify(pathToFileURL(original).href),
            'import.meta.dirname': JSON.stringify(path.dirname(original)),
            'import.meta.filename': JSON.stringify(original),
          },
        });
        if (RELATIVE_COMPUTED_IMPORT.test(code)) {
          return {
            errors: [
              {
                text: `${shown(copyRoot, args.path)} imports a path computed at run time relative to itself, which a bundle cannot follow`,
              },
            ],
          };
        }
        return { contents: code, loader: 'js' };
      });
    },
  };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const shown = (copyRoot: string, file: string): string => path.relative(copyRoot, file) || file;

/** esbuild's failure carries its messages; keep the first, without the bundler's own framing. */
function buildFailure(error: unknown): string {
  const errors = (error as { errors?: { text: string }[] } | null)?.errors;
  if (Array.isArray(errors) && errors[0] !== undefined) return errors[0].text;
  return error instanceof Error ? error.message : String(error);
}
