import { lstatSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { withoutAlertDestinations } from './alert-destinations.ts';
import {
  BUNDLE,
  BUNDLE_FORMAT,
  bundledRepoFile,
  type DomainHash,
  type Manifest,
  sha256,
} from './bundle-manifest.ts';
import { openReadOnly } from './database.ts';
import { openArchiveReader } from './read.ts';
import { archiveFile, runLockHolder, variantRepoDir } from './run-folder.ts';
import { type TarEntry, writeTarGz } from './tar.ts';

/**
 * A consistent copy of a run's archive at `dest`, even while the run writes to it: SQLite's online backup
 * (never a copy of the file, whose last commits may sit in its WAL), turned into one self-contained file.
 * The copy keeps no alert destination (see withoutAlertDestinations).
 */
const parseOr = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export async function snapshotArchive(runDir: string, dest: string): Promise<void> {
  const db = openReadOnly(archiveFile(runDir));
  try {
    await db.backup(dest);
  } finally {
    db.close();
  }
  const copy = new Database(dest);
  try {
    copy.pragma('journal_mode = DELETE');
    const rows = copy.prepare('SELECT id, config FROM runs').all() as { id: string; config: string }[];
    const update = copy.prepare('UPDATE runs SET config = ? WHERE id = ?');
    for (const row of rows) {
      const shared = withoutAlertDestinations(parseOr(row.config));
      if (shared !== undefined) update.run(JSON.stringify(shared), row.id);
    }
  } finally {
    copy.close();
  }
}

/**
 * The files of a variant repository, refs before objects: a run that commits while they are read adds
 * objects before it moves a ref, so every commit a ref read here names is among the objects read after.
 * Only refs and objects are taken (see bundledRepoFile), plain files only, lock files left out.
 */
export function variantRepoFiles(gitDir: string): string[] {
  const all: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(gitDir, rel)).sort()) {
      const child = rel === '' ? name : `${rel}/${name}`;
      const stat = lstatSync(path.join(gitDir, child));
      if (stat.isDirectory()) walk(child);
      else if (stat.isFile() && !name.endsWith('.lock') && bundledRepoFile(child)) all.push(child);
    }
  };
  walk('');
  const refsFirst = (f: string): number =>
    f === 'HEAD' || f === 'packed-refs' || f.startsWith('refs/') ? 0 : 1;
  return all.sort((a, b) => refsFirst(a) - refsFirst(b) || (a < b ? -1 : 1));
}

/** A file's whole lines: a recording being appended to ends at its last complete line. */
function wholeLines(file: string): Buffer {
  const bytes = readFileSync(file);
  const end = bytes.lastIndexOf(0x0a);
  return bytes.subarray(0, end + 1);
}

export interface BundleInputs {
  runDir: string;
  /** The archive copy made by snapshotArchive. */
  snapshot: string;
  /** The file to write; written beside itself first and renamed into place once whole. */
  file: string;
  project: Manifest['project'];
  domains: DomainHash[];
  /** The run's recording on disk (its --record or --replay file), or null. */
  recording: string | null;
  simScript: string | null;
  /**
   * The data files of the run's `dataset:`/`lmeval:` domains: each file at `root/rel`, packed as
   * `domains/NAME/rel`; `entry` is what the reference names, relative to `root`. null: left out (--no-data).
   */
  data: { name: string; root: string; entry: string; files: { rel: string; bytes: number }[] }[] | null;
}

/** Writes the bundle: the archive copy, the config, the recording, the sim script, variants.git, manifest.json. */
export async function writeBundle(inputs: BundleInputs): Promise<Manifest> {
  const reader = openArchiveReader(inputs.snapshot);
  let manifest: Manifest;
  let config: unknown;
  const files: Manifest['files'] = {};
  try {
    const run = reader.run();
    if (run === null) throw new Error(`${inputs.runDir} has no run in its archive yet`);
    manifest = {
      format: BUNDLE_FORMAT,
      createdAt: new Date().toISOString(),
      run: {
        id: run.id,
        // The copy has no lock beside it, so a run still going reads there as interrupted: ask its folder.
        state: run.state === 'interrupted' && runLockHolder(inputs.runDir) !== null ? 'running' : run.state,
        seed: run.seed,
        metaModel: run.metaModel,
        taskModel: run.taskModel,
        simulated: run.simulated,
        harnessVersion: run.harnessVersion,
        variants: reader.variants().length,
      },
      project: inputs.project,
      models: reader.modelsUsed(),
      domains: inputs.domains,
      recording: inputs.recording === null ? null : BUNDLE.recording,
      simScript: inputs.simScript === null ? null : BUNDLE.simScript,
      data:
        inputs.data?.map((d) => ({
          domain: d.name,
          path: `${BUNDLE.domains}/${d.name}/${d.entry}`,
          files: d.files.length,
          bytes: d.files.reduce((n, f) => n + f.bytes, 0),
        })) ?? null,
      files,
    };
    config = run.config;
  } finally {
    reader.close();
  }
  const gitDir = variantRepoDir(inputs.runDir);
  function* entries(): Generator<TarEntry> {
    const hashed = (name: string, bytes: Buffer): TarEntry => {
      files[name] = { sha256: sha256(bytes), bytes: bytes.length };
      return { name, bytes };
    };
    yield hashed(BUNDLE.config, Buffer.from(`${JSON.stringify(config, null, 2)}\n`));
    yield hashed(BUNDLE.archive, readFileSync(inputs.snapshot));
    if (inputs.recording !== null) yield hashed(BUNDLE.recording, wholeLines(inputs.recording));
    if (inputs.simScript !== null) yield hashed(BUNDLE.simScript, readFileSync(inputs.simScript));
    for (const rel of variantRepoFiles(gitDir))
      yield hashed(`${BUNDLE.variants}/${rel}`, readFileSync(path.join(gitDir, rel)));
    for (const d of inputs.data ?? [])
      for (const f of d.files)
        yield hashed(`${BUNDLE.domains}/${d.name}/${f.rel}`, readFileSync(path.join(d.root, f.rel)));
    yield { name: BUNDLE.manifest, bytes: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) };
  }
  const partial = path.join(
    path.dirname(inputs.file),
    `.${path.basename(inputs.file)}.partial-${process.pid}`,
  );
  try {
    await writeTarGz(partial, entries());
    renameSync(partial, inputs.file);
  } finally {
    rmSync(partial, { force: true });
  }
  return manifest;
}
