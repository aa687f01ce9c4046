import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DatasetOptions } from '../domains/dataset-options.ts';
import { FAULT_KINDS } from '../llm/sim/faults.ts';
import { DEFAULT_LIMITS } from './resource-limits.ts';
import { SANDBOX_MODES } from './sandbox.ts';
import { PARENT_SELECTIONS } from './selection.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The harness version recorded with every run: the package's own version. */
export const HARNESS_VERSION = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'))).version;

export const LatencySpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('fixed'), ms: z.number() }),
  z.object({ kind: z.literal('uniform'), minMs: z.number(), maxMs: z.number() }),
  z.object({ kind: z.literal('lognormal'), medianMs: z.number(), sigma: z.number() }),
]);

/** The simulated model's knobs (DESIGN §5), for benchmarks, fault tests and offline budgets. */
export const SimConfigSchema = z.object({
  /** Delay per call; null: none. */
  latency: LatencySpecSchema.nullable(),
  /** Share of calls that fail like a real provider's, in [0, 1). */
  faultRate: z.number().min(0).lt(1),
  faults: z.array(z.enum(FAULT_KINDS)),
  /** Nominal $ per million tokens, input and output. */
  pricePerMTok: z.number().min(0),
  /** First wait before a simulated fault is retried (doubles each retry); what a simulated 429 asks. */
  retryMs: z.number().int().min(0),
});
export type SimConfig = z.infer<typeof SimConfigSchema>;

/** Where a transferred run's variant 0 comes from (`--from RUN:VARIANT`). */
export const TransferSourceSchema = z.object({
  runDir: z.string(),
  variantId: z.number().int().min(0),
  commit: z.string(),
});
export type TransferSource = z.infer<typeof TransferSourceSchema>;

const count = (min: number) => z.number().int().min(min);

/**
 * A run's configuration: everything that decides what the run computes. Stored in the archive when the run
 * starts and read back through this schema on `--resume`; how the command prints (--json, --quiet) and where
 * the run folder lives are not part of it.
 */
export const RunConfigSchema = z.object({
  /** Domain references in full (see domains/reference.ts): a name, or NAME=dataset:FILE, NAME=exercism:DIR. */
  domains: z.array(z.string()).min(1),
  /** Field mapping and metric for every dataset:FILE, over each file's sidecar. */
  dataset: DatasetOptions.default({}),
  metaModel: z.string(),
  taskModel: z.string(),
  generations: count(0),
  parallel: count(1),
  evalWorkers: count(1),
  /**
   * Tasks one TaskAgent process runs at once (`--eval-workers` of them run in ⌈that ÷ this⌉ processes). A run
   * stored before this setting existed ran one task per process, and resumes so.
   */
  tasksPerWorker: count(1).default(1),
  evalSamples: count(1).nullable(),
  stagedSamples: count(1).nullable(),
  skipStagedEval: z.boolean(),
  evalTest: z.boolean(),
  parentSelection: z.enum(PARENT_SELECTIONS),
  /** Let each parent's own `agents/select-parent.ts` pick the next parent (the strategy is the fallback). */
  editSelectParent: z.boolean().default(false),
  budgetUsd: z.number().positive().nullable(),
  sandbox: z.enum(SANDBOX_MODES),
  /** Limits on every agent process (and the tools run on agent files). */
  limits: z
    .object({
      memoryMb: count(1),
      processes: count(1),
      openFiles: count(1),
      fileSizeMb: count(1),
      diskMb: count(1),
      outputKb: count(1),
    })
    .default(DEFAULT_LIMITS),
  seed: count(0),
  simScript: z.string().nullable(),
  freezeMeta: z.boolean(),
  taskTimeoutSec: count(1),
  metaTimeoutSec: count(1),
  /** Append every model response to this JSON Lines file. */
  record: z.string().nullable(),
  /** Answer every model call from this recording; no model is called. */
  replay: z.string().nullable(),
  sim: SimConfigSchema,
  /** Transfer: variant 0 is this variant's code instead of the initial agent. */
  from: TransferSourceSchema.nullable().default(null),
});
export type RunConfig = z.infer<typeof RunConfigSchema>;

/** Options a resumed run may change; any other difference is refused. */
export const RESUMABLE_CHANGES = [
  'generations',
  'budgetUsd',
  'parallel',
] as const satisfies readonly (keyof RunConfig)[];

/** Reads a stored configuration back; null when it does not match the schema (a run of another version). */
export function parseStoredConfig(stored: unknown): RunConfig | null {
  const parsed = RunConfigSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}
