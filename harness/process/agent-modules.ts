import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import type { ModulesEntry, SourceEntry } from './agent-build.ts';
import type { BuildOptions } from './agent-code.ts';
import { type AgentCode, startBuild } from './agent-code.ts';
import { bundlePackages, bundleUrls, packageImports } from './agent-packages.ts';

const LOADER_DIR = path.join(import.meta.dirname, 'module-loader');
const ESBUILD = createRequire(import.meta.url).resolve('esbuild');
const TYPESCRIPT = /\.m?ts$/;

/** Compiled TypeScript by path relative to the worktree, with the sha-256 of the source it came from. */
type Compiled = Record<string, { sha256: string; code: string }>;

const isCompiled = (value: unknown): value is Compiled =>
  typeof value === 'object' &&
  value !== null &&
  Object.values(value).every((v) => typeof v?.sha256 === 'string' && typeof v?.code === 'string');

/**
 * Compiles every TypeScript module of the worktree's `agents/` ahead of time, for an agent that imports
 * modules it finds at run time (the MetaAgent loads its tools from `agents/tools/`), which one bundle
 * cannot hold. Its process then runs the entry point's source with a small loader (module-loader/) instead
 * of tsx, and the loader serves each module compiled: the modules, their paths and `import.meta` are the
 * source's own, so it behaves as under tsx, but nothing is compiled at start. A module changed after this
 * (the MetaAgent edits its own code while it runs) is compiled when loaded. The packages it imports are
 * served bundled where they can be (see agent-packages.ts), a module for a package. Reads a copy of `agents/`
 * without links out (see agent-code.ts); never throws: a failure is the reason the caller runs the source.
 */
export async function precompileAgent(options: BuildOptions): Promise<ModulesEntry | SourceEntry> {
  const started = performance.now();
  const source = (reason: string): SourceEntry => ({ kind: 'source', entry: options.entry, reason });
  try {
    const build = startBuild(options, 'modules', isCompiled);
    if (!build.ok) return source(build.reason);
    const { value: compiled, cached } = await build.get(() => compileAll(build.code));
    const files = Object.fromEntries(
      Object.entries(compiled).map(([relative, module]) => [path.join(options.worktree, relative), module]),
    );
    const bundles = await bundlePackages(packageImports(compiled), options);
    const bundleDir = path.join(options.outDir, 'packages');
    mkdirSync(bundleDir);
    for (const [name, code] of Object.entries(bundles.files)) writeFileSync(path.join(bundleDir, name), code);
    const packages = bundleUrls(bundles, bundleDir);
    writeFileSync(
      path.join(options.outDir, 'modules.json'),
      JSON.stringify({ esbuild: ESBUILD, files, packages }),
    );
    for (const name of ['register.mjs', 'hooks.mjs'])
      copyFileSync(path.join(LOADER_DIR, name), path.join(options.outDir, name));
    return {
      kind: 'modules',
      loader: pathToFileURL(path.join(options.outDir, 'register.mjs')).href,
      entry: path.join(options.worktree, options.entry),
      ms: Math.round(performance.now() - started),
      cached,
    };
  } catch (error) {
    const errors = (error as { errors?: { text: string }[] } | null)?.errors;
    return source(errors?.[0]?.text ?? (error instanceof Error ? error.message : String(error)));
  }
}

/** Every TypeScript file of the code, compiled as the loader would compile it (module-loader/hooks.mjs). */
async function compileAll(code: AgentCode): Promise<Compiled> {
  const compiled: Compiled = {};
  for (const file of code.files) {
    if (!TYPESCRIPT.test(file.name)) continue;
    const { code: js } = await transform(file.bytes.toString('utf8'), {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcefile: path.basename(file.name),
      sourcemap: 'inline',
    });
    compiled[file.name] = { sha256: createHash('sha256').update(file.bytes).digest('hex'), code: js };
  }
  return compiled;
}
