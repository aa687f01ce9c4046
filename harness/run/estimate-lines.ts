import { batchLine } from './estimate-batch.ts';
import {
  type Estimate,
  type EstimateInput,
  META_CALLS,
  type StageCounts,
  usdText,
} from './estimate-units.ts';

/** How an estimate from assumptions reads: the range, then the assumptions, then any budget warning. */

/** `4.5 s`, `45 s`, `2.5 min`, `12 min`, `3.5 h`: about two significant figures. */
export function duration(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 10 * 60) return `${(seconds / 60).toFixed(1)} min`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** How the price reads: the sim's is nominal (`--sim-price-per-mtok`) or $0. */
export type PriceNote = { kind: 'real' } | { kind: 'sim'; pricePerMTok: number };

/**
 * The lines printed before the first generation: the range, then the assumptions, then (when the budget is
 * under the range) a warning that the run will likely stop on the budget.
 */
export function estimateLines(
  input: EstimateInput,
  estimate: Estimate,
  note: PriceNote,
  resumed: boolean,
): string[] {
  const { calls, usd: money, seconds } = estimate;
  const what = `${resumed ? 'the remaining ' : ''}${input.generations} generation${input.generations === 1 ? '' : 's'}`;
  const price =
    note.kind === 'real'
      ? ''
      : note.pricePerMTok === 0
        ? ' (sim: $0)'
        : ` (sim: nominal $${note.pricePerMTok}/Mtok from --sim-price-per-mtok)`;
  const lines = [
    `Estimate for ${what}: ${calls.low}–${calls.high} model calls, ${usdText(money.low)}–${usdText(money.high)}${price}, ` +
      `about ${duration(seconds.low)}–${duration(seconds.high)}.`,
    `  Assumed per generation: a MetaAgent of ${META_CALLS.low}–${META_CALLS.high} calls; the child evaluated on ` +
      `${input.skipStagedEval ? 'the full' : 'the staged sample'} (low) up to the full evaluation (high) of ` +
      `${input.tasks.full.plain + input.tasks.full.workspace} task(s) × ${input.evalRepeats} attempt(s)` +
      `${input.tasks.full.workspace > 0 ? `, workspace tasks 2–${input.maxToolCalls + 1} calls each` : ''}; ` +
      `${input.callSec.low}–${input.callSec.high} s per call; ` +
      gradingText(input.tasks, input.evalWorkers) +
      `${input.parallel} generation(s) at once. Gate ` +
      'rejections and failures cost less.' +
      (input.initialEval
        ? " The high end includes variant 0's evaluation (free when its results are cached)."
        : ''),
  ];
  const batch = batchLine(input, estimate);
  if (batch !== null) lines.push(batch);
  const left = estimate.budgetLeftUsd;
  if (left !== null && estimate.overBudget !== null) {
    lines.push(
      estimate.overBudget === 'low'
        ? `  Even the low end is over the budget left (${usdText(left)} of --budget-usd): the run will stop on the budget.`
        : `  The high end is over the budget left (${usdText(left)} of --budget-usd): the run will likely stop on the budget.`,
    );
  }
  return lines;
}

/** The grading time the estimate adds (the domains' measured time per task, e.g. per Polyglot language), or ''. */
function gradingText(tasks: StageCounts, evalWorkers: number): string {
  const full = tasks.full.gradingSec ?? 0;
  if (full === 0) return '';
  const staged = tasks.staged.gradingSec ?? 0;
  return (
    `grading ${duration(staged)} (staged) to ${duration(full)} (full) per attempt at the measured time ` +
    `per task, ${evalWorkers} at once; `
  );
}
