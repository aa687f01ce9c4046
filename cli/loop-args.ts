import path from 'node:path';
import yargs from 'yargs';
import { DOMAIN_REF_HELP, formatDomainRef, parseDomainRefs } from '../domains/reference.ts';
import { PARENT_SELECTIONS, type ParentSelection } from '../harness/generation/index.ts';
import {
  DEFAULT_LIMITS,
  type ResourceLimits,
  SANDBOX_MODES,
  type SandboxMode,
} from '../harness/process/index.ts';
import { type RunConfig, RunConfigSchema, type SimConfig } from '../harness/run/index.ts';
import { closeMatches } from '../llm/close-matches.ts';
import {
  FAULT_KINDS,
  type FaultKind,
  LATENCY_SPEC_HELP,
  type LatencySpec,
  parseFaultKinds,
  parseLatencySpec,
} from '../llm/sim/faults.ts';
import { configUsageError } from './config-error.ts';
import { datasetFlags, withDatasetFlags } from './dataset-flags.ts';
import { helpWidth, parseOrExplain } from './parse-usage.ts';
import { UsageError } from './usage-error.ts';

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
};

export const DEFAULT_SIM_RETRY_MS = 1000;

export const LOOP_USAGE = `generate-loop --domains <name[,name...]> [options]

Evolves agent variants: each generation picks a parent from the archive, lets
the parent's MetaAgent edit a copy of its own code in a git worktree, checks the
child, and evaluates its TaskAgent on the domains. Everything is recorded in
<out>/<run-id>/ (archive.sqlite, variants.git, logs/). Without an API key the
offline simulated model 'sim' is used.`;

function builder(argv: string[]) {
  return withDatasetFlags(yargs(argv))
    .scriptName('generate-loop')
    .usage(LOOP_USAGE)
    .option('domains', {
      type: 'string',
      requiresArg: true,
      array: true,
      describe: `benchmark domains, comma-separated: ${DOMAIN_REF_HELP} (see \`hyperagents domains\`)`,
    })
    .option('model', {
      type: 'string',
      requiresArg: true,
      describe:
        'model for both roles, e.g. anthropic/claude-sonnet-4-6 or sim (hyperagents models lists them). Default: the first of Anthropic, OpenAI, Google whose key is set, else sim',
    })
    .option('meta-model', {
      type: 'string',
      requiresArg: true,
      describe: 'model of the MetaAgent (overrides --model)',
    })
    .option('task-model', {
      type: 'string',
      requiresArg: true,
      describe: 'model of the TaskAgent (overrides --model)',
    })
    .option('generations', { type: 'number', requiresArg: true, default: 10, describe: 'children to create' })
    .option('parallel', {
      type: 'number',
      requiresArg: true,
      default: 1,
      describe: 'generations run at once',
    })
    .option('eval-workers', {
      type: 'number',
      requiresArg: true,
      default: 8,
      describe: 'tasks evaluated at once, shared by the generations in flight',
    })
    .option('tasks-per-worker', {
      type: 'number',
      requiresArg: true,
      default: 8,
      describe: 'tasks one TaskAgent process runs at once; 1 for a TaskAgent that answers one task at a time',
    })
    .option('eval-samples', {
      type: 'number',
      requiresArg: true,
      describe: 'tasks per split at most (default: all)',
    })
    .option('staged-samples', {
      type: 'number',
      requiresArg: true,
      describe: 'tasks per split in the staged evaluation (default: the domain’s)',
    })
    .option('skip-staged-eval', {
      type: 'boolean',
      default: false,
      describe: 'go straight to the full evaluation',
    })
    .option('eval-test', {
      type: 'boolean',
      default: false,
      describe: 'also evaluate the test split (never shown to agents)',
    })
    .option('parent-selection', {
      type: 'string',
      requiresArg: true,
      default: 'score_child_prop',
      describe: PARENT_SELECTIONS.join(' | '),
    })
    .option('budget-usd', {
      type: 'number',
      requiresArg: true,
      describe:
        'most USD the run may spend on models. A call whose input would pass it beside the spend and what ' +
        'calls in flight may cost waits for them; once nothing is in flight and it still would, the call is ' +
        'refused (so a run ends at most one reply over the budget); the generation under way is then recorded ' +
        'as failed (not scored) and the run ends normally, exit code 0, with "budget reached: $X of $Y spent"',
    })
    .option('out', {
      type: 'string',
      requiresArg: true,
      default: './runs',
      describe: 'folder that holds the runs',
    })
    .option('run-id', {
      type: 'string',
      requiresArg: true,
      describe: 'name of the run folder (default: a timestamp)',
    })
    .option('sandbox', {
      type: 'string',
      requiresArg: true,
      default: 'auto',
      describe: SANDBOX_MODES.join(' | '),
    })
    .options(LIMIT_FLAGS)
    .option('seed', {
      type: 'number',
      requiresArg: true,
      default: 0,
      describe: 'seed of parent selection and the simulated model',
    })
    .option('sim-script', {
      type: 'string',
      requiresArg: true,
      describe: 'replay scripted replies from a JSON file (with --model sim)',
    })
    .option('record', {
      type: 'string',
      requiresArg: true,
      describe:
        'save every model response to FILE (JSON Lines; a new file) so the run can be repeated offline with ' +
        '--replay. Task results cached by earlier runs are not reused, so every call is recorded',
    })
    .option('replay', {
      type: 'string',
      requiresArg: true,
      describe:
        'answer every model call from FILE, written by a run with --record, instead of calling a model: no key, ' +
        'no network, no cost. Give the same options and --seed as the recorded run; a call it lacks fails',
    })
    .option('sim-latency-ms', {
      type: 'string',
      requiresArg: true,
      describe:
        `simulated model: delay per call, ${LATENCY_SPEC_HELP}; a lognormal's MEDIAN is in ms and SIGMA ` +
        '(default 0.5) widens the spread. Drawn from --seed',
    })
    .option('sim-fault-rate', {
      type: 'number',
      requiresArg: true,
      default: 0,
      describe:
        'simulated model: share of calls (0 to below 1) that fail the way real providers do; they are retried ' +
        'like real failures, so the scores do not change',
    })
    .option('sim-faults', {
      type: 'string',
      requiresArg: true,
      describe:
        'which failures --sim-fault-rate injects, comma-separated: 429 (rate limit, asks to wait), 500 and 529 ' +
        `(server errors), timeout, truncated and malformed (a cut-off or broken reply). Default: all, ${FAULT_KINDS.join(',')}`,
    })
    .option('sim-price-per-mtok', {
      type: 'number',
      requiresArg: true,
      default: 0,
      describe:
        'simulated model: a nominal price in USD per million tokens, so --budget-usd and costs work offline',
    })
    .option('sim-retry-ms', {
      type: 'number',
      requiresArg: true,
      default: DEFAULT_SIM_RETRY_MS,
      describe:
        'simulated model: first wait in ms before a simulated failure is retried (doubling each time), and what a ' +
        'simulated 429 asks to wait; small values make fault tests fast',
    })
    .option('resume', {
      type: 'string',
      requiresArg: true,
      describe:
        'continue the run RUN (its id in --out, or its folder) at the step each generation was in, after Ctrl-C, a ' +
        'kill or a reboot. Finished work is kept; --generations, --budget-usd and --parallel may be changed',
    })
    .option('from', {
      type: 'string',
      requiresArg: true,
      describe:
        'transfer: start a new run whose variant 0 is the code of variant VARIANT of run RUN (RUN:VARIANT)',
    })
    .option('edit-select-parent', {
      type: 'boolean',
      default: false,
      describe:
        "each parent is chosen by the newest candidate's own agents/select-parent.ts (which the MetaAgent may " +
        'edit); if it fails, --parent-selection chooses and the reason is recorded',
    })
    .option('freeze-meta', {
      type: 'boolean',
      default: false,
      describe: 'ablation: the initial MetaAgent does every edit',
    })
    .option('task-timeout', { type: 'number', requiresArg: true, default: 300, describe: 'seconds per task' })
    .option('meta-timeout', {
      type: 'number',
      requiresArg: true,
      default: 3600,
      describe: 'seconds per MetaAgent run',
    })
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'print one JSON summary on stdout at the end',
    })
    .option('quiet', { type: 'boolean', default: false, describe: 'no progress lines' })
    .help(false)
    .version(false)
    .option('help', { type: 'boolean', alias: 'h', describe: 'show this help' })
    .option('version', { type: 'boolean', describe: 'print the version of hyperagents-ts' })
    .strict()
    .exitProcess(false)
    .wrap(helpWidth());
}

/** A resource-limit flag: its config field, with the field's default. */
const limitFlag = (field: keyof ResourceLimits, describe: string) => ({
  type: 'number' as const,
  requiresArg: true as const,
  default: DEFAULT_LIMITS[field],
  describe,
  field,
});

/** Limits on each agent process (and the tools run on agent files); enforcement is in the README. */
const LIMIT_FLAGS = {
  'memory-mb': limitFlag('memoryMb', 'memory of each agent process tree, MiB (needs cgroups)'),
  'max-processes': limitFlag('processes', 'processes at once per agent (cgroup pids, else RLIMIT_NPROC)'),
  'max-open-files': limitFlag('openFiles', 'open files per agent process'),
  'max-file-mb': limitFlag('fileSizeMb', 'largest file an agent may write or a variant commit, MiB'),
  'disk-mb': limitFlag(
    'diskMb',
    "an agent's private /tmp, and the most a MetaAgent may add to its worktree, MiB",
  ),
  'max-output-kb': limitFlag('outputKb', 'each log, transcript and answer is cut here (with a note), KiB'),
};

function limitsFrom(parsed: Record<keyof typeof LIMIT_FLAGS, number>): ResourceLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [flag, { field }] of Object.entries(LIMIT_FLAGS))
    limits[field] = parsed[flag as keyof typeof LIMIT_FLAGS];
  return limits;
}

/** The option that sets each field of the run configuration (a path, dotted), for messages that name it. */
const FIELD_OPTIONS: Record<string, string> = {
  generations: 'generations',
  parallel: 'parallel',
  evalWorkers: 'eval-workers',
  tasksPerWorker: 'tasks-per-worker',
  evalSamples: 'eval-samples',
  stagedSamples: 'staged-samples',
  budgetUsd: 'budget-usd',
  seed: 'seed',
  taskTimeoutSec: 'task-timeout',
  metaTimeoutSec: 'meta-timeout',
  'sim.latency': 'sim-latency-ms',
  'sim.faultRate': 'sim-fault-rate',
  'sim.pricePerMTok': 'sim-price-per-mtok',
  'sim.retryMs': 'sim-retry-ms',
  ...Object.fromEntries(Object.entries(LIMIT_FLAGS).map(([flag, { field }]) => [`limits.${field}`, flag])),
};

/** `--eval-workers` for `evalWorkers`, `--memory-mb` for `limits.memoryMb`: the longest known prefix. */
export function optionOf(path: readonly PropertyKey[]): string {
  for (let n = path.length; n > 0; n--) {
    const option = FIELD_OPTIONS[path.slice(0, n).join('.')];
    if (option !== undefined) return `--${option}`;
  }
  return path.join('.');
}

export async function loopHelp(): Promise<string> {
  return builder([]).getHelp();
}

/** Longest `--run-id`: it names a folder, and file names inside it must stay under the system's limit. */
export const MAX_RUN_ID_LENGTH = 100;

/**
 * Parses and validates the command line. Pure apart from reading nothing: model ids and domain names
 * are checked against the lists passed in. Throws UsageError with a message for the user.
 */
export async function parseLoopArgs(
  argv: string[],
  known: { domains: readonly string[]; checkModel: (id: string) => string | null; defaultModel: string },
): Promise<LoopConfig | 'help' | 'version'> {
  const parsed = await parseOrExplain(builder(argv), 'generate-loop', argv);
  if (parsed.help === true) return 'help';
  if (parsed.version === true) return 'version';

  const domains = (parsed.domains ?? [])
    .flatMap((d) => String(d).split(','))
    .map((d) => d.trim())
    .filter(Boolean);
  const resume = parsed.resume ?? null;
  if (domains.length === 0 && resume === null) {
    throw new UsageError(`--domains is required. Known domains: ${known.domains.join(', ')}.`);
  }
  const refs = parseDomainRefs(domains);
  if (!refs.ok) throw new UsageError(`--domains: ${refs.message}`);
  for (const ref of refs.refs) {
    if (ref.kind === 'named' && !known.domains.includes(ref.name)) {
      const near = closeMatches(ref.name, known.domains);
      throw new UsageError(
        `Unknown domain "${ref.name}"${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}. ` +
          `Known domains: ${known.domains.join(', ')}. A new domain is a folder domains/<name>/ with an index.ts; ` +
          'a CSV or JSONL file is dataset:FILE, a folder of exercises exercism:DIR.',
      );
    }
  }

  const metaModel = parsed['meta-model'] ?? parsed.model ?? known.defaultModel;
  const taskModel = parsed['task-model'] ?? parsed.model ?? known.defaultModel;
  for (const id of new Set([metaModel, taskModel])) {
    const problem = known.checkModel(id);
    if (problem !== null) throw new UsageError(problem);
  }

  const selection = parsed['parent-selection'];
  if (!(PARENT_SELECTIONS as readonly string[]).includes(selection)) {
    throw new UsageError(
      `--parent-selection must be one of ${PARENT_SELECTIONS.join(', ')}, not "${selection}".`,
    );
  }
  const sandbox = parsed.sandbox;
  if (!(SANDBOX_MODES as readonly string[]).includes(sandbox)) {
    throw new UsageError(`--sandbox must be one of ${SANDBOX_MODES.join(', ')}, not "${sandbox}".`);
  }
  const budget = parsed['budget-usd'];
  const runId = parsed['run-id'];
  if (runId !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(runId)) {
    throw new UsageError(
      `--run-id may hold only letters, digits, dots, dashes and underscores, not "${runId}".`,
    );
  }
  if (runId !== undefined && runId.length > MAX_RUN_ID_LENGTH) {
    throw new UsageError(
      `--run-id is ${runId.length} characters long; it names the run's folder, so give at most ${MAX_RUN_ID_LENGTH}.`,
    );
  }
  if (parsed.out.trim() === '') {
    throw new UsageError('--out is empty: give the folder the run goes in (default ./runs).');
  }
  const simScript = parsed['sim-script'] ?? null;
  if (simScript !== null && (metaModel !== 'sim' || taskModel !== 'sim')) {
    throw new UsageError('--sim-script replays replies of the simulated model: use it with --model sim.');
  }

  const record = parsed.record ?? null;
  const replay = parsed.replay ?? null;
  if (record !== null && replay !== null) {
    throw new UsageError(
      '--record and --replay cannot be used together: record a run with --record FILE first, then repeat it ' +
        'with --replay FILE.',
    );
  }
  const sim = simConfig(parsed);
  const simKnobs = [
    sim.latency !== null && 'sim-latency-ms',
    sim.faultRate > 0 && 'sim-fault-rate',
    sim.pricePerMTok > 0 && 'sim-price-per-mtok',
    sim.retryMs !== DEFAULT_SIM_RETRY_MS && 'sim-retry-ms',
  ].filter((name) => name !== false);
  if (simKnobs.length > 0 && metaModel !== 'sim' && taskModel !== 'sim') {
    throw new UsageError(
      `--${simKnobs[0]} sets up the simulated model, which this run does not use: add --model sim, or drop it.`,
    );
  }
  if (replay !== null && (simKnobs.length > 0 || simScript !== null)) {
    throw new UsageError(
      `--replay answers every call from the recording, so --${simKnobs[0] ?? 'sim-script'} would have no ` +
        'effect: drop it.',
    );
  }

  // Every value is checked by the run configuration's schema; its message is told with the option's name.
  const input: Omit<RunConfig, 'from'> = {
    domains: refs.refs.map(formatDomainRef),
    dataset: datasetFlags(parsed),
    metaModel,
    taskModel,
    generations: parsed.generations,
    parallel: parsed.parallel,
    evalWorkers: parsed['eval-workers'],
    tasksPerWorker: parsed['tasks-per-worker'],
    evalSamples: parsed['eval-samples'] ?? null,
    stagedSamples: parsed['staged-samples'] ?? null,
    skipStagedEval: parsed['skip-staged-eval'],
    evalTest: parsed['eval-test'],
    parentSelection: selection as ParentSelection,
    editSelectParent: parsed['edit-select-parent'],
    budgetUsd: budget ?? null,
    sandbox: sandbox as SandboxMode,
    limits: limitsFrom(parsed),
    seed: parsed.seed,
    simScript: simScript === null ? null : path.resolve(simScript),
    freezeMeta: parsed['freeze-meta'],
    taskTimeoutSec: parsed['task-timeout'],
    metaTimeoutSec: parsed['meta-timeout'],
    record: record === null ? null : path.resolve(record),
    replay: replay === null ? null : path.resolve(replay),
    sim,
  };
  // A resumed run takes its domains from its archive: the command line need not name them.
  const [problem] = (RunConfigSchema.safeParse({ ...input, from: null }).error?.issues ?? []).filter(
    (issue) => !(resume !== null && issue.path[0] === 'domains'),
  );
  if (problem !== undefined) throw configUsageError(problem, input, optionOf);
  return {
    ...input,
    out: path.resolve(parsed.out),
    runId: runId ?? null,
    json: parsed.json,
    quiet: parsed.quiet,
    resume,
    from: parsed.from ?? null,
    given: givenOptions(argv),
  };
}

/** Long option names on the command line, without dashes or values (`--no-x` counts as `x`). */
export function givenOptions(argv: readonly string[]): string[] {
  const names = argv
    .filter((a) => a.startsWith('--') && a.length > 2)
    .map((a) => a.slice(2).split('=')[0]!)
    .map((a) => (a.startsWith('no-') ? a.slice(3) : a));
  return [...new Set(names)];
}

function simConfig(parsed: {
  'sim-latency-ms'?: string | undefined;
  'sim-fault-rate': number;
  'sim-faults'?: string | undefined;
  'sim-price-per-mtok': number;
  'sim-retry-ms': number;
}): SimConfig {
  let latency: LatencySpec | null = null;
  if (parsed['sim-latency-ms'] !== undefined) {
    const spec = parseLatencySpec(parsed['sim-latency-ms']);
    if (!spec.ok) throw new UsageError(`--sim-latency-ms: ${spec.message}`);
    latency = spec.value;
  }
  const rate = parsed['sim-fault-rate'];
  let faults: FaultKind[] = [...FAULT_KINDS];
  if (parsed['sim-faults'] !== undefined) {
    const kinds = parseFaultKinds(parsed['sim-faults']);
    if (!kinds.ok) throw new UsageError(`--sim-faults: ${kinds.message}.`);
    if (rate === 0) {
      throw new UsageError(
        '--sim-faults chooses which failures --sim-fault-rate injects: give a --sim-fault-rate above 0 too.',
      );
    }
    faults = kinds.value;
  }
  return {
    latency,
    faultRate: rate,
    faults,
    pricePerMTok: parsed['sim-price-per-mtok'],
    retryMs: parsed['sim-retry-ms'],
  };
}
