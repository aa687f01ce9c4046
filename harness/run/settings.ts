import path from 'node:path';
import { z } from 'zod';
import { DOMAIN_REF_HELP, DomainRefList } from '../../domains/index.ts';
import { PARENT_SELECTIONS } from '../generation/index.ts';
import type { Setting } from './setting.ts';
import * as schema from './setting-schemas.ts';
import { ACCEPT_SETTINGS } from './settings-accept.ts';
import { BATCH_SETTINGS } from './settings-batch.ts';
import { SIM_SETTINGS } from './settings-sim.ts';
import { TASK_SETTINGS } from './settings-task.ts';

/** Default of `--stall-minutes`: no generation finished for this long is worth a look overnight. */
export const DEFAULT_STALL_MINUTES = 30;
/** Default of `--failure-streak`: this many generations in a row failed. */
export const DEFAULT_FAILURE_STREAK = 3;
/** More attempts per task than any evaluation needs; a larger number is a typo. */
export const MAX_REPEATS = 100;
/** More generations than any run could finish; a larger number is a typo (`1e9`). */
export const MAX_GENERATIONS = 100_000;
/** Tasks one TaskAgent process runs at once in a new run, unless `--tasks-per-worker` says otherwise. */
export const DEFAULT_TASKS_PER_WORKER = 8;
/**
 * What a run stored before `--tasks-per-worker` existed ran with: one task per process. The schema gives it
 * to such a config when it is read, the one place this is decided; everything after takes the number given.
 */
const STORED_TASKS_PER_WORKER = 1;

/** A file option's path, made absolute against the directory the command started in. */
const file = (value: string | undefined): string | null => (value === undefined ? null : path.resolve(value));
/** A model option, else `--model` (which the command line defaults to the default model). */
const orModel = (value: string | undefined, parsed: Readonly<Record<string, unknown>>) =>
  value ?? parsed.model;

/** What a run is and what it evaluates on. */
const RUN_SETTINGS = [
  {
    option: 'domains',
    field: 'domains',
    schema: DomainRefList,
    type: 'string',
    array: true,
    describe: `benchmark domains, comma-separated: ${DOMAIN_REF_HELP} (see \`hyperagents domains\`)`,
    resume: 'keep',
    result: 'keyed',
    read: (value: (string | number)[] | undefined) =>
      (value ?? [])
        .flatMap((d) => String(d).split(','))
        .map((d) => d.trim())
        .filter(Boolean),
  },
  {
    option: 'meta-model',
    field: 'metaModel',
    schema: z.string(),
    type: 'string',
    describe: 'model of the MetaAgent (overrides --model)',
    resume: 'keep',
    result: 'none',
    read: orModel,
  },
  {
    option: 'task-model',
    field: 'taskModel',
    schema: z.string(),
    type: 'string',
    describe: 'model of the TaskAgent (overrides --model)',
    resume: 'keep',
    result: 'keyed',
    read: orModel,
  },
  {
    option: 'generations',
    field: 'generations',
    schema: schema.wholeNumber(0, MAX_GENERATIONS),
    type: 'number',
    default: 10,
    describe: 'children to create',
    resume: 'may-change',
    result: 'none',
  },
  {
    option: 'parallel',
    field: 'parallel',
    schema: schema.count(1),
    type: 'number',
    default: 1,
    describe: 'generations run at once',
    resume: 'may-change',
    result: 'none',
  },
  {
    option: 'eval-workers',
    field: 'evalWorkers',
    schema: schema.count(1),
    type: 'number',
    default: 8,
    describe: 'tasks evaluated at once, shared by the generations in flight',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'tasks-per-worker',
    field: 'tasksPerWorker',
    schema: schema.count(1).default(STORED_TASKS_PER_WORKER),
    type: 'number',
    default: DEFAULT_TASKS_PER_WORKER,
    describe: 'tasks one TaskAgent process runs at once; 1 for a TaskAgent that answers one task at a time',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'eval-samples',
    field: 'evalSamples',
    schema: schema.count(1).nullable(),
    type: 'number',
    describe: 'tasks per split at most (default: all)',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'eval-repeats',
    field: 'evalRepeats',
    // A run stored before it existed had one attempt per task.
    schema: schema.wholeNumber(1, MAX_REPEATS).default(1),
    type: 'number',
    default: 1,
    describe:
      'attempts per task (1 to 100): each is kept, a score is their mean, and archive show gives pass@k. Shows ' +
      'how much a score moves on a second try',
    resume: 'keep',
    // Each attempt's number is in the result cache's key; how many there are changes no one result.
    result: 'none',
  },
  {
    option: 'confirm-top',
    field: 'confirmTop',
    schema: schema.wholeNumber(0, MAX_REPEATS).default(0),
    type: 'number',
    default: 0,
    describe:
      'at the end of the run, the top K variants by validation score get 4 fresh attempts each on the ' +
      'validation split, and the reported best is the highest of these confirmed scores (0: off)',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'noise-floor',
    field: 'noiseFloor',
    schema: schema
      .wholeNumber(0, MAX_REPEATS)
      .refine((k) => k !== 1, { error: 'must be 0 (off) or from 2 to 100: one attempt has no spread' })
      .default(0),
    type: 'number',
    default: 0,
    describe:
      'evaluate variant 0 K times on its validation tasks at the start (2 to 100; 0: off): the spread of its ' +
      'scores is shown, and an improvement smaller than it is marked within noise',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'staged-samples',
    field: 'stagedSamples',
    schema: schema.count(1).nullable(),
    type: 'number',
    describe: 'tasks per split in the staged evaluation (default: the domain’s)',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'skip-staged-eval',
    field: 'skipStagedEval',
    schema: z.boolean(),
    type: 'boolean',
    default: false,
    describe: 'go straight to the full evaluation',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'eval-test',
    field: 'evalTest',
    schema: z.boolean(),
    type: 'boolean',
    default: false,
    describe: 'also evaluate the test split (never shown to agents)',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'parent-selection',
    field: 'parentSelection',
    schema: schema.oneOf(PARENT_SELECTIONS),
    type: 'string',
    default: 'score_child_prop',
    describe: PARENT_SELECTIONS.join(' | '),
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'edit-select-parent',
    field: 'editSelectParent',
    schema: z.boolean().default(false),
    type: 'boolean',
    default: false,
    describe:
      "each parent is chosen by the newest candidate's own agents/select-parent.ts (which the MetaAgent may " +
      'edit); if it fails, --parent-selection chooses and the reason is recorded',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'freeze-meta',
    field: 'freezeMeta',
    schema: z.boolean(),
    type: 'boolean',
    default: false,
    describe: 'ablation: the initial MetaAgent does every edit',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'budget-usd',
    field: 'budgetUsd',
    schema: schema.positiveUsd().nullable(),
    type: 'number',
    describe:
      'most USD the run may spend on models. A call whose input would pass it beside the spend and what ' +
      'calls in flight may cost waits for them; once nothing is in flight and it still would, the call is ' +
      'refused (so a run ends at most one reply over the budget); the generation under way is then recorded ' +
      'as failed (not scored) and the run ends normally, exit code 0, with "budget reached: $X of $Y spent"',
    resume: 'may-change',
    result: 'none',
  },
  {
    option: 'seed',
    field: 'seed',
    schema: schema.count(0),
    type: 'number',
    default: 0,
    describe: 'seed of parent selection and the simulated model',
    resume: 'keep',
    result: 'keyed',
  },
] as const satisfies readonly Setting[];

/** Recording and replaying the models' replies. */
const REPLY_SETTINGS = [
  {
    option: 'sim-script',
    field: 'simScript',
    schema: z.string().nullable(),
    type: 'string',
    describe: 'replay scripted replies from a JSON file (with --model sim)',
    resume: 'keep',
    // A scripted run's replies depend on the order of calls: its results are never cached.
    result: 'none',
    read: file,
  },
  {
    option: 'record',
    field: 'record',
    schema: z.string().nullable(),
    type: 'string',
    describe:
      'save every model response to FILE (JSON Lines; a new file) so the run can be repeated offline with ' +
      '--replay. Task results cached by earlier runs are not reused, so every call is recorded',
    resume: 'keep',
    result: 'none',
    read: file,
  },
  {
    option: 'replay',
    field: 'replay',
    schema: z.string().nullable(),
    type: 'string',
    describe:
      'answer every model call from FILE, written by a run with --record, instead of calling a model: no key, ' +
      'no network, no cost. Give the same options and --seed as the recorded run; a call it lacks fails',
    resume: 'keep',
    result: 'none',
    read: file,
  },
] as const satisfies readonly Setting[];

/** Where a run's alerts go and when; a run stored before they existed sends none. */
const ALERT_SETTINGS = [
  {
    option: 'notify',
    field: 'notifyUrl',
    schema: schema.notifyUrl().nullable().default(null),
    type: 'string',
    describe:
      'POST each alert as JSON to this http(s) URL (a webhook, ntfy.sh): a stall, 80 % and 100 % of the budget, ' +
      'failed generations in a row, a harness error, the end of the run. Retried, never holds up the run',
    resume: 'may-change',
    result: 'none',
  },
  {
    option: 'notify-cmd',
    field: 'notifyCmd',
    schema: z
      .string()
      .refine((c) => c.trim() !== '', {
        error: 'must be a shell command that reads an alert as JSON on stdin',
      })
      .nullable()
      .default(null),
    type: 'string',
    describe: 'run this shell command for each alert, with the alert as JSON on its stdin',
    resume: 'may-change',
    result: 'none',
  },
  {
    option: 'stall-minutes',
    field: 'stallMinutes',
    schema: schema.stallMinutes().default(DEFAULT_STALL_MINUTES),
    type: 'number',
    default: DEFAULT_STALL_MINUTES,
    describe: 'alert when no generation finished for this many minutes (not while paused)',
    resume: 'may-change',
    result: 'none',
  },
  {
    option: 'failure-streak',
    field: 'failureStreak',
    schema: schema.wholeNumber(1, 1000, '', ' (generations failed in a row)').default(DEFAULT_FAILURE_STREAK),
    type: 'number',
    default: DEFAULT_FAILURE_STREAK,
    describe: 'alert when this many generations in a row failed',
    resume: 'may-change',
    result: 'none',
  },
] as const satisfies readonly Setting[];

/**
 * Every run setting, declared once (see Setting). The order is the help's. To add one: an entry here; if it
 * changes a task's result, `result: { task: NAME }` puts it in `TaskSettings`, which reaches the TaskAgent
 * with every task and keys the result cache.
 */
export const SETTINGS = [
  ...RUN_SETTINGS,
  ...ACCEPT_SETTINGS,
  ...TASK_SETTINGS,
  ...REPLY_SETTINGS,
  ...BATCH_SETTINGS,
  ...SIM_SETTINGS,
  ...ALERT_SETTINGS,
] as const satisfies readonly Setting[];

/**
 * Options that set other settings: `--model` is the model of both roles unless `--meta-model` or
 * `--task-model` says otherwise.
 */
export const SHORTHANDS = {
  model: {
    sets: ['meta-model', 'task-model'],
    // The command adds an example and the order the default is chosen in (the providers' registry).
    describe: 'model for both roles (hyperagents models lists them)',
  },
} as const;
