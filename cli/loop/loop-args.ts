import path from 'node:path';
import yargs, { type Options } from 'yargs';
import { type DomainRef, unknownDomain } from '../../domains/index.ts';
import {
  DEFAULT_SIM_RETRY_MS,
  RUN_CONFIG_FIELDS,
  type RunConfig,
  RunConfigSchema,
} from '../../harness/run/index.ts';
import { datasetFlags, unreadDatasetFlags, withDatasetFlags } from '../shared/dataset-flags.ts';
import { helpWidth, parseOrExplain } from '../shared/parse-usage.ts';
import { UsageError } from '../shared/usage-error.ts';
import { configUsageError } from './config-error.ts';
import { COMMAND_OPTIONS } from './loop-options.ts';
import { optionOf, settingOptions, settingsFromLine } from './setting-options.ts';

export { optionOf } from './setting-options.ts';

/**
 * What the command line says: the run's configuration (the harness's schema) plus how this command prints and
 * where the run lives. `from` and `resume` are resolved against the runs on disk by the command.
 */
export type LoopConfig = Omit<RunConfig, 'from'> & {
  out: string;
  runId: string | null;
  json: boolean;
  quiet: boolean;
  /** `--resume RUN`: a run id in --out, or a run folder. */
  resume: string | null;
  /** `--from RUN:VARIANT`, unresolved. */
  from: string | null;
  /** The options given on the command line (long names without dashes), so a resume can compare them. */
  given: string[];
  /** `--estimate`: print the estimate and exit. */
  estimate: boolean;
  /** `--estimate-from RUN`, unresolved. */
  estimateFrom: string | null;
  /** `--pilot N`: measure the estimate's rates on a short run of N generations first; null without. */
  pilot: PilotFlags | null;
};

/** The pilot run `--estimate --pilot` makes: its generations, tasks per split of each domain, and cap. */
export interface PilotFlags {
  generations: number;
  tasks: number;
  budgetUsd: number;
}

export { DEFAULT_SIM_RETRY_MS };

export const LOOP_USAGE = `generate-loop --domains <name[,name...]> [options]

Evolves agent variants: each generation picks a parent from the archive, lets
the parent's MetaAgent edit a copy of its own code in a git worktree, checks the
child, and evaluates its TaskAgent on the domains. Everything is recorded in
<out>/<run-id>/ (archive.sqlite, variants.git, logs/). Without an API key the
offline simulated model 'sim' is used.`;

function builder(argv: string[]) {
  return (
    withDatasetFlags(yargs(argv))
      .scriptName('generate-loop')
      .usage(LOOP_USAGE)
      // The settings' values are read by their table (settingsFromLine), so their types are not yargs'.
      .options(settingOptions() as Record<never, Options>)
      .options(COMMAND_OPTIONS)
      .help(false)
      .version(false)
      .option('help', { type: 'boolean', alias: 'h', describe: 'show this help' })
      .option('version', { type: 'boolean', describe: 'print the version of hyperagents-ts' })
      .strict()
      .exitProcess(false)
      .wrap(helpWidth())
  );
}

type ParsedLoopArgs = Awaited<ReturnType<ReturnType<typeof builder>['parseAsync']>>;

export async function loopHelp(): Promise<string> {
  return builder([]).getHelp();
}

/** Longest `--run-id`: it names a folder, and file names inside it must stay under the system's limit. */
export const MAX_RUN_ID_LENGTH = 100;

/** What the machine knows, to check names against: the domain folders, the models, the default model. */
export interface LoopKnown {
  domains: readonly string[];
  checkModel: (id: string) => string | null;
  defaultModel: string;
}

/**
 * Parses the command line: yargs splits it, the run configuration's schema checks every value, and the
 * names are checked against what is known here. Pure apart from reading nothing. Throws UsageError with a
 * message for the user.
 */
export async function parseLoopArgs(
  argv: string[],
  known: LoopKnown,
): Promise<LoopConfig | 'help' | 'version'> {
  const parsed = await parseOrExplain(builder(argv), 'generate-loop', argv);
  if (parsed.help === true) return 'help';
  if (parsed.version === true) return 'version';
  const resume = parsed.resume ?? null;
  const input = configInput(parsed, known.defaultModel);
  if ((input.domains as string[]).length === 0 && resume === null) {
    throw new UsageError(`--domains is required. Known domains: ${known.domains.join(', ')}.`);
  }
  const config = validate(input, resume !== null);
  const unknown = unknownDomain(config.domains, known.domains);
  if (unknown !== null) throw new UsageError(unknown);
  const unread = resume === null ? unreadDatasetFlags(config.domains, config.dataset) : null;
  if (unread !== null) throw new UsageError(unread);
  for (const id of new Set([config.metaModel, config.taskModel])) {
    const problem = known.checkModel(id);
    if (problem !== null) throw new UsageError(problem);
  }
  return {
    ...config,
    out: commandLineOut(parsed.out),
    runId: checkedRunId(parsed['run-id']),
    json: parsed.json,
    quiet: parsed.quiet,
    resume,
    from: parsed.from ?? null,
    given: givenOptions(argv),
    estimate: parsed.estimate,
    estimateFrom: parsed['estimate-from'] ?? null,
    pilot: pilotFlags(parsed, givenOptions(argv), config.replay),
  };
}

/** `--pilot N` with its sample and cap, or null; refuses what a pilot cannot go with. */
function pilotFlags(parsed: ParsedLoopArgs, given: string[], replay: string | null): PilotFlags | null {
  if (parsed.pilot === undefined) {
    const orphan = given.find((name) => name === 'pilot-tasks' || name === 'pilot-budget-usd');
    if (orphan !== undefined)
      throw new UsageError(`--${orphan} sets the pilot run: give it with --estimate --pilot GENERATIONS.`);
    return null;
  }
  const generations = parsed.pilot;
  if (!Number.isInteger(generations) || generations < 1)
    throw new UsageError(
      `--pilot is the pilot run's generations: give a whole number of 1 or more, such as 2.`,
    );
  if (!parsed.estimate)
    throw new UsageError(
      '--pilot measures the estimate on a short run and then exits: give it with --estimate.',
    );
  if (parsed['estimate-from'] !== undefined)
    throw new UsageError(
      '--pilot and --estimate-from both give the rates of the estimate: give one of them.',
    );
  if (parsed.resume !== undefined)
    throw new UsageError(
      '--pilot measures a new run; a resumed run is estimated from its own finished generations: leave --pilot out.',
    );
  if (replay !== null)
    throw new UsageError(
      '--pilot measures real model calls, and --replay makes none: estimate a replay from the recorded run with --estimate-from RUN.',
    );
  const tasks = parsed['pilot-tasks'];
  if (!Number.isInteger(tasks) || tasks < 1)
    throw new UsageError(
      '--pilot-tasks is the tasks per split of each domain: give a whole number of 1 or more.',
    );
  const budgetUsd = parsed['pilot-budget-usd'];
  if (!Number.isFinite(budgetUsd) || budgetUsd <= 0)
    throw new UsageError(
      '--pilot-budget-usd is the most the pilot may spend: give an amount in USD above 0.',
    );
  return { generations, tasks, budgetUsd };
}

/** The run configuration as the command line gives it, unchecked: each option in its field. */
function configInput(parsed: ParsedLoopArgs, defaultModel: string): Record<string, unknown> {
  return { ...settingsFromLine(parsed, defaultModel), dataset: datasetFlags(parsed) };
}

/**
 * The run configuration's schema checks every value; its first complaint is told with the option's name. A
 * resumed run takes its domains from its archive: the command line need not name them.
 */
function validate(input: Record<string, unknown>, resuming: boolean): Omit<RunConfig, 'from'> {
  const result = RunConfigSchema.safeParse({ ...input, from: null });
  if (result.success) return runConfigOf(result.data);
  const skipDomains = resuming && (input.domains as string[]).length === 0;
  const [problem] = result.error.issues.filter((issue) => !(skipDomains && issue.path[0] === 'domains'));
  if (problem !== undefined) throw configUsageError(problem, input, optionOf);
  // Only the missing domains were refused: every other value is valid.
  const rest = RunConfigSchema.parse({ ...input, domains: ['resumed'], from: null });
  return { ...runConfigOf(rest), domains: [] as DomainRef[] };
}

/** The fields of the run configuration in `source`, and no others (what is stored must be only these). */
export function runConfigOf(source: Omit<RunConfig, 'from'>): Omit<RunConfig, 'from'> {
  const fields = RUN_CONFIG_FIELDS.filter((key) => key !== 'from');
  return Object.fromEntries(fields.map((key) => [key, source[key]])) as Omit<RunConfig, 'from'>;
}

function commandLineOut(out: string): string {
  if (out.trim() === '')
    throw new UsageError('--out is empty: give the folder the run goes in (default ./runs).');
  return path.resolve(out);
}

function checkedRunId(runId: string | undefined): string | null {
  if (runId === undefined) return null;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(runId)) {
    throw new UsageError(
      `--run-id may hold only letters, digits, dots, dashes and underscores, not "${runId}".`,
    );
  }
  if (runId.length > MAX_RUN_ID_LENGTH) {
    throw new UsageError(
      `--run-id is ${runId.length} characters long; it names the run's folder, so give at most ${MAX_RUN_ID_LENGTH}.`,
    );
  }
  return runId;
}

/** Long option names on the command line, without dashes or values (`--no-x` counts as `x`). */
export function givenOptions(argv: readonly string[]): string[] {
  const names = argv
    .filter((a) => a.startsWith('--') && a.length > 2)
    .map((a) => a.slice(2).split('=')[0]!)
    .map((a) => (a.startsWith('no-') ? a.slice(3) : a));
  return [...new Set(names)];
}
