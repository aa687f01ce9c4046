import { existsSync, lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BUNDLE,
  MAX_DATA_BYTES,
  type Manifest,
  openArchiveReader,
  snapshotArchive,
  TarNameError,
  writeBundle,
} from '../../archive/index.ts';
import {
  type DomainData,
  domainData,
  domainHashes,
  HARNESS_VERSION,
  PROJECT_ROOT,
  parseStoredConfig,
  type RunConfig,
} from '../../harness/run/index.ts';
import { PROJECT_VERSION } from '../../queue/index.ts';
import { git } from '../../system/git.ts';
import { refusalOf } from '../shared/run-ref.ts';
import { UsageError } from '../shared/usage-error.ts';
import { outputFile } from '../shared/writable.ts';
import { writeFailure } from '../shared/write-output.ts';
import { openRun } from './archive-refs.ts';

/** The git commit this project is checked out at, or "unknown" (not a git checkout, or no git). */
async function projectCommit(): Promise<string> {
  const dotGit = path.join(PROJECT_ROOT, '.git');
  try {
    // A worktree's .git is a file naming its git dir.
    const gitDir = lstatSync(dotGit).isFile()
      ? path.resolve(
          PROJECT_ROOT,
          readFileSync(dotGit, 'utf8')
            .replace(/^gitdir:\s*/, '')
            .trim(),
        )
      : dotGit;
    return (await git({ gitDir }, ['rev-parse', 'HEAD'])).trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * A file the run names (its recording, its sim script), when it is still there to pack: a plain file, and with
 * `within`, one whose real path lies inside that folder.
 */
function present(file: string | null, within: string | null): string | null {
  if (file === null || !existsSync(file) || !lstatSync(file).isFile()) return null;
  if (within === null) return file;
  return realpathSync(file).startsWith(`${realpathSync(within)}${path.sep}`) ? file : null;
}

/** A size in KB under a megabyte, else in MB. */
const size = (bytes: number): string =>
  bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/**
 * The data files of the run's `dataset:`/`lmeval:` domains to pack, or null with --no-data. More than
 * MAX_DATA_BYTES in all is refused: a bundle is meant to be passed around.
 */
function dataToPack(config: RunConfig | null, withData: boolean): DomainData[] | null {
  if (!withData) return null;
  const data = (config?.domains ?? []).flatMap((ref) => domainData(ref) ?? []);
  const sizes = data.map((d) => ({ name: d.name, bytes: d.files.reduce((n, f) => n + f.bytes, 0) }));
  const total = sizes.reduce((n, d) => n + d.bytes, 0);
  if (total > MAX_DATA_BYTES)
    throw new UsageError(
      `the run's data files come to ${size(total)} (${sizes.map((d) => `${d.name} ${size(d.bytes)}`).join(', ')}), ` +
        `more than the ${size(MAX_DATA_BYTES)} a bundle packs. Pass --no-data to bundle without them: the manifest ` +
        'keeps their hashes, and archive verify then reads them from where they are.',
    );
  return data;
}

/**
 * `hyperagents archive bundle RUN -o FILE [--force] [--no-data]`: the run's archive (a consistent copy, even of
 * a run still going), variant repository, recording, configuration and the data files of its dataset and
 * lmeval domains, with a manifest of hashes, as one .tar.gz.
 */
export async function bundleCommand(
  runsDir: string,
  ref: string,
  output: string | undefined,
  force: boolean,
  withData = true,
): Promise<number> {
  if (output === undefined) throw new UsageError('archive bundle needs -o FILE, the .tar.gz to write.');
  const run = openRun(runsDir, ref);
  run.reader.close();
  const file = outputFile(output, `${run.id}.tar.gz`, 'the bundle');
  if (existsSync(file) && !force)
    throw new UsageError(
      `-o ${output}: ${file} already exists. Pass --force to replace it, or give another path.`,
    );
  const manifest = await bundleRun(run.dir, file, { withData });
  const files = Object.values(manifest.files);
  const kb = Math.round(files.reduce((sum, f) => sum + f.bytes, 0) / 1024);
  process.stdout.write(
    `Wrote ${file}: run ${manifest.run.id} (${manifest.run.state}, ${manifest.run.variants} variants), ` +
      `${files.length} files (${kb} KB before compression)` +
      `${manifest.recording === null ? ', no recording' : ', with its recording'}` +
      `${dataNote(manifest.data)}. ` +
      `Check it with: hyperagents archive verify ${file}\n`,
  );
  return 0;
}

/**
 * Writes the bundle of the run in `runDir` to `file` (whole or not at all). With `within` (the browser's runs
 * folder), a recording or sim script outside that folder is left out, and so are the data files (as with
 * --no-data: the manifest keeps their hashes). Throws a UsageError that says what went wrong in one line.
 */
export async function bundleRun(
  runDir: string,
  file: string,
  options: { within?: string; withData?: boolean } = {},
): Promise<Manifest> {
  const within = options.within ?? null;
  const staging = mkdtempSync(path.join(tmpdir(), 'hyperagents-bundle-'));
  try {
    const snapshot = path.join(staging, BUNDLE.archive);
    try {
      await snapshotArchive(runDir, snapshot);
    } catch (error) {
      throw refusalOf(error);
    }
    const reader = openArchiveReader(snapshot);
    const stored = reader.run()?.config;
    reader.close();
    if (stored === undefined)
      throw new UsageError(`${runDir} holds no run yet (it never started): there is nothing to bundle.`);
    const config = parseStoredConfig(stored);
    const project: Manifest['project'] = {
      version: HARNESS_VERSION,
      build: PROJECT_VERSION,
      commit: await projectCommit(),
    };
    const data = dataToPack(config, within === null && options.withData !== false);
    const domains = config === null ? [] : await domainHashes(config);
    try {
      return await writeBundle({
        runDir,
        snapshot,
        file,
        project,
        domains,
        recording: present(config?.record ?? config?.replay ?? null, within),
        simScript: present(config?.simScript ?? null, within),
        data,
      });
    } catch (error) {
      if (error instanceof TarNameError)
        throw new UsageError(
          `${error.path} is too long a path to pack (a bundle's paths are at most 255 bytes, 100 after the ` +
            'last /): move the data to a shorter path, or leave it out with --no-data. Nothing was written.',
        );
      if (typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
      throw writeFailure(file, error, 'Nothing was written, and no partial file is left.');
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** What the bundle says of its data files, after the recording. */
function dataNote(data: Manifest['data']): string {
  if (data === null) return ', without data files (--no-data)';
  if (data === undefined || data.length === 0) return '';
  const bytes = data.reduce((n, d) => n + d.bytes, 0);
  return `, with the data files of ${data.map((d) => d.domain).join(', ')} (${size(bytes)})`;
}
