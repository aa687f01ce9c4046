// Builds the commands (`hyperagents`, `generate-loop`) from their TypeScript sources into JavaScript under
// dist/, so that starting one does not compile the whole project first. `npm run setup` and npm's
// `prepare` run it; the bins run it again whenever a source has changed since (bin/load.mjs).
//   node scripts/build-commands.mjs
//
// dist/current.json names the build to run and every file it was built from, with the size and time of
// change each had: a file that differs makes the build stale. Each build is a folder named by the hash of
// its content, written whole before current.json points at it, so commands started at the same moment
// never read half a build, and a command still running keeps its own.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, transform } from 'esbuild';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');

/** The built entry points and the sources they are built from. */
export const ENTRIES = {
  hyperagents: 'cli/hyperagents.ts',
  'generate-loop': 'cli/loop/generate-loop.ts',
  'closed-output': 'cli/closed-output.ts',
};

/** Where the domains live, and the module the build fills with their table (see domains/built-domains.ts). */
const DOMAINS = 'domains';
const BUILT_DOMAINS = 'domains/built-domains.ts';

/**
 * Packages built into the commands: small pure-JavaScript ones that every command loads, which start much
 * faster as a few chunks than as their hundreds of files. Every other package loads from node_modules as it
 * is: native ones (better-sqlite3), esbuild and tsx, and the heavy ones only some commands use (the
 * providers' SDKs, BullMQ, the browser's).
 */
const BUNDLED = ['yargs', 'zod', 'p-limit'];

/**
 * CommonJS packages the sources import only as a default export: required instead, which spares Node's
 * scan of their source for named exports on every start.
 */
const REQUIRED = ['better-sqlite3'];

/**
 * A build no command has started from for this long is deleted (bin/load.mjs marks each start): a command
 * still running from it may yet load one of its chunks.
 */
const KEEP_OLD_BUILD_MS = 7 * 24 * 60 * 60 * 1000;

/** The shipped domains: the folders under domains/ with an index.ts (as domains/discover.ts finds them). */
function domainNames() {
  return readdirSync(path.join(ROOT, DOMAINS), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .filter((entry) => {
      try {
        return statSync(path.join(ROOT, DOMAINS, entry.name, 'index.ts')).isFile();
      } catch {
        return false;
      }
    })
    .map((entry) => entry.name)
    .sort();
}

/** What a face re-exports, by the name it exports: the file that defines each and its name there. */
const EXPORT_FROM = /export\s+(type\s+)?\{([^}]*)\}\s*from\s*'([^']+)';/g;
const IMPORT_FROM = /(import|export)\s*\{([^}]*)\}\s*from\s*'([^']+)';/g;
const COMMENT = /\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;

/** `a`, `type B`, `c as d` → { name, alias, typeOnly }. */
const specifiers = (list, allTypes = false) =>
  list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const typeOnly = allTypes || s.startsWith('type ');
      const [name, alias = name] = s.replace(/^type\s+/, '').split(/\s+as\s+/);
      return { name, alias, typeOnly };
    });

/**
 * The table of a face (a room's `index.ts` that only re-exports: docs/architecture.md), by exported name;
 * null for any other file.
 */
function faceTable(file, cache) {
  if (cache.has(file)) return cache.get(file);
  let table = null;
  if (path.basename(file) === 'index.ts') {
    const text = readFileSync(file, 'utf8');
    const rest = text.replace(COMMENT, '').replace(EXPORT_FROM, '').trim();
    if (rest === '') {
      table = new Map();
      for (const [, allTypes, list, spec] of text.replace(COMMENT, '').matchAll(EXPORT_FROM)) {
        const from = path.resolve(path.dirname(file), spec);
        for (const s of specifiers(list, allTypes !== undefined)) table.set(s.alias, { ...s, from });
      }
    }
  }
  cache.set(file, table);
  return table;
}

/**
 * A source with each import (and re-export) of a face pointed at the modules that define what it takes, on
 * the same lines.
 * Other rooms import a room through its face; esbuild would put every module that any command takes through
 * one face into a chunk with the face, and each command that imports the face would load them all.
 */
function throughFaces(source, file, cache) {
  return source.replace(IMPORT_FROM, (declaration, keyword, list, spec) => {
    if (!spec.startsWith('.')) return declaration;
    const table = faceTable(path.resolve(path.dirname(file), spec), cache);
    if (table === null) return declaration;
    const byModule = new Map();
    for (const s of specifiers(list)) {
      if (s.typeOnly) continue;
      const target = table.get(s.name);
      if (target === undefined) return declaration;
      const names = byModule.get(target.from) ?? [];
      names.push(target.name === s.alias ? s.alias : `${target.name} as ${s.alias}`);
      byModule.set(target.from, names);
    }
    const imports = [...byModule].map(([from, names]) => {
      const relative = path.relative(path.dirname(file), from).split(path.sep).join('/');
      return `${keyword} { ${names.join(', ')} } from '${relative.startsWith('.') ? relative : `./${relative}`}';`;
    });
    return imports.join(' ') + '\n'.repeat(declaration.split('\n').length - 1);
  });
}

/**
 * Each module's `import.meta.url`, `dirname` and `filename` stay those of its source file (the code finds
 * its templates, prompts, loaders and the project root from them), the domains' table lists every
 * shipped domain, each a lazily loaded chunk, and imports of a face load only what they take.
 */
const sourcePlaces = {
  name: 'source-places',
  setup(b) {
    const faces = new Map();
    b.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (args) => {
      const relative = path.relative(ROOT, args.path).split(path.sep).join('/');
      if (relative === BUILT_DOMAINS) {
        const table = domainNames()
          .map((name) => `  ${JSON.stringify(name)}: () => import(${JSON.stringify(`./${name}/index.ts`)}),`)
          .join('\n');
        return { contents: `export const BUILT_DOMAINS = {\n${table}\n};\n`, loader: 'js' };
      }
      const source = throughFaces(readFileSync(args.path, 'utf8'), args.path, faces);
      const loader = args.path.endsWith('.ts') ? 'ts' : 'js';
      if (!source.includes('import.meta')) return { contents: source, loader };
      // Every build output sits in dist/<build>/, two folders below the project root.
      const { code } = await transform(source, {
        loader,
        format: 'esm',
        sourcefile: relative,
        define: {
          'import.meta.url': '__source.url',
          'import.meta.dirname': '__source.dirname',
          'import.meta.filename': '__source.filename',
        },
      });
      const place =
        `import { fileURLToPath as __sourcePath } from 'node:url';\n` +
        `const __sourceUrl = new URL(${JSON.stringify(`../../${relative}`)}, import.meta.url).href;\n` +
        `const __source = { url: __sourceUrl, filename: __sourcePath(__sourceUrl), ` +
        `dirname: __sourcePath(new URL('.', __sourceUrl)).replace(/\\/$/, '') };\n`;
      return { contents: place + code, loader: 'js' };
    });
  },
};

/** Every package the project depends on, by name. */
function dependencies() {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return Object.keys({
    ...manifest.dependencies,
    ...manifest.devDependencies,
    ...manifest.optionalDependencies,
  });
}

/** Each of REQUIRED as a module whose default export is the package, loaded by `require`. */
const required = {
  name: 'required',
  setup(b) {
    const filter = new RegExp(`^(${REQUIRED.join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'required' }));
    b.onLoad({ filter: /.*/, namespace: 'required' }, (args) => ({
      contents:
        "import { createRequire } from 'node:module';\n" +
        `export default createRequire(import.meta.url)(${JSON.stringify(args.path)});\n`,
      loader: 'js',
    }));
  },
};

/**
 * The files whose change makes a build stale: every source it was built from, and for the packages built
 * in, their package.json (which npm writes whenever it installs one).
 */
function stampedFiles(inputs) {
  const files = new Set();
  for (const input of inputs) {
    // Inputs made by a plugin (`required:better-sqlite3`) have no file.
    if (input.startsWith('required:')) continue;
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) {
      files.add(input);
      continue;
    }
    const [first, second] = input.slice(at + 'node_modules/'.length).split('/');
    const name = first.startsWith('@') ? `${first}/${second}` : first;
    files.add(`${input.slice(0, at)}node_modules/${name}/package.json`);
  }
  return [...files];
}

/** Size and time of change of each file, by its path from the project root. */
function stamps(files, builtFrom) {
  const out = {};
  for (const file of files) {
    const stat = statSync(path.join(ROOT, file));
    // Changed while the build read it: the build may hold the old content, so the next start rebuilds.
    out[file] = stat.mtimeMs >= builtFrom ? [-1, -1] : [stat.mtimeMs, stat.size];
  }
  return out;
}

/** Deletes the builds not started from for a week, and folders left by builds cut short. */
function pruneOld(keep) {
  for (const entry of readdirSync(DIST, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === keep) continue;
    const folder = path.join(DIST, entry.name);
    if (Date.now() - statSync(folder).mtimeMs > KEEP_OLD_BUILD_MS)
      rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Builds the commands into dist/<hash>/ and points dist/current.json at it; returns that folder. Throws
 * esbuild's error when a source does not compile.
 */
export async function buildCommands() {
  // Time stamps are compared with the file system's clock, which may lag Date.now() by a tick.
  const builtFrom = Date.now() - 100;
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: dependencies().filter((name) => !BUNDLED.includes(name)),
    // Smaller to parse on every start; the names stay, and the source maps give stack traces their sources
    // (HYPERAGENTS_DEBUG=1 turns them on: see bin/load.mjs).
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    sourcemap: 'linked',
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    outdir: 'dist/build',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [required, sourcePlaces],
  });
  const hash = createHash('sha256');
  for (const file of result.outputFiles) hash.update(path.basename(file.path)).update(file.contents);
  const id = hash.digest('hex').slice(0, 16);
  const folder = path.join(DIST, id);
  mkdirSync(DIST, { recursive: true });
  if (!existsDir(folder)) {
    const scratch = `${folder}.part-${process.pid}-${randomBytes(4).toString('hex')}`;
    mkdirSync(scratch);
    for (const file of result.outputFiles)
      writeFileSync(path.join(scratch, path.basename(file.path)), file.contents);
    // What each output holds and imports (esbuild's metafile): which packages a command loads.
    writeFileSync(path.join(scratch, 'meta.json'), JSON.stringify(result.metafile));
    try {
      renameSync(scratch, folder);
    } catch {
      // Another start built the same content at the same moment.
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  // The domains' folders too: a new domain (a folder with an index.ts) is one more chunk.
  const domainFolders = readdirSync(path.join(ROOT, DOMAINS), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${DOMAINS}/${entry.name}`);
  const inputs = stamps(
    [
      ...stampedFiles(Object.keys(result.metafile.inputs)),
      DOMAINS,
      ...domainFolders,
      'scripts/build-commands.mjs',
      'package.json',
    ],
    builtFrom,
  );
  const current = path.join(DIST, 'current.json');
  const pending = `${current}.${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(pending, `${JSON.stringify({ build: id, inputs })}\n`);
  renameSync(pending, current);
  pruneOld(id);
  return folder;
}

function existsDir(folder) {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const started = Date.now();
  try {
    const folder = await buildCommands();
    console.log(`built the commands into ${path.relative(ROOT, folder)} in ${Date.now() - started} ms`);
  } catch (error) {
    console.error(`building the commands failed: ${error instanceof Error ? error.message : error}`);
    process.exitCode = 1;
  }
}
