// Module hooks for an agent's process (see register.mjs). A TypeScript module whose bytes equal what the
// harness compiled is served compiled; any other (a file the agent changed or added while it runs) is
// compiled here with esbuild, as tsx would. Relative imports resolve as under tsx: `./x.js` finds `./x.ts`,
// and `./x` finds `./x.ts` or `./x/index.ts`. A package entry the harness bundled (../agent-packages.ts)
// resolves to its bundle, whoever imports it, so the package is one module instance in the process.
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
  const resolved = await resolveAsTsx(specifier, context, nextResolve);
  const bundle = manifest.packages[resolved.url];
  return bundle === undefined ? resolved : { url: bundle, format: 'module', shortCircuit: true };
}

async function resolveAsTsx(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (!RELATIVE.test(specifier) || !context.parentURL?.startsWith('file:')) throw error;
    const candidates = [
      specifier.replace(/\.js$/, '.ts'),
      specifier.replace(/\.mjs$/, '.mts'),
      `${specifier}.ts`,
      `${specifier}.mts`,
      `${specifier}/index.ts`,
    ];
    for (const candidate of new Set(candidates)) {
      if (candidate === specifier) continue;
      try {
        return await nextResolve(candidate, context);
      } catch {}
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  if (!TYPESCRIPT.test(file)) return nextLoad(url, context);
  const source = readFileSync(file);
  const compiled = manifest.files[file];
  const sha256 = createHash('sha256').update(source).digest('hex');
  const code = compiled?.sha256 === sha256 ? compiled.code : await compile(source.toString('utf8'), file);
  return { format: 'module', source: code, shortCircuit: true };
}

async function compile(text, file) {
  esbuild ??= createRequire(manifest.esbuild)('esbuild');
  const result = await esbuild.transform(text, {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: path.basename(file),
    sourcemap: 'inline',
  });
  return result.code;
}
