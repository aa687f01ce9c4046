import type { Options } from 'yargs';

/** The pilot's tasks per split of each domain, unless --pilot-tasks says otherwise. */
export const DEFAULT_PILOT_TASKS = 5;
/** The most the pilot may spend, unless --pilot-budget-usd (or a smaller --budget-usd) says otherwise. */
export const DEFAULT_PILOT_BUDGET_USD = 1;

/**
 * The options of generate-loop that are not run settings: where the run lives, how the command prints, and
 * what it does instead of running (resume, transfer, estimate). The run settings' options are made from their
 * table (harness/run/settings.ts, see setting-options.ts).
 */
export const COMMAND_OPTIONS = {
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
