import { batchDiscountOf, resolveModel } from '../../llm/index.ts';
import {
  estimateFromHistory,
  type HistoryRates,
  type PlannedRun,
  type PointEstimate,
} from './estimate-history.ts';
import {
  type BatchPrices,
  type EstimateInput,
  type Price,
  type Range,
  type StageCounts,
  usdText,
} from './estimate-units.ts';
import type { RunConfig } from './run-config.ts';

/**
 * `--batch` in the estimate: only the TaskAgent's calls on single-reply tasks go through a batch, at the batch
 * price; the MetaAgent's calls and workspace tasks never do (docs/batch.md).
 */

/** The task model's batch endpoint as the estimate counts it (see EstimateInput.batch); {} when it has none. */
export function batchOf(config: RunConfig): Pick<EstimateInput, 'batch'> {
  const resolved = resolveModel(config.taskModel);
  const discount = resolved.ok ? batchDiscountOf(resolved.model) : undefined;
  return discount === undefined ? {} : { batch: { on: config.batch, discount } };
}

/**
 * The price with and without `--batch`, from the price without it and the part of it a batch would answer
 * (`batchable`: the single-reply tasks' calls and what they cost); null when the task model has no batch
 * endpoint.
 */
export function batchPrices(
  input: EstimateInput,
  withoutBatch: Range,
  batchable: { usd: Range; calls: Range },
): BatchPrices | null {
  if (input.batch === undefined) return null;
  const { discount } = input.batch;
  const saved = (end: 'low' | 'high'): number => batchable.usd[end] * (1 - discount);
  return {
    withBatch: { low: withoutBatch.low - saved('low'), high: withoutBatch.high - saved('high') },
    withoutBatch,
    batchedCalls: batchable.calls,
  };
}

/**
 * The share of the full stage's tasks that are single-reply, the ones whose calls a batch answers. As a share
 * of the calls it is an upper bound: a workspace task makes more calls than a single-reply one.
 */
export function plainShare(tasks: StageCounts): number {
  const { plain, workspace } = tasks.full;
  return plain + workspace === 0 ? 0 : plain / (plain + workspace);
}

/** `plan` with the task price lowered by what a batch saves on the single-reply tasks' share (see plainShare). */
export function batchedPlan<T extends { taskPrice: Price; tasks: StageCounts }>(
  plan: T,
  batch: NonNullable<EstimateInput['batch']>,
): T {
  const factor = 1 - (1 - batch.discount) * plainShare(plan.tasks);
  return {
    ...plan,
    taskPrice: { input: plan.taskPrice.input * factor, output: plan.taskPrice.output * factor },
  };
}

/**
 * A point estimate at an earlier run's rates, at the batch price when `--batch` is on, and the line with the
 * other price (null without a batch endpoint). The batched calls are the TaskAgent's on the single-reply share
 * of the tasks (see plainShare).
 */
export function pointWithBatch(
  rates: HistoryRates,
  plan: PlannedRun & Pick<EstimateInput, 'batch' | 'generations'>,
  batch: EstimateInput['batch'],
): { point: PointEstimate; batch: string | null } {
  const ordinary = estimateFromHistory(rates, plan);
  if (batch === undefined) return { point: ordinary, batch: null };
  const batched = estimateFromHistory(rates, batchedPlan(plan, batch));
  const point = batch.on ? batched : ordinary;
  const at = (x: number): Range => ({ low: x, high: x });
  const taskCalls = point.total.calls - rates.metaCalls * plan.generations;
  const prices = {
    withBatch: at(batched.total.usd),
    withoutBatch: at(ordinary.total.usd),
    batchedCalls: at(Math.round(taskCalls * plainShare(plan.tasks))),
  };
  return { point, batch: batchLine({ batch }, { batch: prices }) };
}

/** `half`, or `40%`: what a batch call costs of an ordinary one. */
const shareText = (discount: number): string =>
  discount === 0.5 ? 'half' : `${Math.round(discount * 100)}%`;

const rangeText = (r: Range, text: (x: number) => string): string =>
  r.low === r.high ? text(r.low) : `${text(r.low)}–${text(r.high)}`;

/**
 * The price with and without `--batch`, saying what a batch answers: the TaskAgent's calls on single-reply
 * tasks only. Null when the task model has no batch endpoint or the run has no such call.
 */
export function batchLine(
  input: Pick<EstimateInput, 'batch'>,
  estimate: { batch: BatchPrices | null },
): string | null {
  const prices = estimate.batch;
  if (input.batch === undefined || prices === null || prices.batchedCalls.high === 0) return null;
  const calls = `the TaskAgent's ${rangeText(prices.batchedCalls, (x) => String(Math.round(x)))} call(s) on single-reply tasks`;
  const usd = (r: Range) => rangeText(r, usdText);
  const share = shareText(input.batch.discount);
  return input.batch.on
    ? `  With --batch (counted above): ${calls} at ${share} the price; the MetaAgent's calls and workspace tasks are ` +
        `never batched. Without --batch: ${usd(prices.withoutBatch)}. Each round waits on its batch too (minutes ` +
        'to hours), not counted in the time.'
    : `  With --batch: ${usd(prices.withBatch)}, ${calls} at ${share} the price; the MetaAgent's calls and ` +
        'workspace tasks are never batched. Each round then waits on its batch (minutes to hours).';
}
