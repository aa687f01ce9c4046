import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { z } from 'zod';
import {
  type ExperimentSummary,
  type RunFigures,
  runFigures,
  summarizeExperiment,
} from '../archive/experiment-summary.ts';
import { openArchiveReader, type RunState } from '../archive/read.ts';
import { EXPERIMENT_USAGE, type ExperimentConfig, parseExperimentArgs, runIdOf } from './experiment-args.ts';
import { renderExperiment } from './experiment-table.ts';
import { checkLoopArgs } from './loop-prepare.ts';
import { UsageError } from './usage-error.ts';

const GENERATE_LOOP = fileURLToPath(new URL('../bin/generate-loop.mjs', import.meta.url));

/** experiment.json: what the folder's runs were started with, so a rerun resumes the same experiment. */
const Manifest = z.object({
  seeds: z.array(z.number().int()),
  configs: z.array(z.object({ name: z.string(), args: z.array(z.string()) })),
  loopArgs: z.array(z.string()),
});
type Manifest = z.infer<typeof Manifest>;

const MANIFEST = 'experiment.json';

function readManifest(dir: string): Manifest | null {
  const file = path.join(dir, MANIFEST);
  if (!existsSync(file)) return null;
  const parsed = Manifest.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new UsageError(
      `${file} is not an experiment manifest this version can read; use another --out folder.`,
    );
  return parsed.data;
}

/**
 * The manifest of this invocation merged with the one already in the folder: seeds and configurations
 * may be added, but shared options and an existing configuration's options must stay the same, since
 * finished runs are kept.
 */
export function mergeManifest(stored: Manifest | null, wanted: Manifest, dir: string): Manifest {
  if (stored === null) return wanted;
  const same = (a: readonly string[], b: readonly string[]) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(stored.loopArgs, wanted.loopArgs)) {
    throw new UsageError(
      `${dir} holds an experiment run with other generate-loop options (${stored.loopArgs.join(' ') || 'none'}; ` +
        `now ${wanted.loopArgs.join(' ') || 'none'}). Its finished runs would not compare; use another --out folder.`,
    );
  }
  const configs = [...stored.configs];
  for (const c of wanted.configs) {
    const old = configs.find((o) => o.name === c.name);
    if (old === undefined) configs.push(c);
    else if (!same(old.args, c.args)) {
      throw new UsageError(
        `${dir} already has configuration "${c.name}" with options "${old.args.join(' ')}", not "${c.args.join(' ')}". ` +
          'Give the new one another name, or use another --out folder.',
      );
    }
  }
  const seeds = [...stored.seeds, ...wanted.seeds.filter((s) => !stored.seeds.includes(s))];
  return { seeds, configs, loopArgs: stored.loopArgs };
}

function runState(runDir: string): RunState | null {
  const file = path.join(runDir, 'archive.sqlite');
  if (!existsSync(file)) return null;
  const reader = openArchiveReader(file);
  try {
    return reader.run()?.state ?? null;
  } finally {
    reader.close();
  }
}

function figuresOf(runDir: string): RunFigures | null {
  const reader = openArchiveReader(path.join(runDir, 'archive.sqlite'));
  try {
    return runFigures(reader);
  } finally {
    reader.close();
  }
}

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** One generate-loop child: stdout (its --json summary) and stderr go to files under logs/. */
function runLoop(args: string[], logBase: string): Promise<number> {
  const out = openSync(`${logBase}.json`, 'w');
  const err = openSync(`${logBase}.log`, 'a');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [GENERATE_LOOP, ...args], { stdio: ['ignore', out, err] });
    const done = (code: number) => {
      closeSync(out);
      closeSync(err);
      resolve(code);
    };
    child.on('error', () => done(1));
    child.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

/** Summarises the finished runs of a manifest, in its configuration order; unfinished ones are left out. */
function summarize(
  dir: string,
  manifest: Manifest,
  target: number | undefined,
): { summary: ExperimentSummary; missing: string[] } {
  const missing: string[] = [];
  const groups = manifest.configs.map((c: ExperimentConfig) => ({
    name: c.name,
    runs: manifest.seeds.flatMap((seed) => {
      const runDir = path.join(dir, 'runs', runIdOf(c.name, seed));
      const figures = runState(runDir) === 'done' ? figuresOf(runDir) : null;
      if (figures === null) missing.push(runIdOf(c.name, seed));
      return figures === null ? [] : [figures];
    }),
  }));
  return { summary: summarizeExperiment(groups, target), missing };
}

function print(summary: ExperimentSummary, json: boolean, target: number | undefined): void {
  process.stdout.write(json ? `${JSON.stringify(summary)}\n` : `${renderExperiment(summary, target)}\n`);
}

/** `hyperagents experiment ...`. Returns the exit code: 1 when a run failed or is missing. */
export async function experimentCommand(argv: string[]): Promise<number> {
  const args = parseExperimentArgs(argv);
  if (args.kind === 'help') {
    process.stdout.write(`${EXPERIMENT_USAGE}\n`);
    return 0;
  }
  const dir = path.resolve(args.dir);
  if (args.kind === 'report') {
    const manifest = readManifest(dir);
    if (manifest === null)
      throw new UsageError(
        `${dir} has no ${MANIFEST}: it is not an experiment folder (made by hyperagents experiment --out DIR).`,
      );
    const { summary, missing } = summarize(dir, manifest, args.target);
    if (missing.length > 0) log(`Not finished (left out): ${missing.join(', ')}.`);
    print(summary, args.json, args.target);
    return 0;
  }
  for (const config of args.configs) {
    try {
      await checkLoopArgs([...args.loopArgs, ...config.args, '--seed', String(args.seeds[0] ?? 1)]);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      throw new UsageError(`configuration "${config.name}": ${error.message}`);
    }
  }
  const manifest = mergeManifest(
    readManifest(dir),
    { seeds: args.seeds, configs: args.configs, loopArgs: args.loopArgs },
    dir,
  );
  mkdirSync(path.join(dir, 'runs'), { recursive: true });
  mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const tmp = path.join(dir, `${MANIFEST}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, path.join(dir, MANIFEST));

  // Seed by seed, so an interrupted experiment has every configuration on the seeds it finished.
  const wanted = args.seeds.flatMap((seed) => args.configs.map((c) => ({ config: c, seed })));
  const jobs = args.jobs ?? Math.max(1, Math.floor(os.availableParallelism() / 2));
  const limit = pLimit(jobs);
  log(
    `Experiment ${dir}: ${args.configs.length} configuration(s) x ${args.seeds.length} seed(s), ${jobs} at once.`,
  );
  let finished = 0;
  const failed: string[] = [];
  await Promise.all(
    wanted.map(({ config, seed }) =>
      limit(async () => {
        const id = runIdOf(config.name, seed);
        const runDir = path.join(dir, 'runs', id);
        const state = runState(runDir);
        if (state === 'done') {
          log(`[${++finished}/${wanted.length}] ${id}: already finished`);
          return;
        }
        const common = [...args.loopArgs, ...config.args, '--seed', String(seed), '--json', '--quiet'];
        const loopArgs =
          state === null && !existsSync(runDir)
            ? [...common, '--out', path.join(dir, 'runs'), '--run-id', id]
            : [...common, '--resume', runDir];
        log(
          `${id}: ${state === null && !existsSync(runDir) ? 'starting' : `resuming (${state ?? 'no archive yet'})`}`,
        );
        const code = await runLoop(loopArgs, path.join(dir, 'logs', id));
        const ok = code === 0 && runState(runDir) === 'done';
        if (!ok) failed.push(id);
        log(
          `[${++finished}/${wanted.length}] ${id}: ${ok ? 'done' : `failed (exit ${code}; see ${path.join(dir, 'logs', `${id}.log`)})`}`,
        );
      }),
    ),
  );
  const { summary } = summarize(dir, { ...manifest, configs: args.configs, seeds: args.seeds }, args.target);
  print(summary, args.json, args.target);
  if (failed.length > 0) {
    log(
      `${failed.length} run(s) did not finish: ${failed.join(', ')}. Run the same command again to resume them.`,
    );
    return 1;
  }
  return 0;
}
