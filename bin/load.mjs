// How the bins start a command: the JavaScript built from the sources (scripts/build-commands.mjs) when no
// source has changed since that build, else a fresh build; and the TypeScript sources through tsx when no
// build can be made (a source that does not compile, a project folder that cannot be written).
import { existsSync, readFileSync, statSync, utimesSync } from 'node:fs';
import nodeModule from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = new URL('../dist/', import.meta.url);

/** Each entry's source, run through tsx when there is no build. */
const SOURCES = {
  hyperagents: () => import('../cli/hyperagents.ts'),
  'generate-loop': () => import('../cli/loop/generate-loop.ts'),
  'closed-output': () => import('../cli/closed-output.ts'),
};

/** The folder of the current build when every file it was built from is as it was then; else null. */
function currentBuild() {
  let current;
  try {
    current = JSON.parse(readFileSync(new URL('current.json', DIST), 'utf8'));
  } catch {
    return null;
  }
  for (const [file, [mtimeMs, size]] of Object.entries(current.inputs)) {
    try {
      const stat = statSync(ROOT + file);
      if (stat.mtimeMs !== mtimeMs || stat.size !== size) return null;
    } catch {
      return null;
    }
  }
  const folder = new URL(`${current.build}/`, DIST);
  try {
    // Marks the build as in use, so that it is kept while commands start from it (scripts/build-commands.mjs).
    const now = new Date();
    utimesSync(folder, now, now);
  } catch {
    // Deleted (then built again), or a folder this user cannot write: the build still runs if it is there.
    if (!existsSync(folder)) return null;
  }
  return folder;
}

async function freshBuild() {
  try {
    const { buildCommands } = await import('../scripts/build-commands.mjs');
    return pathToFileURL(`${await buildCommands()}/`);
  } catch {
    return null;
  }
}

let place;

// From Node 22.1, V8's compiled code of the build is kept between starts (on Node 20 there is no such cache).
nodeModule.enableCompileCache?.();

/** The module of one entry (`hyperagents`, `generate-loop`, `closed-output`), built or from its source. */
export async function load(entry) {
  if (place === undefined) {
    place = currentBuild() ?? (await freshBuild()) ?? 'source';
    // Stack traces (HYPERAGENTS_DEBUG=1) name the TypeScript sources' lines, not the build's.
    if (place !== 'source' && process.env.HYPERAGENTS_DEBUG) process.setSourceMapsEnabled(true);
  }
  if (place !== 'source') return import(new URL(`${entry}.js`, place).href);
  const { register } = await import('tsx/esm/api');
  register();
  return SOURCES[entry]();
}
