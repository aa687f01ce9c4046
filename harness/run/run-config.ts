import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DatasetOptions, DomainRefList } from '../../domains/index.ts';
import {
  DEFAULT_RETRY_POLICY,
  FAULT_KINDS,
  MAX_TIMER_MS,
  resolveModel,
  SIM_LANDSCAPES,
} from '../../llm/index.ts';
import { DEFAULT_MAX_TOOL_CALLS, DEFAULT_WORKSPACE_LIMITS } from '../evaluation/index.ts';
import { PARENT_SELECTIONS } from '../generation/index.ts';
import { DEFAULT_LIMITS, LIMIT_RANGES, openFilesNeeded, SANDBOX_MODES } from '../process/index.ts';
import { DEFAULT_FAILURE_STREAK, DEFAULT_STALL_MINUTES } from './run-alerts.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The harness version recorded with every run: the package's own version. */
export const HARNESS_VERSION = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'))).version;

/**
 * A whole number in [min, max] (max null: no bound but the safe integers). Every way of missing it gets the
 * one message that states the whole range, so the user reads what to give, not what zod checked first.
 */
export function wholeNumber(min: number, max: number | null, unit = '', why = '') {
  const range = max === null ? `of at least ${min}` : `from ${min} to ${max}`;
  const error = `must be a whole number${unit} ${range}${why}`;
  const base = z.number({ error }).int({ error }).min(min, { error });
  return max === null ? base : base.max(max, { error });
}

/** Milliseconds a simulated call waits: a timer, so at most MAX_TIMER_MS. */
const delayMs = () =>
  z
    .number()
    .min(0)
    .max(MAX_TIMER_MS, {
      error: `must give delays of at most ${MAX_TIMER_MS} ms (the longest a timer can wait)`,
    });

export const LatencySpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('fixed'), ms: delayMs() }),
  z.object({ kind: z.literal('uniform'), minMs: delayMs(), maxMs: delayMs() }),
  z.object({ kind: z.literal('lognormal'), medianMs: delayMs(), sigma: z.number() }),
]);

const FAULT_RATE = 'is the share of calls that fail, from 0 to below 1 (0.1: one call in ten)';
const NOISE =
  'must be a level from 0 to 1: the share of task answers drawn afresh on each attempt (0: none, 1: every one)';
const PRICE = 'must be an amount of USD of 0 or more';

/** The simulated model's knobs (DESIGN §5), for benchmarks, fault tests and offline budgets. */
export const SimConfigSchema = z.object({
  /** Delay per call; null: none. */
  latency: LatencySpecSchema.nullable(),
  /** Share of calls that fail like a real provider's, in [0, 1). */
  faultRate: z.number({ error: FAULT_RATE }).min(0, { error: FAULT_RATE }).lt(1, { error: FAULT_RATE }),
  faults: z.array(z.enum(FAULT_KINDS)),
  /** Nominal $ per million tokens, input and output. */
  pricePerMTok: z.number({ error: PRICE }).min(0, { error: PRICE }),
  /**
   * First wait before a simulated fault is retried (doubles each retry); what a simulated 429 asks. Retries
   * never wait longer than the retry policy's longest wait, so a larger value would not be what happens.
   */
  retryMs: wholeNumber(0, DEFAULT_RETRY_POLICY.maxWaitMs, ' of milliseconds', ' (the longest a retry waits)'),
  /**
   * The landscape's noise, 0 to 1: the share of task answers drawn afresh on each attempt. A run stored before
   * it existed had none.
   */
  noise: z.number({ error: NOISE }).min(0, { error: NOISE }).max(1, { error: NOISE }).default(0),
  /** The task-side landscape; runs stored before it existed ran on `default`. */
  landscape: z
    .enum(SIM_LANDSCAPES, { error: `must be one of ${SIM_LANDSCAPES.join(', ')}` })
    .default('default'),
});
export type SimConfig = z.infer<typeof SimConfigSchema>;

/** Where a transferred run's variant 0 comes from (`--from RUN:VARIANT`). */
export const TransferSourceSchema = z.object({
  runDir: z.string(),
  variantId: z.number().int().min(0),
  commit: z.string(),
});
export type TransferSource = z.infer<typeof TransferSourceSchema>;

const count = (min: number) => wholeNumber(min, null);

/** Tasks one TaskAgent process runs at once in a new run, unless `--tasks-per-worker` says otherwise. */
export const DEFAULT_TASKS_PER_WORKER = 8;

/**
 * What a run stored before `--tasks-per-worker` existed ran with: one task per process. The schema gives it
 * to such a config when it is read, the one place this is decided; everything after takes the number given.
 */
const STORED_TASKS_PER_WORKER = 1;

/** More attempts per task than any evaluation needs; a larger number is a typo. */
export const MAX_REPEATS = 100;

/** Fresh attempts on the validation split each of the `--confirm-top` variants gets. */
export const CONFIRM_ATTEMPTS = 4;

/** More generations than any run could finish; a larger number is a typo (`1e9`). */
export const MAX_GENERATIONS = 100_000;
/** The longest task or MetaAgent timeout, in whole seconds: a timer cannot wait longer. */
export const MAX_TIMEOUT_SEC = Math.floor(MAX_TIMER_MS / 1000);

const timeout = () =>
  wholeNumber(1, MAX_TIMEOUT_SEC, ' of seconds', ' (about 24 days: the longest a timer can wait)');

/** A resource limit, with its range and why the range is what it is (see LIMIT_RANGES). */
const limit = (field: keyof typeof LIMIT_RANGES) => {
  const { min, max, unit, why } = LIMIT_RANGES[field];
  return wholeNumber(min, max, unit, why);
};

const NOTIFY_URL =
  'must be an http:// or https:// address that takes a POST of each alert, e.g. https://ntfy.sh/my-runs';
const isHttpUrl = (text: string): boolean => {
  try {
    const { protocol, hostname } = new URL(text);
    return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
  } catch {
    return false;
  }
};
const STALL = `must be a number of minutes above 0 and at most ${Math.floor(MAX_TIMEOUT_SEC / 60)}`;

/**
 * Where a run's alerts go and when they go out (`--notify`, `--notify-cmd`, `--stall-minutes`,
 * `--failure-streak`; see run-alerts.ts). They change nothing the run computes, so a resume may change them;
 * a run stored before they existed sends none.
 */
const AlertFields = {
  notifyUrl: z
    .string({ error: NOTIFY_URL })
    .refine(isHttpUrl, { error: NOTIFY_URL })
    .nullable()
    .default(null),
  notifyCmd: z
    .string()
    .refine((c) => c.trim() !== '', { error: 'must be a shell command that reads an alert as JSON on stdin' })
    .nullable()
    .default(null),
  stallMinutes: z
    .number({ error: STALL })
    .positive({ error: STALL })
    .max(MAX_TIMEOUT_SEC / 60, { error: STALL })
    .default(DEFAULT_STALL_MINUTES),
  failureStreak: wholeNumber(1, 1000, '', ' (generations failed in a row)').default(DEFAULT_FAILURE_STREAK),
};

/**
 * A run's configuration: everything that decides what the run computes. Stored in the archive when the run
 * starts and read back through this schema on `--resume`; how the command prints (--json, --quiet) and where
 * the run folder lives are not part of it. It is where every value is checked: each message says what the
 * value must be, so a command only has to name the option that set it.
 */
const RunConfigFields = z.object({
  /**
   * The domains, typed (see domains/reference.ts); given and stored as references in full text: a name, or
   * NAME=dataset:FILE, NAME=exercism:DIR.
   */
  domains: DomainRefList,
  /** Field mapping and metric for every dataset:FILE, over each file's sidecar. */
  dataset: DatasetOptions.default({}),
  metaModel: z.string(),
  taskModel: z.string(),
  generations: wholeNumber(0, MAX_GENERATIONS),
  parallel: count(1),
  evalWorkers: count(1),
  /**
   * Tasks one TaskAgent process runs at once (`--eval-workers` of them run in ⌈that ÷ this⌉ processes). A run
   * stored before this setting existed ran one task per process, and resumes so.
   */
  tasksPerWorker: count(1).default(STORED_TASKS_PER_WORKER),
  evalSamples: count(1).nullable(),
  /** Attempts per task (`--eval-repeats`), each kept; a score is their mean. A run stored before had one. */
  evalRepeats: wholeNumber(1, MAX_REPEATS).default(1),
  /**
   * The top K variants by validation score get CONFIRM_ATTEMPTS fresh attempts on the validation split at the
   * end of the run (`--confirm-top`); the reported best is the highest confirmed score. 0: off (a run stored
   * before had none).
   */
  confirmTop: wholeNumber(0, MAX_REPEATS).default(0),
  /**
   * Attempts of variant 0 on its validation tasks at the start (`--noise-floor`), whose spread says how far a
   * score moves by chance. 0: off; 1 is no spread, so 2 or more.
   */
  noiseFloor: wholeNumber(0, MAX_REPEATS)
    .refine((k) => k !== 1, { error: 'must be 0 (off) or from 2 to 100: one attempt has no spread' })
    .default(0),
  stagedSamples: count(1).nullable(),
  skipStagedEval: z.boolean(),
  evalTest: z.boolean(),
  parentSelection: z.enum(PARENT_SELECTIONS, { error: `must be one of ${PARENT_SELECTIONS.join(', ')}` }),
  /** Let each parent's own `agents/select-parent.ts` pick the next parent (the strategy is the fallback). */
  editSelectParent: z.boolean().default(false),
  budgetUsd: z
    .number({ error: 'must be a positive amount' })
    .positive({ error: 'must be a positive amount' })
    .nullable(),
  sandbox: z.enum(SANDBOX_MODES, { error: `must be one of ${SANDBOX_MODES.join(', ')}` }),
  /** Limits on every agent process (and the tools run on agent files). */
  limits: z
    .object({
      memoryMb: limit('memoryMb'),
      processes: limit('processes'),
      openFiles: limit('openFiles'),
      fileSizeMb: limit('fileSizeMb'),
      diskMb: limit('diskMb'),
      outputKb: limit('outputKb'),
    })
    .default(DEFAULT_LIMITS),
  /**
   * Limits on each workspace task (DESIGN §9): tool calls the TaskAgent is asked to keep to, and the files
   * and KiB of the folder it leaves (a workspace over them is a wrong answer). A run stored before they
   * existed ran no workspace tasks, and resumes with the defaults.
   */
  workspace: z
    .object({
      maxToolCalls: wholeNumber(1, 10_000),
      maxFiles: wholeNumber(1, 1_000_000),
      maxKb: wholeNumber(1, 1024 * 1024, ' of KiB'),
    })
    .default({ maxToolCalls: DEFAULT_MAX_TOOL_CALLS, ...DEFAULT_WORKSPACE_LIMITS }),
  seed: count(0),
  simScript: z.string().nullable(),
  freezeMeta: z.boolean(),
  taskTimeoutSec: timeout(),
  metaTimeoutSec: timeout(),
  /** Append every model response to this JSON Lines file. */
  record: z.string().nullable(),
  /** Answer every model call from this recording; no model is called. */
  replay: z.string().nullable(),
  sim: SimConfigSchema,
  /** Transfer: variant 0 is this variant's code instead of the initial agent. */
  from: TransferSourceSchema.nullable().default(null),
  ...AlertFields,
});

/** Whether a model id names the offline simulated model. */
export function isSimulatedModel(id: string): boolean {
  const resolved = resolveModel(id);
  return resolved.ok && resolved.model.simulated;
}

/** Default of `--sim-retry-ms`; a run that changes it sets up the simulated model. */
export const DEFAULT_SIM_RETRY_MS = 1000;

/**
 * A rule across fields, refused with a whole sentence: shown after the name of the option that set `path`,
 * with `{other}` replaced by the name of the option that set `other`.
 */
function refuse(
  ctx: z.RefinementCtx,
  path: (string | number)[],
  message: string,
  other: (string | number)[] | null = null,
): void {
  ctx.addIssue({ code: 'custom', path, input: undefined, message, params: { form: 'sentence', other } });
}

/** The knobs of the simulated model a configuration sets away from their defaults, as field paths. */
function simKnobs(sim: RunConfigInput['sim']): (string | number)[][] {
  return [
    sim.latency !== null && ['sim', 'latency'],
    sim.faultRate > 0 && ['sim', 'faultRate'],
    sim.pricePerMTok > 0 && ['sim', 'pricePerMTok'],
    sim.retryMs !== DEFAULT_SIM_RETRY_MS && ['sim', 'retryMs'],
    sim.noise > 0 && ['sim', 'noise'],
    sim.landscape !== 'default' && ['sim', 'landscape'],
  ].filter((knob) => knob !== false);
}

type RunConfigInput = z.output<typeof RunConfigFields>;

/** The rules across fields: each runs once the fields themselves are valid. */
function crossFieldRules(config: RunConfigInput, ctx: z.RefinementCtx): void {
  const needed = openFilesNeeded(config.tasksPerWorker);
  if (config.limits.openFiles < needed) {
    ctx.addIssue({
      code: 'custom',
      path: ['limits', 'openFiles'],
      input: config.limits.openFiles,
      message:
        `must be at least ${needed} for a TaskAgent process that runs ${config.tasksPerWorker} ` +
        `task${config.tasksPerWorker === 1 ? '' : 's'} at once (about ${openFilesNeeded(0)} for the process and ` +
        '2 per task; fewer tasks per process need fewer)',
    });
  }
  const models = [config.metaModel, config.taskModel];
  if (config.simScript !== null && !models.every(isSimulatedModel))
    refuse(ctx, ['simScript'], 'replays replies of the simulated model: use it with --model sim.');
  if (config.record !== null && config.replay !== null) {
    refuse(
      ctx,
      ['record'],
      'and --replay cannot be used together: record a run with --record FILE first, then repeat it with ' +
        '--replay FILE.',
    );
  }
  const [knob] = simKnobs(config.sim);
  if (knob !== undefined && !models.some(isSimulatedModel)) {
    refuse(
      ctx,
      knob,
      'sets up the simulated model, which this run does not use: add --model sim, or drop it.',
    );
  }
  const alertKnob =
    (config.stallMinutes !== DEFAULT_STALL_MINUTES && ['stallMinutes']) ||
    (config.failureStreak !== DEFAULT_FAILURE_STREAK && ['failureStreak']);
  if (alertKnob && config.notifyUrl === null && config.notifyCmd === null)
    refuse(ctx, alertKnob, 'sets when an alert goes out: give --notify URL or --notify-cmd CMD too.');
  const useless = knob ?? (config.simScript === null ? null : ['simScript']);
  if (config.replay !== null && useless !== null) {
    refuse(
      ctx,
      ['replay'],
      'answers every call from the recording, so {other} would have no effect: drop it.',
      useless,
    );
  }
}

/** The fields, and the rules across them (open files on tasks per process, the simulated model's options). */
export const RunConfigSchema = RunConfigFields.superRefine(crossFieldRules);
export type RunConfig = z.infer<typeof RunConfigSchema>;

/** Options a resumed run may change; any other difference is refused. */
export const RESUMABLE_CHANGES = [
  'generations',
  'budgetUsd',
  'parallel',
  'notifyUrl',
  'notifyCmd',
  'stallMinutes',
  'failureStreak',
] as const satisfies readonly (keyof RunConfig)[];

/** The configuration as it is stored in a run's archive (domains written out in full). */
export function storedConfig(config: RunConfig): z.input<typeof RunConfigSchema> {
  return z.encode(RunConfigSchema, config);
}

/** The fields of a run's configuration, so a command can pick them out of what its command line says. */
export const RUN_CONFIG_FIELDS = Object.keys(RunConfigFields.shape) as (keyof RunConfig)[];

/** Reads a stored configuration back; null when it does not match the schema (a run of another version). */
export function parseStoredConfig(stored: unknown): RunConfig | null {
  const parsed = RunConfigSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}
