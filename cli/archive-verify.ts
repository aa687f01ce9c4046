import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BadBundleError, unpackBundle } from '../archive/bundle.ts';
import { BUNDLE, checkFiles, type Manifest } from '../archive/bundle-manifest.ts';
import { openArchiveReader } from '../archive/read.ts';
import { comparedVariants, compareRuns } from '../archive/run-compare.ts';
import { archiveFile } from '../archive/run-folder.ts';
import { domainChanges, domainHashes, parseStoredConfig, type RunConfig } from '../harness/run/index.ts';
import { rerunOf, seedRunFolder } from './archive-rerun.ts';
import { startRun } from './experiment-runs.ts';
import { stopOnSignals } from './stop-signals.ts';
import { UsageError } from './usage-error.ts';

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

/**
 * `hyperagents archive verify FILE`: unpacks the bundle, checks every file against its manifest, re-runs the
 * run from it (sim or recording) into a temporary folder and compares. 0 the same, 1 different, 2 bad input.
 */
export async function verifyCommand(given: string): Promise<number> {
  const file = bundleFile(given);
  const work = mkdtempSync(path.join(tmpdir(), 'hyperagents-verify-'));
  try {
    const dir = path.join(work, 'bundle');
    mkdirSync(dir);
    let unpacked: Awaited<ReturnType<typeof unpackBundle>>;
    try {
      unpacked = await unpackBundle(file, dir);
    } catch (error) {
      if (error instanceof BadBundleError)
        throw new UsageError(`${given} is not a bundle this version can read: ${error.message}.`);
      throw error;
    }
    const { manifest, names } = unpacked;
    const { run, project } = manifest;
    say(
      `Bundle of run ${run.id} (${run.state} when bundled, ${run.variants} variants, seed ${run.seed}), made ` +
        `${manifest.createdAt} by hyperagents ${project.version} (commit ${project.commit}).`,
    );
    if (manifest.models.length > 0) say(`Models: ${modelsLine(manifest.models)}.`);
    const problems = checkFiles(dir, manifest, names);
    if (problems.length > 0) {
      say(`NOT the same: ${problems.length} file(s) of the bundle differ from its manifest:`);
      for (const p of problems.slice(0, SHOWN)) say(`  ${p}`);
      if (problems.length > SHOWN) say(`  ... and ${problems.length - SHOWN} more`);
      return 1;
    }
    say(`Files: all ${Object.keys(manifest.files).length} match the manifest's sha256.`);
    const config = parseStoredConfig(JSON.parse(readFileSync(path.join(dir, BUNDLE.config), 'utf8')));
    if (config === null)
      throw new UsageError(
        `the run's configuration cannot be read by this version (${project.version} made the bundle): ` +
          're-run it with that version of hyperagents.',
      );
    return await rerunAndCompare(work, dir, manifest, config);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
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
): Promise<number> {
  const bundled = openArchiveReader(path.join(dir, BUNDLE.archive));
  try {
    const rerun = rerunOf(config, manifest, dir, bundled.variants());
    if (rerun.kind === 'cannot') {
      say(`Not re-run: ${rerun.why}.`);
      return 0;
    }
    if (rerun.packed.length > 0) say(`Data files: ${rerun.packed.join(', ')} read from the bundle's copy.`);
    for (const line of domainChanges(manifest.domains, await domainHashes(rerun.config)))
      say(`Note: ${line} from when the bundle was made; the re-run may differ for that reason.`);
    const runDir = path.join(work, 'runs', manifest.run.id);
    seedRunFolder(runDir, manifest.run.id, rerun.config);
    const unfinished =
      rerun.unfinished.length === 0
        ? ''
        : ` (variant ${rerun.unfinished.join(', ')} had not finished when bundled and is left out)`;
    say(`Re-running ${rerun.upTo} generation(s) with ${rerun.how}${unfinished}...`);
    const started = startRun(['--resume', runDir, '--json', '--quiet'], path.join(work, 'rerun'));
    const stops = stopOnSignals('stopping the re-run', 'Aborted.');
    stops.signal.addEventListener('abort', () => started.stop());
    const code = await started.done.finally(() => stops.dispose());
    if (stops.signal.aborted) return 130;
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
