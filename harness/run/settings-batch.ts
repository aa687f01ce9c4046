import { z } from 'zod';
import { OptionTextError, type Setting } from './setting.ts';
import * as schema from './setting-schemas.ts';

/** Default of `--batch-poll`: the longest wait between two looks at a pending batch. */
export const DEFAULT_BATCH_POLL_SEC = 60;

/** The simulated batch endpoint's knobs, as `--sim-batch` sets them (llm/sim/sim-batch.ts). */
export const SimBatchSchema = z.object({
  polls: z.number().int().min(0).max(1000).default(1),
  endAfterMs: z.number().int().min(0).default(0),
  expire: z.boolean().default(false),
  errorRate: z.number().min(0).max(1).default(0),
});

const SIM_BATCH_HELP =
  'polls=N (pending for N polls, default 1), ms=N (and for N ms), expire, errors=RATE (0 to 1)';

/** `--sim-batch`'s text, `polls=3,ms=500,errors=0.2,expire`, as the knobs; null when not given. */
function readSimBatch(text: string | undefined) {
  if (text === undefined) return null;
  const knobs: Record<string, number | boolean> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, value] = part.split('=', 2) as [string, string | undefined];
    const number = Number(value);
    if (name === 'expire' && value === undefined) knobs.expire = true;
    else if (name === 'polls' && Number.isInteger(number) && number >= 0) knobs.polls = number;
    else if (name === 'ms' && Number.isInteger(number) && number >= 0) knobs.endAfterMs = number;
    else if (name === 'errors' && value !== undefined && number >= 0 && number <= 1) knobs.errorRate = number;
    else
      throw new OptionTextError(
        `--sim-batch: cannot read "${part}"; write ${SIM_BATCH_HELP}, comma-separated.`,
      );
  }
  return SimBatchSchema.parse(knobs);
}

/** Half-price evaluation through the providers' batch endpoints (docs/batch.md). */
export const BATCH_SETTINGS = [
  {
    option: 'batch',
    field: 'batch',
    // A run stored before it existed made ordinary calls.
    schema: z.boolean().default(false),
    type: 'boolean',
    default: false,
    describe:
      "send the TaskAgent's calls on single-reply tasks (datasets, lm-eval, inspect, arithmetic) through the " +
      "task model's batch endpoint at half price, in rounds: answers take minutes to hours, so use it for long " +
      "runs. The MetaAgent's calls and workspace tasks are never batched. Results are the same as without it",
    resume: 'keep',
    // A batch answers the same request with the same reply as an ordinary call: results are cached alike.
    result: 'none',
  },
  {
    option: 'batch-poll',
    field: 'batchPollSec',
    schema: schema.wholeNumber(1, 3600, ' of seconds').default(DEFAULT_BATCH_POLL_SEC),
    type: 'number',
    default: DEFAULT_BATCH_POLL_SEC,
    describe:
      'with --batch: the longest wait in seconds between two looks at a pending batch (the first comes after 2 s, ' +
      'each next one twice as late, up to this)',
    resume: 'may-change',
    result: 'none',
  },
  {
    option: 'sim-batch',
    field: 'simBatch',
    schema: SimBatchSchema.nullable().default(null),
    type: 'string',
    describe: `simulated model with --batch: how its batch endpoint behaves, ${SIM_BATCH_HELP}`,
    resume: 'keep',
    result: 'none',
    read: readSimBatch,
  },
] as const satisfies readonly Setting[];
