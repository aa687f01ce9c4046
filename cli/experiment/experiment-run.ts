import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import {
  archiveFile,
  type ExperimentSummary,
  openArchiveReader,
  type RunFigures,
  type RunState,
  runFigures,
  runFlags,
  summarizeExperiment,
} from '../../archive/index.ts';
import { runHolder } from '../../harness/run/index.ts';
import { checkLoopArgs } from '../loop/loop-prepare.ts';
import { UsageError } from '../shared/usage-error.ts';
import { assertWritableDir } from '../shared/writable.ts';
import {
  type ExperimentArgs,
  type ExperimentConfig,
  type parseExperimentArgs,
  runIdOf,
} from './experiment-args.ts';
import { baselineFigures, baselineOf, readBaseline, runBaseline } from './experiment-baseline.ts';
import { evaluateHeldOut } from './experiment-held-out.ts';
import { MANIFEST, type Manifest, mergeManifest, readManifest } from './experiment-manifest.ts';
import { bestOf, formatDuration, watchRun } from './experiment-progress.ts';
import {
  experimentHolder,
  readExperimentLock,
  removeExperimentLock,
  type StartedRun,
  startRun,
  stopLeftRuns,
  stopRunsOnSignal,
  writeExperimentLock,
} from './experiment-runs.ts';
import { renderExperiment } from './experiment-table.ts';

function runState(runDir: string): RunState | null {
  const file = archiveFile(runDir);
  if (!existsSync(file)) return null;
  const reader = openArchiveReader(file);
  try {
    return reader.run()?.state ?? null;
  } finally {
    reader.close();
  }
}

async function figuresOf(runDir: string): Promise<RunFigures | null> {
  const reader = openArchiveReader(archiveFile(runDir));
  try {
    const figures = runFigures(reader);
    if (figures === null) return null;
    // Variants flagged, not flags: a variant caught tampering on every task counts once.
    const flags = await runFlags(reader, runDir, reader.variants());
    return { ...figures, flags: new Set(flags.map((f) => f.variantId)).size };
  } finally {
    reader.close();
  }
}

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** Summarises the finished runs of a manifest, in its configuration order; unfinished ones are left out. */
async function summarize(
  dir: string,
  manifest: Manifest,
  target: number | undefined,
): Promise<{ summary: ExperimentSummary; missing: string[] }> {
  const missing: string[] = [];
  const groups: { name: string; runs: RunFigures[] }[] = [];
  for (const c of manifest.configs as ExperimentConfig[]) {
    const runs: RunFigures[] = [];
    for (const seed of manifest.seeds) {
      const id = runIdOf(c.name, seed);
      const runDir = path.join(dir, 'runs', id);
      const figures =
        baselineOf(c) !== null
          ? baselineFigures(runDir, id, seed)
          : runState(runDir) === 'done'
            ? await figuresOf(runDir)
            : null;
      if (figures === null) missing.push(id);
      else runs.push(figures);
    }
    groups.push({ name: c.name, runs });
  }
  const summary = summarizeExperiment(groups, target);
  for (const [i, c] of summary.configs.entries()) {
    const baseline = baselineOf(manifest.configs[i]!);
    if (baseline !== null) c.baseline = baseline;
  }
  return { summary, missing };
}

function print(summary: ExperimentSummary, json: boolean, target: number | undefined): void {
  process.stdout.write(json ? `${JSON.stringify(summary)}\n` : `${renderExperiment(summary, target)}\n`);
}

/**
 * `hyperagents experiment ...` past its help (see experiment.ts). Returns the exit code: 1 when a run failed or
 * is missing.
 */
export async function runExperiment(args: Exclude<ExperimentArgs, { kind: 'help' }>): Promise<number> {
  const dir = path.resolve(args.dir);
  if (args.kind === 'report') {
    const manifest = readManifest(dir, 'experiment report');
    if (manifest === null)
      throw new UsageError(
        `${dir} has no ${MANIFEST}: it is not an experiment folder (made by hyperagents experiment --out DIR).`,
      );
    const { summary, missing } = await summarize(dir, manifest, args.target);
    if (missing.length > 0) log(`Not finished (left out): ${missing.join(', ')}.`);
    print(summary, args.json, args.target);
    return 0;
  }
  assertWritableDir(dir, '--out');
  const evolving = args.configs.filter((c) => baselineOf(c) === null);
  if (evolving.length === 0) {
    throw new UsageError(
      'A baseline configuration matches the spend of an evolving one: add one with generate-loop options, ' +
        'e.g. --config full= --config baseline=best-of-k.',
    );
  }
  for (const config of evolving) {
    try {
      await checkLoopArgs([...args.loopArgs, ...config.args, '--seed', String(args.seeds[0] ?? 1)]);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      throw new UsageError(`configuration "${config.name}": ${error.message}`);
    }
  }
  const manifest = mergeManifest(
    readManifest(dir, 'experiment'),
    { seeds: args.seeds, configs: args.configs, loopArgs: args.loopArgs },
    dir,
  );
  const previous = readExperimentLock(dir);
  const holder = experimentHolder(previous);
  if (holder !== null) {
    throw new UsageError(
      `${dir}: another experiment is running in this folder (process ${holder}). Wait for it to end, or stop ` +
        `it (Ctrl-C in its terminal, or kill ${holder}); then run this again.`,
    );
  }
  writeFolders(dir, manifest);
  const lock = { pid: process.pid, runs: {} as Record<string, number> };
  writeExperimentLock(dir, lock);
  const jobs = args.jobs ?? Math.max(1, Math.floor(os.availableParallelism() / 2));
  log(
    `Experiment ${dir}: ${args.configs.length} configuration(s) x ${args.seeds.length} seed(s), ${jobs} at once.`,
  );
  try {
    if (previous !== null) await stopLeftRuns(dir, previous, log);
    return await runAll(dir, { ...args, jobs }, manifest, lock);
  } finally {
    removeExperimentLock(dir);
  }
}

/** Creates the experiment's folders and writes its manifest; a folder that cannot be written is named. */
function writeFolders(dir: string, manifest: Manifest): void {
  try {
    mkdirSync(path.join(dir, 'runs'), { recursive: true });
    mkdirSync(path.join(dir, 'logs'), { recursive: true });
    const tmp = path.join(dir, `${MANIFEST}.tmp`);
    writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
    renameSync(tmp, path.join(dir, MANIFEST));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'an error';
    throw new UsageError(
      `--out ${dir}: the experiment folder cannot be written (${code}). Choose a folder you can write to.`,
    );
  }
}

type RunArgs = Extract<ReturnType<typeof parseExperimentArgs>, { kind: 'run' }>;

/** What the runs of an experiment share while they go: where they are, what runs, and how they ended. */
interface Tally {
  dir: string;
  args: RunArgs & { jobs: number };
  lock: { pid: number; runs: Record<string, number> };
  running: Map<string, StartedRun>;
  signal: AbortSignal;
  wanted: number;
  finished: number;
  failed: string[];
  stopped: string[];
}

/** Every configuration with every seed; returns the exit code. */
async function runAll(
  dir: string,
  args: RunArgs & { jobs: number },
  manifest: Manifest,
  lock: { pid: number; runs: Record<string, number> },
): Promise<number> {
  // Seed by seed, so an interrupted experiment has every configuration on the seeds it finished.
  // Baselines after the evolving configurations of their seed, whose spend they match.
  const ordered = [
    ...args.configs.filter((c) => baselineOf(c) === null),
    ...args.configs.filter((c) => baselineOf(c) !== null),
  ];
  const wanted = args.seeds.flatMap((seed) => ordered.map((c) => ({ config: c, seed })));
  const running = new Map<string, StartedRun>();
  const stops = stopRunsOnSignal(running);
  const tally: Tally = {
    dir,
    args,
    lock,
    running,
    signal: stops.signal,
    wanted: wanted.length,
    finished: 0,
    failed: [],
    stopped: [],
  };
  try {
    await Promise.all(scheduleRuns(tally, wanted, ordered[0]!, pLimit(args.jobs)));
  } finally {
    stops.dispose();
  }
  const { failed, stopped } = tally;
  const { summary } = await summarize(
    dir,
    { ...manifest, configs: args.configs, seeds: args.seeds },
    args.target,
  );
  print(summary, args.json, args.target);
  if (stops.signal.aborted) {
    log(
      `Experiment stopped${stopped.length > 0 ? ` (${stopped.join(', ')} stopped cleanly)` : ''}; finished runs ` +
        'are kept. Run the same command again to continue it.',
    );
    return 130;
  }
  if (failed.length > 0) {
    log(
      `${failed.length} run(s) did not finish: ${failed.join(', ')}. Run the same command again to resume them.`,
    );
    return 1;
  }
  return 0;
}

/**
 * Starts every wanted run within `limit`. A baseline run matches the spend of the `reference` (the first
 * evolving configuration) on its seed, so it waits for that run outside the limit, which the reference
 * needs to run.
 */
function scheduleRuns(
  tally: Tally,
  wanted: readonly { config: RunArgs['configs'][number]; seed: number }[],
  reference: RunArgs['configs'][number],
  limit: ReturnType<typeof pLimit>,
): Promise<void>[] {
  const referenceDone = new Map<number, Promise<void>>();
  const jobs: Promise<void>[] = [];
  for (const { config, seed } of wanted) {
    if (baselineOf(config) === null) {
      const job = limit(() => runOne(tally, config, seed));
      if (config === reference) referenceDone.set(seed, job);
      jobs.push(job);
    } else {
      const after = referenceDone.get(seed) ?? Promise.resolve();
      jobs.push(after.then(() => limit(() => runBaselineOne(tally, config, seed, reference))));
    }
  }
  return jobs;
}

/** One configuration with one seed: started, resumed, or skipped when it finished or another process runs it. */
async function runOne(tally: Tally, config: RunArgs['configs'][number], seed: number): Promise<void> {
  if (tally.signal.aborted) return;
  const { dir, args, lock } = tally;
  const id = runIdOf(config.name, seed);
  const runDir = path.join(dir, 'runs', id);
  const state = runState(runDir);
  const count = (): string => `[${++tally.finished}/${tally.wanted}]`;
  if (state === 'done') {
    if (await heldOut(tally, id)) log(`${count()} ${id}: already finished`);
    else log(`${count()} ${id}: finished, but its held-out evaluation did not`);
    return;
  }
  const holder = runHolder(runDir);
  if (holder !== null) {
    tally.failed.push(id);
    log(
      `${count()} ${id}: not run: process ${holder}, which this experiment did not ` +
        `start, is running it. Stop it (kill ${holder}), then run the experiment again.`,
    );
    return;
  }
  const fresh = state === null && !existsSync(runDir);
  const common = [...args.loopArgs, ...config.args, '--seed', String(seed), '--json', '--quiet'];
  const loopArgs = fresh
    ? [...common, '--out', path.join(dir, 'runs'), '--run-id', id]
    : [...common, '--resume', runDir];
  log(`${id}: ${fresh ? 'starting' : `resuming (${state ?? 'no archive yet'})`}`);
  const startedAt = Date.now();
  const run = startRun(loopArgs, path.join(dir, 'logs', id));
  tally.running.set(id, run);
  if (run.pid !== undefined) {
    lock.runs[id] = run.pid;
    writeExperimentLock(dir, lock);
  }
  const watch = watchRun(id, runDir, log);
  const code = await run.done;
  watch.stop();
  tally.running.delete(id);
  delete lock.runs[id];
  writeExperimentLock(dir, lock);
  const took = formatDuration(Date.now() - startedAt);
  const ok = code === 0 && runState(runDir) === 'done' && (await heldOut(tally, id));
  const where = path.join(dir, 'logs', `${id}.log`);
  if (ok) log(`${count()} ${id}: done in ${took}, ${bestOf(runDir)}`);
  else if (tally.signal.aborted) {
    tally.stopped.push(id);
    log(`${id}: stopped after ${took} (finished work is kept; see ${where})`);
  } else {
    tally.failed.push(id);
    log(`${count()} ${id}: failed after ${took} (exit ${code}; see ${where})`);
  }
}

/** Evaluates a finished run's best and variant 0 on the test split where missing; false (noted) on failure. */
async function heldOut(tally: Tally, id: string): Promise<boolean> {
  const runDir = path.join(tally.dir, 'runs', id);
  const failure = await evaluateHeldOut(runDir, path.join(tally.dir, 'logs', id), tally.signal);
  if (failure === null) return true;
  if (!tally.signal.aborted) {
    tally.failed.push(id);
    log(`${id}: ${failure}; see ${path.join(tally.dir, 'logs', `${id}.held-out.log`)}`);
  }
  return false;
}

/** One baseline configuration with one seed, once the reference run of that seed has finished. */
async function runBaselineOne(
  tally: Tally,
  config: RunArgs['configs'][number],
  seed: number,
  reference: RunArgs['configs'][number],
): Promise<void> {
  if (tally.signal.aborted) return;
  const { dir } = tally;
  const id = runIdOf(config.name, seed);
  const runDir = path.join(dir, 'runs', id);
  const count = (): string => `[${++tally.finished}/${tally.wanted}]`;
  if (readBaseline(runDir)?.done === true) {
    log(`${count()} ${id}: already finished`);
    return;
  }
  const referenceId = runIdOf(reference.name, seed);
  const referenceDir = path.join(dir, 'runs', referenceId);
  if (runState(referenceDir) !== 'done') {
    tally.failed.push(id);
    log(`${count()} ${id}: not run: it matches the spend of ${referenceId}, which has not finished.`);
    return;
  }
  log(
    `${id}: ${existsSync(runDir) ? 'resuming' : 'starting'} (${config.args.join(' ')}, the spend of ${referenceId})`,
  );
  const startedAt = Date.now();
  const ok = await runBaseline({
    runDir,
    referenceDir,
    seed,
    loopArgs: tally.args.loopArgs,
    logBase: path.join(dir, 'logs', id),
    log,
    started(run) {
      if (run === null) tally.running.delete(id);
      else tally.running.set(id, run);
    },
    signal: tally.signal,
  });
  const took = formatDuration(Date.now() - startedAt);
  const where = path.join(dir, 'logs', `${id}.log`);
  if (ok) {
    const record = readBaseline(runDir);
    log(`${count()} ${id}: done in ${took}, ${record?.attempts.length ?? 0} attempt(s)`);
  } else if (tally.signal.aborted) {
    tally.stopped.push(id);
    log(`${id}: stopped after ${took} (finished attempts are kept; see ${where})`);
  } else {
    tally.failed.push(id);
    log(`${count()} ${id}: an attempt failed after ${took} (see ${where})`);
  }
}
