import { statSync } from 'node:fs';
import { builtinModules, isBuiltin } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  build,
  type BuildOptions as EsbuildOptions,
  type Metafile,
  type OutputFile,
  type Plugin,
} from 'esbuild';
import type { BuildOptions } from './agent-code.ts';
import { openCacheEntry } from './agent-code.ts';

/**
 * The packages an agent imports (`zod`), each bundled into one ES module, so that its process loads one
 * module where the package has a hundred: through the module loader (module-loader/) every module costs a
 * round trip to the loader's thread. Only a package that behaves the same bundled is bundled: ES modules
 * throughout, none that looks at its own place (`import.meta`), requires, or imports a computed path.
 * Any other loads from node_modules as before. One limit: a module of a bundled package that is no entry the
 * agent imports (`zod/v4/core` beside `zod`), imported by a package that is not bundled or by code the agent
 * adds while it runs, loads a second time from node_modules; nothing the agents import does so today.
 */

/** Bundles as kept: the files written, which package entry each one stands for, and what they were made from. */
export interface PackageBundles {
  /** Bundle file name by the path of the package entry file it replaces, as Node resolves the import. */
  entries: Record<string, string>;
  /** Every bundle file by name: one per package entry, and chunks they share (one instance each). */
  files: Record<string, string>;
  /** Size and modification time of every file bundled: a package changed in place is bundled again. */
  inputs: Record<string, [number, number]>;
}

const NONE: PackageBundles = { entries: {}, files: {}, inputs: {} };
const BUILTINS = new Set(builtinModules);
/** Imports as esbuild writes them (double quotes): `from "x"`, `import "x"`, `import("x")`. */
const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*"([^"]+)"/g;
/** Test files never run in an agent's process (the agent runs its tests with vitest, in another one). */
const TEST_FILE = /\.test\.m?ts$/;
/** What makes a bundle behave unlike the package: its place, `require`, an import of a computed path. */
const PLACE_BOUND = /\bimport\.meta\b|\b__require\b|\bimport\s*\((?!\s*"[^"]*"\s*\))/;

/**
 * The packages imported by name (`zod`, `zod/v4`, `@scope/pkg`) in the compiled modules by file name, test
 * files left out. A name that is no package (a word in a string) only costs a bundle that fails.
 */
export function packageImports(modules: Record<string, { code: string }>): string[] {
  const names = new Set<string>();
  for (const [file, { code }] of Object.entries(modules)) {
    if (TEST_FILE.test(file)) continue;
    for (const [, specifier] of code.matchAll(IMPORT)) {
      if (/^[./]|^[a-z]+:/i.test(specifier!) || BUILTINS.has(specifier!)) continue;
      names.add(specifier!);
    }
  }
  return [...names].sort();
}

const SHARED: EsbuildOptions = {
  bundle: true,
  write: false,
  metafile: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // What Node's `import` resolves: no "module" condition or field.
  conditions: [],
  mainFields: ['main'],
  outExtension: { '.js': '.mjs' },
  logLevel: 'silent',
};

/**
 * Bundles `specifiers` as found from `options.nodeModules` (never from the agent's files), kept in
 * `options.cacheDir` by the names and the packages' files. A bundle holds its own package's modules only:
 * it imports another package by its file's URL, so that one loads as Node finds it (its own bundle if it
 * has one) and stays one instance whoever imports it. Never throws: a package that cannot be bundled, or
 * would behave otherwise bundled, is left out (it loads from node_modules).
 */
export async function bundlePackages(
  specifiers: string[],
  options: Pick<BuildOptions, 'nodeModules' | 'cacheDir' | 'outDir'>,
): Promise<PackageBundles> {
  if (specifiers.length === 0) return NONE;
  const cache = openCacheEntry(options, 'packages', specifiers.join('\n'), '', isCurrent);
  const esbuild: EsbuildOptions = {
    ...SHARED,
    // Packages are found in nodeModules first, whatever folder the output is in.
    absWorkingDir: path.dirname(options.nodeModules),
    outdir: options.outDir,
    nodePaths: [options.nodeModules],
    plugins: [OWN_PACKAGE_ONLY],
  };
  try {
    const { value } = await cache.get(async () => {
      const unfit = new Set<string>();
      for (const specifier of specifiers)
        if (!(await bundlesAlike(specifier, esbuild))) unfit.add(packageName(specifier));
      // A package is bundled whole or not at all: its modules must not load both ways.
      const fit = specifiers.filter((specifier) => !unfit.has(packageName(specifier)));
      if (fit.length === 0) return NONE;
      // One build for all of them: a module that two entries of a package share is one module.
      const result = await build({
        ...esbuild,
        entryPoints: fit.map((specifier, i) => ({
          in: specifier,
          out: `${i}-${specifier.replace(/\W+/g, '-')}`,
        })),
        splitting: true,
        chunkNames: 'chunk-[hash]',
      });
      return collect(result.metafile!, result.outputFiles!, esbuild.absWorkingDir!, options.outDir);
    });
    return value;
  } catch {
    return NONE;
  }
}

/** The package a specifier names: `zod` of `zod/v4`, `@scope/pkg` of `@scope/pkg/sub`. */
export const packageName = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** The package a file belongs to: the folder below its last `node_modules`. */
const packageOf = (file: string): string | null =>
  /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*\/node_modules\/)/.exec(file)?.[1] ?? null;

const RESOLVING = Symbol('resolving');

/** Another package imported by a package is left out of its bundle, imported by its file's URL instead. */
const OWN_PACKAGE_ONLY: Plugin = {
  name: 'own-package-only',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData === RESOLVING || isBuiltin(args.path))
        return undefined;
      if (packageOf(args.importer) === packageName(args.path)) return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: RESOLVING,
      });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: pathToFileURL(found.path).href, external: true };
    });
  },
};

/** Whether `specifier` bundles, and bundled behaves as the package does (see PLACE_BOUND). */
async function bundlesAlike(specifier: string, esbuild: EsbuildOptions): Promise<boolean> {
  try {
    // Without comments, which may well mention `import(`.
    const result = await build({ ...esbuild, entryPoints: [specifier], minifyWhitespace: true });
    const inputs = Object.values(result.metafile!.inputs);
    return inputs.every((input) => input.format !== 'cjs') && !PLACE_BOUND.test(result.outputFiles![0]!.text);
  } catch {
    return false;
  }
}

/** The bundles by file name (relative to `outDir`), with the inputs' paths (metafile's are relative to `workDir`). */
function collect(metafile: Metafile, outputs: OutputFile[], workDir: string, outDir: string): PackageBundles {
  const bundles: PackageBundles = { entries: {}, files: {}, inputs: {} };
  for (const file of outputs) bundles.files[path.relative(outDir, file.path)] = file.text;
  for (const [name, output] of Object.entries(metafile.outputs)) {
    if (output.entryPoint === undefined) continue;
    bundles.entries[path.resolve(workDir, output.entryPoint)] = path.relative(
      outDir,
      path.resolve(workDir, name),
    );
  }
  for (const input of Object.keys(metafile.inputs)) {
    const file = path.resolve(workDir, input);
    const { size, mtimeMs } = statSync(file);
    bundles.inputs[file] = [size, mtimeMs];
  }
  return bundles;
}

/** Kept bundles whose packages' files are still the ones bundled. */
function isCurrent(value: unknown): value is PackageBundles {
  const kept = value as PackageBundles | null;
  if (typeof kept?.entries !== 'object' || typeof kept.files !== 'object' || typeof kept.inputs !== 'object')
    return false;
  return Object.entries(kept.inputs).every(([file, [size, mtimeMs]]) => {
    const now = statSync(file, { throwIfNoEntry: false });
    return now?.size === size && now.mtimeMs === mtimeMs;
  });
}

/** The bundles' module URLs by the URL of the package entry each replaces, bundles written under `dir`. */
export const bundleUrls = (bundles: PackageBundles, dir: string): Record<string, string> =>
  Object.fromEntries(
    Object.entries(bundles.entries).map(([entry, name]) => [
      pathToFileURL(entry).href,
      pathToFileURL(path.join(dir, name)).href,
    ]),
  );
