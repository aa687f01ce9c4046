// Module hooks for an agent's process (see register.mjs). A TypeScript module whose bytes equal what the
// harness compiled is served compiled; any other (a file the agent changed or added while it runs) is
// compiled here with esbuild, as tsx would. Relative imports resolve as under tsx: `./x.js` finds `./x.ts`,
// and `./x` finds `./x.ts` or `./x/index.ts`. A package entry the harness bundled (../agent-packages.ts)
// resolves to its bundle, whoever imports it, so the package is one module instance in the process.
// `resolve` and `load` are the hooks of `module.register` (on a loader thread, asynchronous); `resolveSync`
// and `loadSync` do the same as hooks of `module.registerHooks` (in the process's own thread).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `files`: compiled TypeScript by path; `packages`: bundle URL by the URL of the package entry it replaces.
 * @type {{ esbuild: string, files: Record<string, { sha256: string, code: string }>, packages: Record<string, string> }}
 */
let manifest = { esbuild: '', files: {}, packages: {} };
let esbuild;

export function initialize(data) {
  manifest = JSON.parse(readFileSync(new URL(data.manifest), 'utf8'));
}

const TYPESCRIPT = /\.m?ts$/;
const RELATIVE = /^\.{1,2}\/|^\//;

export async function resolve(specifier, context, nextResolve) {
  try {
    return toBundle(await nextResolve(specifier, context));
  } catch (error) {
    for (const candidate of tsxCandidates(specifier, context)) {
      try {
        return toBundle(await nextResolve(candidate, context));
      } catch {}
    }
    throw error;
  }
}

export function resolveSync(specifier, context, nextResolve) {
  try {
    return toBundle(nextResolve(specifier, context));
  } catch (error) {
    for (const candidate of tsxCandidates(specifier, context)) {
      try {
        return toBundle(nextResolve(candidate, context));
      } catch {}
    }
    throw error;
  }
}

/** Where tsx would look for a relative import that Node does not find as written. */
function tsxCandidates(specifier, context) {
  if (!RELATIVE.test(specifier) || !context.parentURL?.startsWith('file:')) return [];
  const candidates = new Set([
    specifier.replace(/\.js$/, '.ts'),
    specifier.replace(/\.mjs$/, '.mts'),
    `${specifier}.ts`,
    `${specifier}.mts`,
    `${specifier}/index.ts`,
  ]);
  candidates.delete(specifier);
  return candidates;
}

function toBundle(resolved) {
  const bundle = manifest.packages[resolved.url];
  return bundle === undefined ? resolved : { url: bundle, format: 'module', shortCircuit: true };
}

export async function load(url, context, nextLoad) {
  const file = typeScriptFile(url);
  if (file === null) return nextLoad(url, context);
  const source = readFileSync(file);
  const code =
    precompiled(file, source) ?? (await compiler().transform(source.toString('utf8'), options(file))).code;
  return { format: 'module', source: code, shortCircuit: true };
}

export function loadSync(url, context, nextLoad) {
  const file = typeScriptFile(url);
  if (file === null) return nextLoad(url, context);
  const source = readFileSync(file);
  const code =
    precompiled(file, source) ?? compiler().transformSync(source.toString('utf8'), options(file)).code;
  return { format: 'module', source: code, shortCircuit: true };
}

const typeScriptFile = (url) => {
  if (!url.startsWith('file:')) return null;
  const file = fileURLToPath(url);
  return TYPESCRIPT.test(file) ? file : null;
};

/** What the harness compiled from exactly these bytes, if it did. */
function precompiled(file, source) {
  const compiled = manifest.files[file];
  return compiled?.sha256 === createHash('sha256').update(source).digest('hex') ? compiled.code : null;
}

function compiler() {
  esbuild ??= createRequire(manifest.esbuild)('esbuild');
  return esbuild;
}

/** As the harness compiles (../agent-modules.ts). */
const options = (file) => ({
  loader: 'ts',
  format: 'esm',
  target: 'node20',
  sourcefile: path.basename(file),
  sourcemap: 'inline',
});
