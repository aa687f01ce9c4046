import { z } from 'zod';
import {
  FAULT_KINDS,
  LATENCY_SPEC_HELP,
  parseFaultKinds,
  parseLatencySpec,
  SIM_LANDSCAPES,
} from '../../llm/index.ts';
import { OptionTextError, type Setting } from './setting.ts';
import * as schema from './setting-schemas.ts';

/** Default of `--sim-retry-ms`; a run that changes it sets up the simulated model. */
export const DEFAULT_SIM_RETRY_MS = 1000;

/** `--sim-latency-ms`'s text as a delay, null when not given. */
function readLatency(text: string | undefined) {
  if (text === undefined) return null;
  const spec = parseLatencySpec(text);
  if (!spec.ok) throw new OptionTextError(`--sim-latency-ms: ${spec.message}`);
  return spec.value;
}

/** `--sim-faults`' text as the failures to inject; every kind when not given. */
function readFaults(text: string | undefined, parsed: Readonly<Record<string, unknown>>) {
  if (text === undefined) return [...FAULT_KINDS];
  const kinds = parseFaultKinds(text);
  if (!kinds.ok) throw new OptionTextError(`--sim-faults: ${kinds.message}.`);
  if (parsed['sim-fault-rate'] === 0) {
    throw new OptionTextError(
      '--sim-faults chooses which failures --sim-fault-rate injects: give a --sim-fault-rate above 0 too.',
    );
  }
  return kinds.value;
}

/** The simulated model's knobs (docs/simulated-model.md), for benchmarks, fault tests and offline budgets. */
export const SIM_SETTINGS = [
  {
    option: 'sim-latency-ms',
    field: 'sim.latency',
    // Delay per call; null: none.
    schema: schema.LatencySpecSchema.nullable(),
    type: 'string',
    describe:
      `simulated model: delay per call, ${LATENCY_SPEC_HELP}; a lognormal's MEDIAN is in ms and SIGMA ` +
      '(default 0.5) widens the spread. Drawn from --seed',
    resume: 'keep',
    result: 'none',
    read: readLatency,
  },
  {
    option: 'sim-fault-rate',
    field: 'sim.faultRate',
    schema: schema.faultRate(),
    type: 'number',
    default: 0,
    describe:
      'simulated model: share of calls (0 to below 1) that fail the way real providers do; they are retried ' +
      'like real failures, so the scores do not change',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'sim-faults',
    field: 'sim.faults',
    schema: z.array(z.enum(FAULT_KINDS)),
    type: 'string',
    describe:
      'which failures --sim-fault-rate injects, comma-separated: 429 (rate limit, asks to wait), 500 and 529 ' +
      `(server errors), timeout, truncated and malformed (a cut-off or broken reply). Default: all, ${FAULT_KINDS.join(',')}`,
    resume: 'keep',
    result: 'none',
    read: readFaults,
  },
  {
    option: 'sim-price-per-mtok',
    field: 'sim.pricePerMTok',
    schema: schema.price(),
    type: 'number',
    default: 0,
    describe:
      'simulated model: a nominal price in USD per million tokens, so --budget-usd and costs work offline',
    resume: 'keep',
    result: 'none',
  },
  {
    option: 'sim-noise',
    field: 'sim.noise',
    // A run stored before it existed had none.
    schema: schema.noiseLevel().default(0),
    type: 'number',
    default: 0,
    describe:
      'simulated model: how noisy its answers are, 0 to 1: the share of task answers drawn afresh on each ' +
      'attempt, so the same TaskAgent scores differently on a second attempt (see --eval-repeats). Drawn from --seed',
    resume: 'keep',
    result: { task: 'simNoise' },
  },
  {
    option: 'sim-landscape',
    field: 'sim.landscape',
    // Runs stored before it existed ran on `default`.
    schema: schema.oneOf(SIM_LANDSCAPES).default('default'),
    type: 'string',
    default: 'default',
    describe:
      'simulated model: the task landscape, default (prompt phrases change how often answers are right, see ' +
      "docs/simulated-model.md) or flat (no edit changes a variant's true skill: a control where evolution cannot " +
      'gain, and where every child accepted as better is a false acceptance; inert is its first name)',
    resume: 'keep',
    result: { task: 'simLandscape' },
  },
  {
    option: 'sim-retry-ms',
    field: 'sim.retryMs',
    schema: schema.retryMs(),
    type: 'number',
    default: DEFAULT_SIM_RETRY_MS,
    describe:
      'simulated model: first wait in ms before a simulated failure is retried (doubling each time), and what a ' +
      'simulated 429 asks to wait; small values make fault tests fast',
    resume: 'keep',
    result: 'none',
  },
] as const satisfies readonly Setting[];
