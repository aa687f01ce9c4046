import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DatasetOptions } from '../../domains/index.ts';
import { batchSupport, resolveModel } from '../../llm/index.ts';
import { openFilesNeeded } from '../process/index.ts';
import { groupFields, type TaskFields, taskFields, topFields } from './setting.ts';
import { DEFAULT_FAILURE_STREAK, DEFAULT_STALL_MINUTES, SETTINGS } from './settings.ts';
import { DEFAULT_ALPHA, DEFAULT_FUTILITY_ALPHA, DEFAULT_FUTILITY_MARGIN } from './settings-accept.ts';
import { DEFAULT_SIM_RETRY_MS } from './settings-sim.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The harness version recorded with every run: the package's own version. */
export const HARNESS_VERSION = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'))).version;

/** The simulated model's knobs: the `sim.*` settings (settings-sim.ts). */
export const SimConfigSchema = z.object(groupFields(SETTINGS, 'sim'));
export type SimConfig = z.infer<typeof SimConfigSchema>;

/** Where a transferred run's variant 0 comes from (`--from RUN:VARIANT`). */
export const TransferSourceSchema = z.object({
  runDir: z.string(),
  variantId: z.number().int().min(0),
  commit: z.string(),
});
export type TransferSource = z.infer<typeof TransferSourceSchema>;

/** Fresh attempts on the validation split each of the `--confirm-top` variants gets. */
export const CONFIRM_ATTEMPTS = 4;

/**
 * A run's configuration: everything that decides what the run computes. Stored in the archive when the run
 * starts and read back through this schema on `--resume`; how the command prints (--json, --quiet) and where
 * the run folder lives are not part of it. It is where every value is checked: each message says what the
 * value must be, so a command only has to name the option that set it.
 */
const RunConfigFields = z.object({
  ...topFields(SETTINGS),
  /** Field mapping and metric for every dataset:FILE, over each file's sidecar (the dataset flags). */
  dataset: DatasetOptions.default({}),
  /** Limits on every agent process (and the tools run on agent files). */
  limits: z.object(groupFields(SETTINGS, 'limits')).prefault({}),
  /**
   * Limits on each workspace task: tool calls the TaskAgent is asked to keep to, and the files and KiB of the
   * folder it leaves (a workspace over them is a wrong answer). A run stored before they existed ran no
   * workspace tasks, and resumes with the defaults.
   */
  workspace: z.object(groupFields(SETTINGS, 'workspace')).prefault({}),
  sim: SimConfigSchema,
  /** Transfer (`--from RUN:VARIANT`): variant 0 is this variant's code instead of the initial agent. */
  from: TransferSourceSchema.nullable().default(null),
});

/** Whether a model id names the offline simulated model. */
export function isSimulatedModel(id: string): boolean {
  const resolved = resolveModel(id);
  return resolved.ok && resolved.model.simulated;
}

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
  batchRules(config, ctx);
  const alertKnob =
    (config.stallMinutes !== DEFAULT_STALL_MINUTES && ['stallMinutes']) ||
    (config.failureStreak !== DEFAULT_FAILURE_STREAK && ['failureStreak']);
  if (alertKnob && config.notifyUrl === null && config.notifyCmd === null)
    refuse(ctx, alertKnob, 'sets when an alert goes out: give --notify URL or --notify-cmd CMD too.');
  const rateKnob =
    (config.alpha !== DEFAULT_ALPHA && ['alpha']) ||
    (config.futilityAlpha !== DEFAULT_FUTILITY_ALPHA && ['futilityAlpha']) ||
    (config.futilityMargin !== DEFAULT_FUTILITY_MARGIN && ['futilityMargin']);
  if (rateKnob && config.accept !== 'sequential')
    refuse(ctx, rateKnob, 'decides a sequential acceptance: give --accept sequential too.');
  if (config.parentSelection === 'confirmed_better' && config.accept !== 'sequential') {
    refuse(
      ctx,
      ['parentSelection'],
      'confirmed_better prefers lineages --accept sequential decided better: give --accept sequential too.',
    );
  }
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

/** `--batch` needs a task model with a batch endpoint, and its options need `--batch`. */
function batchRules(config: RunConfigInput, ctx: z.RefinementCtx): void {
  if (config.batch) {
    const model = resolveModel(config.taskModel);
    const support = model.ok ? batchSupport(model.model) : { ok: true as const };
    if (!support.ok) refuse(ctx, ['batch'], `cannot be used here: ${support.message}`);
    if (config.replay !== null)
      refuse(
        ctx,
        ['batch'],
        'has no effect with --replay, which answers every call from the recording: drop it.',
      );
  }
  if (config.simBatch !== null && !(config.batch && isSimulatedModel(config.taskModel)))
    refuse(ctx, ['simBatch'], 'sets up the simulated batch endpoint: give --batch and --task-model sim too.');
}

/** The fields, and the rules across them (open files on tasks per process, the simulated model's options). */
export const RunConfigSchema = RunConfigFields.superRefine(crossFieldRules);
export type RunConfig = z.infer<typeof RunConfigSchema>;

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

/**
 * What a task runs under: every setting that changes a task's result (docs/architecture.md, "Task settings"),
 * made once from the configuration and passed whole to the evaluator, the queue and the TaskAgent. The result
 * cache keys its hash, so a result is reused only under the same settings.
 */
export type TaskSettings = TaskFields<typeof SETTINGS>;

/** The task settings of a run's configuration. */
export function taskSettingsOf(config: RunConfig): TaskSettings {
  return taskFields(SETTINGS, config);
}

/** A schema without the value it gives a stored configuration that lacks the field. */
const required = (schema: z.ZodType): z.ZodType =>
  schema instanceof z.ZodDefault ? (schema.unwrap() as z.ZodType) : schema;

/** `TaskSettings` checked, as they cross Redis to a worker: every field present. */
export const TaskSettingsSchema = z.object(
  Object.fromEntries(
    SETTINGS.flatMap((s) => (typeof s.result === 'object' ? [[s.result.task, required(s.schema)]] : [])),
  ) as unknown as { [K in keyof TaskSettings]: z.ZodType<TaskSettings[K]> },
);

/** The task settings of a new run given no options: each setting's default (for tests and benchmarks). */
export function defaultTaskSettings(): TaskSettings {
  return Object.fromEntries(
    SETTINGS.flatMap((s) => (typeof s.result === 'object' ? [[s.result.task, s.default]] : [])),
  ) as TaskSettings;
}
