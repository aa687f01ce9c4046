import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { snapshotArchive, writeBundle } from '../archive/bundle.ts';
import type { Manifest } from '../archive/bundle-manifest.ts';
import { openArchiveReader } from '../archive/read.ts';
import { domainHashes, HARNESS_VERSION, PROJECT_ROOT, parseStoredConfig } from '../harness/run/index.ts';
import { PROJECT_VERSION } from '../queue/project-version.ts';
import { git } from '../system/git.ts';
import { openRun } from './archive-refs.ts';
import { refusalOf } from './run-ref.ts';
import { UsageError } from './usage-error.ts';
import { outputFile } from './writable.ts';
import { writeFailure } from './write-output.ts';

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

/** A file the run names (its recording, its sim script), when it is still there to pack. */
const present = (file: string | null): string | null =>
  file !== null && existsSync(file) && lstatSync(file).isFile() ? file : null;

/**
 * `hyperagents archive bundle RUN -o FILE [--force]`: the run's archive (a consistent copy, even of a run
 * still going), variant repository, recording and configuration, with a manifest of hashes, as one .tar.gz.
 */
export async function bundleCommand(
  runsDir: string,
  ref: string,
  output: string | undefined,
  force: boolean,
): Promise<number> {
  if (output === undefined) throw new UsageError('archive bundle needs -o FILE, the .tar.gz to write.');
  const run = openRun(runsDir, ref);
  run.reader.close();
  const file = outputFile(output, `${run.id}.tar.gz`, 'the bundle');
  if (existsSync(file) && !force)
    throw new UsageError(
      `-o ${output}: ${file} already exists. Pass --force to replace it, or give another path.`,
    );
  const staging = mkdtempSync(path.join(tmpdir(), 'hyperagents-bundle-'));
  try {
    const snapshot = path.join(staging, 'archive.sqlite');
    try {
      await snapshotArchive(run.dir, snapshot);
    } catch (error) {
      throw refusalOf(error);
    }
    const reader = openArchiveReader(snapshot);
    const stored = reader.run()?.config;
    reader.close();
    if (stored === undefined)
      throw new UsageError(`${run.dir} holds no run yet (it never started): there is nothing to bundle.`);
    const config = parseStoredConfig(stored);
    const project: Manifest['project'] = {
      version: HARNESS_VERSION,
      build: PROJECT_VERSION,
      commit: await projectCommit(),
    };
    const domains = config === null ? [] : await domainHashes(config);
    let manifest: Manifest;
    try {
      manifest = await writeBundle({
        runDir: run.dir,
        snapshot,
        file,
        project,
        domains,
        recording: present(config?.record ?? config?.replay ?? null),
        simScript: present(config?.simScript ?? null),
      });
    } catch (error) {
      if (typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
      throw writeFailure(file, error, 'Nothing was written, and no partial file is left.');
    }
    const files = Object.values(manifest.files);
    const kb = Math.round(files.reduce((sum, f) => sum + f.bytes, 0) / 1024);
    process.stdout.write(
      `Wrote ${file}: run ${manifest.run.id} (${manifest.run.state}, ${manifest.run.variants} variants), ` +
        `${files.length} files (${kb} KB before compression)` +
        `${manifest.recording === null ? ', no recording' : ', with its recording'}. ` +
        `Check it with: hyperagents archive verify ${file}\n`,
    );
    return 0;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
