import { UsageError } from '../shared/usage-error.ts';
import { baselineOf } from './experiment-baseline.ts';

/** One configuration of an experiment: a name and the generate-loop options it adds. */
export interface ExperimentConfig {
  name: string;
  args: string[];
}

export type ExperimentArgs =
  | {
      kind: 'run';
      dir: string;
      seeds: number[];
      configs: ExperimentConfig[];
      /** generate-loop options every run shares (after `--`). */
      loopArgs: string[];
      jobs: number | undefined;
      target: number | undefined;
      json: boolean;
    }
  | { kind: 'report'; dir: string; target: number | undefined; json: boolean }
  | { kind: 'help' };

export const EXPERIMENT_USAGE = `hyperagents experiment [options] -- GENERATE-LOOP OPTIONS
hyperagents experiment report DIR [--target X] [--json]

Runs every configuration with every seed (one generate-loop run each, several
at once), then compares the configurations: best score per run, its median with
a bootstrap 95% interval, the area under the best-so-far curve, evaluated tasks
and cost, and per pair the difference with a one-sided Mann-Whitney U test. A
finished run is not run again; an unfinished one is resumed. Each finished
run's best and variant 0 are then evaluated on the test split, which no agent
or selection sees: HELD-OUT is the best's test score minus variant 0's.
"report" re-reads finished runs.

Options:
  --seeds LIST        seeds, as 1-8 or 1,2,5 or 1-4,9 (default 1-4)
  --config NAME=OPTS  a configuration: its name and the generate-loop options it
                      adds, e.g. --config full= --config frozen=--freeze-meta
                      --config no-archive="--parent-selection latest"
                      (repeatable; the first is the reference; default: full,
                      frozen and no-archive as in these examples). Instead of
                      options, a baseline: --config baseline=best-of-k spends
                      what the first evolving configuration's run of the same
                      seed spent (tasks on the sim, else USD) on attempts of
                      variant 0 alone, and keeps the best
  --out DIR           the experiment folder (default ./experiment): runs/,
                      logs/, experiment.json
  --jobs N            runs at once (default: half the CPU cores, at least 1)
  --target X          also report the evaluated tasks until the best score
                      first reaches X
  --json              one JSON object on stdout instead of the tables

Example:
  hyperagents experiment --seeds 1-8 --config full= \\
    --config frozen=--freeze-meta \\
    --config no-archive="--parent-selection latest" \\
    -- --domains arithmetic --model sim --generations 30`;

/** Options the experiment sets per run itself; a user value would fight it. */
const MANAGED = ['--seed', '--run-id', '--out', '--resume', '--json', '--from'];

export const DEFAULT_CONFIGS: ExperimentConfig[] = [
  { name: 'full', args: [] },
  { name: 'frozen', args: ['--freeze-meta'] },
  { name: 'no-archive', args: ['--parent-selection', 'latest'] },
];

/** "1-8", "1,2,5", "1-4,9" → distinct seeds in order given. */
export function parseSeeds(text: string): number[] {
  const seeds: number[] = [];
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    const from = Number(m?.[1]);
    const to = m?.[2] === undefined ? from : Number(m[2]);
    if (!m || to < from || to - from > 10_000) {
      throw new UsageError(
        `--seeds "${text}" is not a list of seeds. Write whole numbers and ranges separated by commas, e.g. 1-8 or 1,2,5 or 1-4,9.`,
      );
    }
    for (let s = from; s <= to; s++) if (!seeds.includes(s)) seeds.push(s);
  }
  return seeds;
}

/** "name=opts" → a configuration; opts are split on whitespace. */
export function parseConfig(text: string): ExperimentConfig {
  const eq = text.indexOf('=');
  const name = eq < 0 ? '' : text.slice(0, eq);
  if (!/^[a-z0-9][a-z0-9_.-]*$/i.test(name)) {
    throw new UsageError(
      `--config "${text}" needs the form NAME=OPTIONS, with a name of letters, digits, "-", "_" or "." ` +
        '(it names the runs), e.g. --config full= or --config frozen=--freeze-meta.',
    );
  }
  const args = text
    .slice(eq + 1)
    .split(/\s+/)
    .filter((a) => a.length > 0);
  refuseManaged(args, `--config ${name}`);
  baselineOf({ name, args });
  return { name, args };
}

function refuseManaged(args: readonly string[], where: string): void {
  const bad = args.find((a) => MANAGED.includes(a.split('=')[0]!));
  if (bad !== undefined) {
    throw new UsageError(
      `${where} sets ${bad.split('=')[0]}, which the experiment sets for each run itself (${MANAGED.join(', ')}). ` +
        'Leave it out; choose seeds with --seeds and the folder with --out.',
    );
  }
}

function positiveNumber(flag: string, text: string | undefined, integer: boolean): number {
  const n = Number(text);
  if (
    text === undefined ||
    text.trim() === '' ||
    !Number.isFinite(n) ||
    n <= 0 ||
    (integer && !Number.isInteger(n))
  ) {
    throw new UsageError(
      `${flag} needs a ${integer ? 'whole number' : 'number'} above 0, got "${text ?? ''}".`,
    );
  }
  return n;
}

/** Parses the words after `hyperagents experiment`. Pure. */
export function parseExperimentArgs(argv: readonly string[]): ExperimentArgs {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? [...argv] : argv.slice(0, dash);
  const loopArgs = dash < 0 ? [] : argv.slice(dash + 1);
  if (own.includes('--help') || own.includes('-h')) return { kind: 'help' };
  const report = own[0] === 'report';
  const words = report ? own.slice(1) : own;
  let dir: string | undefined;
  let seeds: number[] | undefined;
  const configs: ExperimentConfig[] = [];
  let jobs: number | undefined;
  let target: number | undefined;
  let json = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const [flag, inline] =
      word.startsWith('--') && word.includes('=')
        ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
        : [word, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = words[++i];
      if (next === undefined)
        throw new UsageError(`${flag} needs a value. Run hyperagents experiment --help.`);
      return next;
    };
    if (flag === '--json') json = true;
    else if (flag === '--target') target = positiveNumber('--target', value(), false);
    else if (flag === '--out' && !report) dir = value();
    else if (flag === '--seeds' && !report) seeds = parseSeeds(value());
    else if (flag === '--jobs' && !report) jobs = positiveNumber('--jobs', value(), true);
    else if (flag === '--config' && !report) {
      const config = parseConfig(value());
      if (configs.some((c) => c.name === config.name))
        throw new UsageError(
          `--config ${config.name} is given twice; each configuration needs its own name.`,
        );
      configs.push(config);
    } else if (report && !word.startsWith('-') && dir === undefined) dir = word;
    else {
      throw new UsageError(
        `experiment${report ? ' report' : ''} does not take "${word}". ` +
          (report
            ? 'It takes the experiment folder and optionally --target X and --json.'
            : 'Put generate-loop options after "--". Run hyperagents experiment --help.'),
      );
    }
  }
  if (target !== undefined && target > 1)
    throw new UsageError(`--target is a score between 0 and 1, got ${target}.`);
  if (report) {
    if (dir === undefined)
      throw new UsageError(
        'experiment report needs the experiment folder: hyperagents experiment report DIR.',
      );
    if (loopArgs.length > 0)
      throw new UsageError('experiment report re-reads finished runs; it takes no generate-loop options.');
    return { kind: 'report', dir, target, json };
  }
  refuseManaged(loopArgs, 'the generate-loop options after "--"');
  return {
    kind: 'run',
    dir: dir ?? './experiment',
    seeds: seeds ?? [1, 2, 3, 4],
    configs: configs.length > 0 ? configs : DEFAULT_CONFIGS,
    loopArgs,
    jobs,
    target,
    json,
  };
}

export function runIdOf(config: string, seed: number): string {
  return `${config}-s${seed}`;
}
