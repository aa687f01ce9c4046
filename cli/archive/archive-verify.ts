import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  archiveFile,
  BadBundleError,
  BUNDLE,
  checkFiles,
  checkUntrustedArchive,
  comparedVariants,
  compareRuns,
  MAX_DATA_BYTES,
  MAX_JSON_BYTES,
  type Manifest,
  openArchiveReader,
  sizeText,
  TarLimitError,
  type UnpackLimits,
  unpackBundle,
} from '../../archive/index.ts';
import { domainChanges, domainHashes, parseStoredConfig, type RunConfig } from '../../harness/run/index.ts';
import { type StartedRun, startRun } from '../experiment/experiment-runs.ts';
import { abortExitCode, type StopCause, stopOnSignals } from '../shared/stop-signals.ts';
import { UsageError } from '../shared/usage-error.ts';
import { rerunOf, seedRunFolder } from './archive-rerun.ts';
import { outsideTheBundle, rerunEnvironment, sandboxMissing } from './verify-confinement.ts';
import { LIMIT_FLAGS } from './verify-limits.ts';

/** Differences printed; the rest are counted. */
const SHOWN = 10;

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function bundleFile(given: string): string {
  const file = path.resolve(given);
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    throw new UsageError(`${given}: no such file. Give a bundle written by hyperagents archive bundle.`);
  }
  if (!isFile)
    throw new UsageError(`${given} is not a file. Give a bundle written by hyperagents archive bundle.`);
  return file;
}

const notABundle = (given: string, why: string): UsageError =>
  new UsageError(`${given} is not a bundle this version can read: ${why}.`);

/**
 * `hyperagents archive verify FILE`: unpacks the bundle (within `limits`), checks every file against its
 * manifest, re-runs the run from it (sim or recording) into a temporary folder and compares. 0 the same, 1
 * different, 2 bad input, 128 + the signal's number when stopped. The bundle is untrusted input throughout;
 * the temporary folder is gone however the command ends (an error, a signal, a second signal that ends it).
 */
export async function verifyCommand(given: string, limits: UnpackLimits): Promise<number> {
  const file = bundleFile(given);
  const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'hyperagents-verify-')));
  let rerun: StartedRun | null = null;
  const removeWork = (): void => {
    // The re-run writes into the folder: it goes first, with its process group.
    if (rerun?.pid !== undefined)
      try {
        process.kill(-rerun.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    rmSync(work, { recursive: true, force: true });
  };
  // A second Ctrl-C exits at once (stopOnSignals): the folder goes then too.
  process.on('exit', removeWork);
  const stops = stopOnSignals('stopping the check and removing its temporary folder', 'Aborted.');
  try {
    return await verifyIn(work, file, given, limits, stops.signal, (started) => {
      rerun = started;
    });
  } catch (error) {
    if (stops.signal.aborted) return abortExitCode(stops.signal.reason as StopCause);
    throw error;
  } finally {
    stops.dispose();
    removeWork();
    process.off('exit', removeWork);
  }
}

async function verifyIn(
  work: string,
  file: string,
  given: string,
  limits: UnpackLimits,
  signal: AbortSignal,
  started: (run: StartedRun) => void,
): Promise<number> {
  const dir = path.join(work, 'bundle');
  mkdirSync(dir);
  let unpacked: Awaited<ReturnType<typeof unpackBundle>>;
  try {
    unpacked = await unpackBundle(file, dir, limits, signal);
  } catch (error) {
    if (error instanceof BadBundleError) throw notABundle(given, error.message);
    if (error instanceof TarLimitError) {
      const { flag, unit } = LIMIT_FLAGS[error.limit];
      throw new UsageError(
        `${given} was not unpacked: ${error.message}. Nothing of it is left on disk. If you trust it, raise ` +
          `the limit with ${flag} (now ${Math.floor(limits[error.limit] / unit)}).`,
      );
    }
    throw error;
  }
  const { manifest, files, sha256 } = unpacked;
  const { run, project } = manifest;
  say(`Bundle sha256 ${sha256.bundle}`);
  say(`Manifest sha256 ${sha256.manifest}`);
  say(
    `Bundle of run ${run.id} (${run.state} when bundled, ${run.variants} variants, seed ${run.seed}), made ` +
      `${manifest.createdAt} by hyperagents ${project.version} (commit ${project.commit}).`,
  );
  if (manifest.models.length > 0) say(`Models: ${modelsLine(manifest.models)}.`);
  const problems = checkFiles(manifest, files);
  if (problems.length > 0) {
    say(`NOT the same: ${problems.length} file(s) of the bundle differ from its manifest:`);
    for (const p of problems.slice(0, SHOWN)) say(`  ${p}`);
    if (problems.length > SHOWN) say(`  ... and ${problems.length - SHOWN} more`);
    return 1;
  }
  const data = files.filter((f) => f.name.startsWith(`${BUNDLE.domains}/`)).reduce((n, f) => n + f.bytes, 0);
  if (data > MAX_DATA_BYTES)
    throw notABundle(
      given,
      `its data files come to ${sizeText(data)}, more than the ${sizeText(MAX_DATA_BYTES)} archive bundle packs`,
    );
  const total = files.reduce((n, f) => n + f.bytes, 0);
  say(`Files: all ${Object.keys(manifest.files).length} match the manifest's sha256 (${sizeText(total)}).`);
  const config = readConfig(dir, files, given, project.version);
  const archive = checkUntrustedArchive(path.join(dir, BUNDLE.archive));
  if (!archive.ok) throw notABundle(given, `its ${BUNDLE.archive} is not safe to read: ${archive.why}`);
  return await rerunAndCompare(work, dir, manifest, config, signal, started);
}

/** The bundle's config.json as a run configuration; a UsageError when it is not one. */
function readConfig(
  dir: string,
  files: readonly { name: string; bytes: number }[],
  given: string,
  version: string,
): RunConfig {
  const bytes = files.find((f) => f.name === BUNDLE.config)?.bytes ?? 0;
  if (bytes > MAX_JSON_BYTES) throw notABundle(given, `its ${BUNDLE.config} is ${sizeText(bytes)} long`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.join(dir, BUNDLE.config), 'utf8'));
  } catch (error) {
    throw notABundle(given, `its ${BUNDLE.config} is not JSON (${(error as Error).message})`);
  }
  const config = parseStoredConfig(raw);
  if (config === null)
    throw new UsageError(
      `the run's configuration cannot be read by this version (${version} made the bundle): ` +
        're-run it with that version of hyperagents.',
    );
  return config;
}

/**
 * The models of a bundle, per role: the id asked for, its calls, and the other ids the provider said served
 * them (a bundle made before they were kept names none). Pure.
 */
export function modelsLine(models: Manifest['models']): string {
  return models
    .map((m) => {
      const served = (m.reported ?? [])
        .filter((r) => r.model !== m.model)
        .map((r) => `${r.model} (${r.calls})`)
        .join(', ');
      return `${m.role} ${m.model}: ${m.calls} calls${served === '' ? '' : `, served by ${served}`}`;
    })
    .join('; ');
}

async function rerunAndCompare(
  work: string,
  dir: string,
  manifest: Manifest,
  config: RunConfig,
  signal: AbortSignal,
  started: (run: StartedRun) => void,
): Promise<number> {
  const bundled = openArchiveReader(path.join(dir, BUNDLE.archive));
  try {
    const rerun = rerunOf(config, manifest, dir, bundled.variants());
    const cannot =
      rerun.kind === 'cannot' ? rerun.why : (outsideTheBundle(rerun.config, dir, work) ?? sandboxMissing());
    if (rerun.kind === 'cannot' || cannot !== null) {
      say(`Not re-run: ${cannot}.`);
      return 0;
    }
    if (rerun.packed.length > 0) say(`Data files: ${rerun.packed.join(', ')} read from the bundle's copy.`);
    for (const { name, dir: exercises } of rerun.exercises)
      say(`Exercises: ${name} read from ${exercises}, outside the bundle (an exercism: domain names them).`);
    for (const line of domainChanges(manifest.domains, await domainHashes(rerun.config)))
      say(`Note: ${line} from when the bundle was made; the re-run may differ for that reason.`);
    // The id is a plain name (the manifest's schema), so the run folder is inside this command's own folder.
    const runDir = path.join(work, 'runs', manifest.run.id);
    seedRunFolder(runDir, manifest.run.id, rerun.config);
    const unfinished =
      rerun.unfinished.length === 0
        ? ''
        : ` (variant ${rerun.unfinished.join(', ')} had not finished when bundled and is left out)`;
    say(`Re-running ${rerun.upTo} generation(s) with ${rerun.how}${unfinished}...`);
    if (signal.aborted) throw signal.reason;
    const run = startRun(['--resume', runDir, '--json', '--quiet'], path.join(work, 'rerun'), {
      cwd: work,
      env: rerunEnvironment(),
    });
    started(run);
    const stop = (): void => run.stop();
    signal.addEventListener('abort', stop);
    const code = await run.done.finally(() => signal.removeEventListener('abort', stop));
    if (signal.aborted) throw signal.reason;
    if (code !== 0) {
      const log = readFileSync(path.join(work, 'rerun.log'), 'utf8').trim().split('\n').slice(-5);
      say(`The re-run failed (exit ${code}), so nothing could be compared. It said:`);
      for (const line of log) say(`  ${line}`);
      return 1;
    }
    const again = openArchiveReader(archiveFile(runDir));
    try {
      const a = comparedVariants(bundled, rerun.upTo);
      const b = comparedVariants(again, rerun.upTo);
      const differences = compareRuns(a, b, ['in the bundle', 'in the re-run']);
      if (differences.length === 0) {
        const tasks = a.reduce((n, v) => n + v.tasks.size, 0);
        say(
          `The same: ${a.length} variants, their parents, scores and ${tasks} task results match the re-run.`,
        );
        return 0;
      }
      say(`NOT the same: ${differences.length} difference(s); the first:`);
      for (const d of differences.slice(0, SHOWN)) say(`  ${d}`);
      return 1;
    } finally {
      again.close();
    }
  } finally {
    bundled.close();
  }
}
