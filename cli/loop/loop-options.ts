import type { Options } from 'yargs';
import { DOMAIN_REF_HELP } from '../../domains/index.ts';
import { DEFAULT_MAX_TOOL_CALLS, DEFAULT_WORKSPACE_LIMITS } from '../../harness/evaluation/index.ts';
import { PARENT_SELECTIONS } from '../../harness/generation/index.ts';
import { DEFAULT_LIMITS, type ResourceLimits, SANDBOX_MODES } from '../../harness/process/index.ts';
import {
  DEFAULT_FAILURE_STREAK,
  DEFAULT_SIM_RETRY_MS,
  DEFAULT_STALL_MINUTES,
  DEFAULT_TASKS_PER_WORKER,
} from '../../harness/run/index.ts';
import { FAULT_KINDS, LATENCY_SPEC_HELP } from '../../llm/index.ts';

/** The pilot's tasks per split of each domain, unless --pilot-tasks says otherwise. */
export const DEFAULT_PILOT_TASKS = 5;
/** The most the pilot may spend, unless --pilot-budget-usd (or a smaller --budget-usd) says otherwise. */
export const DEFAULT_PILOT_BUDGET_USD = 1;

/** A resource-limit flag: its config field, with the field's default. */
const limitFlag = (field: keyof ResourceLimits, describe: string) => ({
  type: 'number' as const,
  requiresArg: true as const,
  default: DEFAULT_LIMITS[field],
  describe,
  field,
});

/** Limits on each agent process (and the tools run on agent files); enforcement is in the README. */
export const LIMIT_FLAGS = {
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

/**
 * The options of generate-loop, as yargs reads them. They only split the command line: every value is checked
 * by the run configuration's schema, whose messages `optionOf` prefixes with the option's name.
 */
export const LOOP_OPTIONS = {
  domains: {
    type: 'string',
    requiresArg: true,
    array: true,
    describe: `benchmark domains, comma-separated: ${DOMAIN_REF_HELP} (see \`hyperagents domains\`)`,
  },
  model: {
    type: 'string',
    requiresArg: true,
    describe:
      'model for both roles, e.g. anthropic/claude-sonnet-4-6 or sim (hyperagents models lists them). Default: the first of Anthropic, OpenAI, Google whose key is set, else sim',
  },
  'meta-model': {
    type: 'string',
    requiresArg: true,
    describe: 'model of the MetaAgent (overrides --model)',
  },
  'task-model': {
    type: 'string',
    requiresArg: true,
    describe: 'model of the TaskAgent (overrides --model)',
  },
  generations: { type: 'number', requiresArg: true, default: 10, describe: 'children to create' },
  parallel: {
    type: 'number',
    requiresArg: true,
    default: 1,
    describe: 'generations run at once',
  },
  'eval-workers': {
    type: 'number',
    requiresArg: true,
    default: 8,
    describe: 'tasks evaluated at once, shared by the generations in flight',
  },
  'tasks-per-worker': {
    type: 'number',
    requiresArg: true,
    default: DEFAULT_TASKS_PER_WORKER,
    describe: 'tasks one TaskAgent process runs at once; 1 for a TaskAgent that answers one task at a time',
  },
  'eval-samples': {
    type: 'number',
    requiresArg: true,
    describe: 'tasks per split at most (default: all)',
  },
  'staged-samples': {
    type: 'number',
    requiresArg: true,
    describe: 'tasks per split in the staged evaluation (default: the domain’s)',
  },
  'skip-staged-eval': {
    type: 'boolean',
    default: false,
    describe: 'go straight to the full evaluation',
  },
  'eval-test': {
    type: 'boolean',
    default: false,
    describe: 'also evaluate the test split (never shown to agents)',
  },
  'parent-selection': {
    type: 'string',
    requiresArg: true,
    default: 'score_child_prop',
    describe: PARENT_SELECTIONS.join(' | '),
  },
  'budget-usd': {
    type: 'number',
    requiresArg: true,
    describe:
      'most USD the run may spend on models. A call whose input would pass it beside the spend and what ' +
      'calls in flight may cost waits for them; once nothing is in flight and it still would, the call is ' +
      'refused (so a run ends at most one reply over the budget); the generation under way is then recorded ' +
      'as failed (not scored) and the run ends normally, exit code 0, with "budget reached: $X of $Y spent"',
  },
  out: {
    type: 'string',
    requiresArg: true,
    default: './runs',
    describe: 'folder that holds the runs',
  },
  'run-id': {
    type: 'string',
    requiresArg: true,
    describe: 'name of the run folder (default: a timestamp)',
  },
  sandbox: {
    type: 'string',
    requiresArg: true,
    default: 'auto',
    describe: SANDBOX_MODES.join(' | '),
  },
  ...LIMIT_FLAGS,
  seed: {
    type: 'number',
    requiresArg: true,
    default: 0,
    describe: 'seed of parent selection and the simulated model',
  },
  'sim-script': {
    type: 'string',
    requiresArg: true,
    describe: 'replay scripted replies from a JSON file (with --model sim)',
  },
  record: {
    type: 'string',
    requiresArg: true,
    describe:
      'save every model response to FILE (JSON Lines; a new file) so the run can be repeated offline with ' +
      '--replay. Task results cached by earlier runs are not reused, so every call is recorded',
  },
  replay: {
    type: 'string',
    requiresArg: true,
    describe:
      'answer every model call from FILE, written by a run with --record, instead of calling a model: no key, ' +
      'no network, no cost. Give the same options and --seed as the recorded run; a call it lacks fails',
  },
  'sim-latency-ms': {
    type: 'string',
    requiresArg: true,
    describe:
      `simulated model: delay per call, ${LATENCY_SPEC_HELP}; a lognormal's MEDIAN is in ms and SIGMA ` +
      '(default 0.5) widens the spread. Drawn from --seed',
  },
  'sim-fault-rate': {
    type: 'number',
    requiresArg: true,
    default: 0,
    describe:
      'simulated model: share of calls (0 to below 1) that fail the way real providers do; they are retried ' +
      'like real failures, so the scores do not change',
  },
  'sim-faults': {
    type: 'string',
    requiresArg: true,
    describe:
      'which failures --sim-fault-rate injects, comma-separated: 429 (rate limit, asks to wait), 500 and 529 ' +
      `(server errors), timeout, truncated and malformed (a cut-off or broken reply). Default: all, ${FAULT_KINDS.join(',')}`,
  },
  'sim-price-per-mtok': {
    type: 'number',
    requiresArg: true,
    default: 0,
    describe:
      'simulated model: a nominal price in USD per million tokens, so --budget-usd and costs work offline',
  },
  'eval-repeats': {
    type: 'number',
    requiresArg: true,
    default: 1,
    describe:
      'attempts per task (1 to 100): each is kept, a score is their mean, and archive show gives pass@k. Shows ' +
      'how much a score moves on a second try',
  },
  'confirm-top': {
    type: 'number',
    requiresArg: true,
    default: 0,
    describe:
      'at the end of the run, the top K variants by validation score get 4 fresh attempts each on the ' +
      'validation split, and the reported best is the highest of these confirmed scores (0: off)',
  },
  'noise-floor': {
    type: 'number',
    requiresArg: true,
    default: 0,
    describe:
      'evaluate variant 0 K times on its validation tasks at the start (2 to 100; 0: off): the spread of its ' +
      'scores is shown, and an improvement smaller than it is marked within noise',
  },
  'sim-noise': {
    type: 'number',
    requiresArg: true,
    default: 0,
    describe:
      'simulated model: how noisy its answers are, 0 to 1: the share of task answers drawn afresh on each ' +
      'attempt, so the same TaskAgent scores differently on a second attempt (see --eval-repeats). Drawn from --seed',
  },
  'sim-landscape': {
    type: 'string',
    requiresArg: true,
    default: 'default',
    describe:
      'simulated model: the task landscape, default (prompt phrases change how often answers are right, see ' +
      'docs/simulated-model.md) or inert (no edit changes an answer: a control where evolution cannot gain)',
  },
  'sim-retry-ms': {
    type: 'number',
    requiresArg: true,
    default: DEFAULT_SIM_RETRY_MS,
    describe:
      'simulated model: first wait in ms before a simulated failure is retried (doubling each time), and what a ' +
      'simulated 429 asks to wait; small values make fault tests fast',
  },
  resume: {
    type: 'string',
    requiresArg: true,
    describe:
      'continue the run RUN (its id in --out, or its folder) at the step each generation was in, after Ctrl-C, a ' +
      'kill or a reboot. Finished work is kept; --generations, --budget-usd, --parallel and the alert options may be changed',
  },
  from: {
    type: 'string',
    requiresArg: true,
    describe:
      'transfer: start a new run whose variant 0 is the code of variant VARIANT of run RUN (RUN:VARIANT)',
  },
  'edit-select-parent': {
    type: 'boolean',
    default: false,
    describe:
      "each parent is chosen by the newest candidate's own agents/select-parent.ts (which the MetaAgent may " +
      'edit); if it fails, --parent-selection chooses and the reason is recorded',
  },
  'freeze-meta': {
    type: 'boolean',
    default: false,
    describe: 'ablation: the initial MetaAgent does every edit',
  },
  'task-timeout': { type: 'number', requiresArg: true, default: 300, describe: 'seconds per task' },
  'max-tool-calls': {
    type: 'number',
    requiresArg: true,
    default: DEFAULT_MAX_TOOL_CALLS,
    describe: 'tool calls a TaskAgent may make on one workspace task',
  },
  'workspace-max-files': {
    type: 'number',
    requiresArg: true,
    default: DEFAULT_WORKSPACE_LIMITS.maxFiles,
    describe: 'files and folders a workspace task may end with (more: a wrong answer)',
  },
  'workspace-max-kb': {
    type: 'number',
    requiresArg: true,
    default: DEFAULT_WORKSPACE_LIMITS.maxKb,
    describe: 'KiB of files a workspace task may end with (more: a wrong answer)',
  },
  'meta-timeout': {
    type: 'number',
    requiresArg: true,
    default: 3600,
    describe: 'seconds per MetaAgent run',
  },
  notify: {
    type: 'string',
    requiresArg: true,
    describe:
      'POST each alert as JSON to this http(s) URL (a webhook, ntfy.sh): a stall, 80 % and 100 % of the budget, ' +
      'failed generations in a row, a harness error, the end of the run. Retried, never holds up the run',
  },
  'notify-cmd': {
    type: 'string',
    requiresArg: true,
    describe: 'run this shell command for each alert, with the alert as JSON on its stdin',
  },
  'stall-minutes': {
    type: 'number',
    requiresArg: true,
    default: DEFAULT_STALL_MINUTES,
    describe: 'alert when no generation finished for this many minutes (not while paused)',
  },
  'failure-streak': {
    type: 'number',
    requiresArg: true,
    default: DEFAULT_FAILURE_STREAK,
    describe: 'alert when this many generations in a row failed',
  },
  json: {
    type: 'boolean',
    default: false,
    describe: 'print one JSON summary on stdout at the end',
  },
  quiet: { type: 'boolean', default: false, describe: 'no progress lines' },
  estimate: {
    type: 'boolean',
    default: false,
    describe:
      'print the expected model calls, cost and time, per generation and for the run, and exit without running a generation',
  },
  'estimate-from': {
    type: 'string',
    requiresArg: true,
    describe:
      "measure the estimate's rates (calls, tokens, seconds per generation) on this earlier run: its id in --out, or its folder (default: a resumed run's own)",
  },
  pilot: {
    type: 'number',
    requiresArg: true,
    describe:
      'with --estimate: measure the rates on a short real run of this many generations (2 is a good start) ' +
      'with these models and domains, on a few tasks per domain (--pilot-tasks), in a temporary folder that ' +
      'is removed after; prints the estimate and what the pilot spent',
  },
  'pilot-tasks': {
    type: 'number',
    requiresArg: true,
    default: DEFAULT_PILOT_TASKS,
    describe: "the pilot's tasks per split of each domain (at most --eval-samples)",
  },
  'pilot-budget-usd': {
    type: 'number',
    requiresArg: true,
    default: DEFAULT_PILOT_BUDGET_USD,
    describe:
      "the most USD the pilot may spend, a hard cap as --budget-usd is (which also caps it, and which the pilot's " +
      'spend counts against in the estimate)',
  },
} as const satisfies Record<string, Options>;

/** The option that sets each field of the run configuration (a path, dotted), for messages that name it. */
const FIELD_OPTIONS: Record<string, string> = {
  domains: 'domains',
  generations: 'generations',
  parallel: 'parallel',
  evalWorkers: 'eval-workers',
  tasksPerWorker: 'tasks-per-worker',
  evalSamples: 'eval-samples',
  evalRepeats: 'eval-repeats',
  confirmTop: 'confirm-top',
  noiseFloor: 'noise-floor',
  stagedSamples: 'staged-samples',
  parentSelection: 'parent-selection',
  budgetUsd: 'budget-usd',
  sandbox: 'sandbox',
  seed: 'seed',
  simScript: 'sim-script',
  taskTimeoutSec: 'task-timeout',
  'workspace.maxToolCalls': 'max-tool-calls',
  'workspace.maxFiles': 'workspace-max-files',
  'workspace.maxKb': 'workspace-max-kb',
  metaTimeoutSec: 'meta-timeout',
  record: 'record',
  replay: 'replay',
  'sim.latency': 'sim-latency-ms',
  'sim.faultRate': 'sim-fault-rate',
  'sim.pricePerMTok': 'sim-price-per-mtok',
  'sim.retryMs': 'sim-retry-ms',
  'sim.noise': 'sim-noise',
  'sim.landscape': 'sim-landscape',
  notifyUrl: 'notify',
  notifyCmd: 'notify-cmd',
  stallMinutes: 'stall-minutes',
  failureStreak: 'failure-streak',
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

export function limitsFrom(parsed: Record<keyof typeof LIMIT_FLAGS, number>): ResourceLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [flag, { field }] of Object.entries(LIMIT_FLAGS))
    limits[field] = parsed[flag as keyof typeof LIMIT_FLAGS];
  return limits;
}
