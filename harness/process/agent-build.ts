import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin, transform } from 'esbuild';
import { isStrictlyInside } from '../../agents/index.ts';
import { type BuildOptions, startBuild, writeAgentCode } from './agent-code.ts';

/** A built agent: one JavaScript file (nothing to compile when it starts). */
export interface BuiltEntry {
  kind: 'built';
  file: string;
  ms: number;
  /** The same code was built before (see BuildOptions.cacheDir), so nothing was bundled. */
  cached: boolean;
}

/** Its source, run with `loader` registered, which serves its modules compiled (see agent-modules.ts). */
export interface ModulesEntry {
  kind: 'modules';
  /** file: URL of the loader's register.mjs. */
  loader: string;
  /** Absolute path of the entry point's source. */
  entry: string;
  ms: number;
  cached: boolean;
}

/** The TypeScript source, run through tsx: what runs when an agent could not be built, and why. */
export interface SourceEntry {
  kind: 'source';
  entry: string;
  reason: string;
}

/** How an agent process starts (see entryCommand). */
export type AgentEntry = BuiltEntry | ModulesEntry | SourceEntry;

const BUILTINS = new Set(builtinModules);
/**
 * `import(`./${name}`)` and the like: from a bundle such a path would be resolved beside the bundle, not
 * beside the module. (A computed absolute path loads the same file either way.)
 */
const RELATIVE_COMPUTED_IMPORT = /\b(?:import|require)\s*\(\s*(?:`\.{1,2}\/|["']\.{1,2}\/[^"']*["']\s*\+)/;

/**
 * Bundles an agent entry point into `<outDir>/<name>.mjs`. The agent's files are hostile, so the bundler
 * reads a copy of `agents/` that holds regular code files only (no links out) and may resolve nothing
 * outside that copy but node builtins and packages in `nodeModules`. Each module's `import.meta.url`,
 * `.dirname` and `.filename` are fixed to the file's place in the worktree, so files it reads beside itself
 * (its prompt) are the worktree's, as they are when run from source. Never throws: a failure is the reason
 * the caller runs the source instead.
 */
export async function buildAgentEntry(options: BuildOptions): Promise<BuiltEntry | SourceEntry> {
  const started = performance.now();
  const source = (reason: string): SourceEntry => ({ kind: 'source', entry: options.entry, reason });
  const copyRoot = path.join(options.outDir, 'src');
  const file = path.join(options.outDir, `${path.basename(options.entry).replace(/\.[^.]+$/, '')}.mjs`);
  // Built as if the worktree were at a root no file names: the bundle then fits any worktree.
  const root = `/hyperagents-build-root-${randomBytes(8).toString('hex')}`;
  try {
    const begun = startBuild(options, 'bundle', isBundle);
    if (!begun.ok) return source(begun.reason);
    const { value: bundle, cached } = await begun.get(async () => {
      writeAgentCode(begun.code, copyRoot);
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
      if (result.errors.length > 0) throw new Error(result.errors[0]!.text);
      return { code: result.outputFiles[0]!.text, root };
    });
    writeFileSync(file, placeAt(bundle, options.worktree));
    return { kind: 'built', file, ms: Math.round(performance.now() - started), cached };
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

const isBundle = (value: unknown): value is Bundle =>
  typeof (value as Bundle | null)?.code === 'string' && typeof (value as Bundle | null)?.root === 'string';

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
        if (isStrictlyInside(nodeModules, args.importer)) return undefined;
        if (args.path.startsWith('.') || path.isAbsolute(args.path)) {
          const target = path.resolve(args.resolveDir, args.path);
          if (isStrictlyInside(path.join(copyRoot, 'agents'), target)) return undefined;
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
        if (!isStrictlyInside(copyRoot, args.path)) return undefined;
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
