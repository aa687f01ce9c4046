import { resolveModel } from '../../llm/index.ts';
import { type DomainTasks, stageSplits, stageTasks } from '../evaluation/index.ts';
import { batchOf, batchPrices, pointWithBatch } from './estimate-batch.ts';
import { type HistoryRates, historyLines, type PointEstimate } from './estimate-history.ts';
import { duration, estimateLines, type PriceNote } from './estimate-lines.ts';
import {
  type Estimate,
  type EstimateInput,
  META_CALLS,
  META_TOKENS,
  OVERHEAD_SEC,
  type Price,
  type Range,
  REAL_CALL_SEC,
  type StageCounts,
  TASK_TOKENS,
  usdText,
  WORKSPACE_TOKENS,
} from './estimate-units.ts';
import type { RunConfig, SimConfig } from './run-config.ts';

export { duration, estimateLines, type PriceNote } from './estimate-lines.ts';
export {
  type BatchPrices,
  type Estimate,
  type EstimateInput,
  META_CALLS,
  META_TOKENS,
  OVERHEAD_SEC,
  type Range,
  REAL_CALL_SEC,
  TASK_TOKENS,
  usdText,
  WORKSPACE_TOKENS,
} from './estimate-units.ts';

/**
 * What a run is expected to spend and take before it starts: a range from the prices, the task counts and the
 * limits, with the assumptions named. Not a measurement: the token counts per call and the seconds per call
 * are assumptions (below), and the MetaAgent decides how many calls it makes.
 */

/** The plain and workspace tasks of each stage, as the evaluation picks them. */
export function stageCounts(domains: readonly DomainTasks[], evalTest: boolean): StageCounts {
  const counts = {
    staged: { plain: 0, workspace: 0, gradingSec: 0 },
    full: { plain: 0, workspace: 0, gradingSec: 0 },
  };
  for (const stage of ['staged', 'full'] as const) {
    for (const { domain, splits } of domains) {
      for (const split of stageSplits(domain, stage, evalTest)) {
        for (const task of stageTasks(splits[split] ?? [], domain, stage)) {
          counts[stage][task.workspace === undefined ? 'plain' : 'workspace']++;
          counts[stage].gradingSec += domain.gradingSec?.(task) ?? 0;
        }
      }
    }
  }
  return counts;
}

const cost = (calls: number, tokens: { input: number; output: number }, price: Price): number =>
  (calls * (tokens.input * price.input + tokens.output * price.output)) / 1_000_000;

/**
 * Low end: every generation's MetaAgent makes a few calls and its child is evaluated on the staged sample
 * only, each workspace task in two calls. High end: every MetaAgent uses its whole tool-call limit and every
 * child goes on to the full evaluation, each workspace task using every tool call. Pure.
 */
export function estimateRun(input: EstimateInput): Estimate {
  const { tasks, evalRepeats: repeats } = input;
  const first = input.skipStagedEval ? tasks.full : tasks.staged;
  const taskCalls = { low: first.plain * repeats, high: tasks.full.plain * repeats };
  const workspaceCalls = {
    low: first.workspace * repeats * 2,
    high: tasks.full.workspace * repeats * (input.maxToolCalls + 1),
  };
  const gradingSec = {
    low: (first.gradingSec ?? 0) * repeats,
    high: (tasks.full.gradingSec ?? 0) * repeats,
  };
  const per = (end: 'low' | 'high') => {
    const calls = META_CALLS[end] + taskCalls[end] + workspaceCalls[end];
    // Only the single-reply tasks' calls can go through a batch.
    const batchable = cost(
      taskCalls[end],
      { input: TASK_TOKENS.input[end], output: TASK_TOKENS.output[end] },
      input.taskPrice,
    );
    const usd =
      cost(
        META_CALLS[end],
        { input: META_TOKENS.input[end], output: META_TOKENS.output[end] },
        input.metaPrice,
      ) +
      batchable +
      cost(
        workspaceCalls[end],
        { input: WORKSPACE_TOKENS.input[end], output: WORKSPACE_TOKENS.output[end] },
        input.taskPrice,
      );
    const metaSec = Math.min(META_CALLS[end] * input.callSec[end], input.metaTimeoutSec);
    // Tasks run evalWorkers at once; a workspace task's calls follow one another, then it is graded.
    const taskSec =
      (Math.ceil(taskCalls[end] / input.evalWorkers) + Math.ceil(workspaceCalls[end] / input.evalWorkers)) *
        input.callSec[end] +
      gradingSec[end] / input.evalWorkers;
    return { calls, usd, batchable, seconds: OVERHEAD_SEC[end] + metaSec + taskSec };
  };
  const low = per('low');
  const high = per('high');
  const n = input.generations;
  const rounds = Math.ceil(n / input.parallel);
  const zero = input.initialEval
    ? initialEvaluation(input)
    : { calls: 0, plainCalls: 0, usd: 0, batchable: 0, seconds: 0 };
  const withoutBatch = { low: low.usd * n, high: high.usd * n + zero.usd };
  const batch = batchPrices(input, withoutBatch, {
    usd: { low: low.batchable * n, high: high.batchable * n + zero.batchable },
    calls: { low: taskCalls.low * n, high: taskCalls.high * n + zero.plainCalls },
  });
  const usd = input.batch?.on === true && batch !== null ? batch.withBatch : withoutBatch;
  const budgetLeftUsd = input.budgetUsd === null ? null : Math.max(0, input.budgetUsd - input.spentUsd);
  const overBudget =
    budgetLeftUsd === null
      ? null
      : usd.low > budgetLeftUsd
        ? 'low'
        : usd.high > budgetLeftUsd
          ? 'high'
          : null;
  return {
    calls: { low: low.calls * n, high: high.calls * n + zero.calls },
    usd,
    seconds: { low: low.seconds * rounds, high: high.seconds * rounds + zero.seconds },
    budgetLeftUsd,
    overBudget,
    batch,
  };
}

/** Variant 0's full evaluation at the high end's assumptions. */
function initialEvaluation(input: EstimateInput) {
  const { full } = input.tasks;
  const plain = full.plain * input.evalRepeats;
  const workspace = full.workspace * input.evalRepeats * (input.maxToolCalls + 1);
  const batchable = cost(
    plain,
    { input: TASK_TOKENS.input.high, output: TASK_TOKENS.output.high },
    input.taskPrice,
  );
  const usd =
    batchable +
    cost(
      workspace,
      { input: WORKSPACE_TOKENS.input.high, output: WORKSPACE_TOKENS.output.high },
      input.taskPrice,
    );
  const grading = ((full.gradingSec ?? 0) * input.evalRepeats) / input.evalWorkers;
  const seconds =
    (Math.ceil(plain / input.evalWorkers) + Math.ceil(workspace / input.evalWorkers)) * input.callSec.high +
    grading;
  return { calls: plain + workspace, plainCalls: plain, usd, batchable, seconds };
}

/** Seconds per call of the simulated model: its latency setting, or next to none. */
export function simCallSec(latency: SimConfig['latency']): Range {
  if (latency === null) return { low: 0, high: 0.1 };
  switch (latency.kind) {
    case 'fixed':
      return { low: latency.ms / 1000, high: latency.ms / 1000 };
    case 'uniform':
      return { low: latency.minMs / 1000, high: latency.maxMs / 1000 };
    case 'lognormal':
      return { low: latency.medianMs / 1000, high: (latency.medianMs * Math.exp(2 * latency.sigma)) / 1000 };
  }
}

/** A model's price; the sim's is its nominal `--sim-price-per-mtok`, for input and output alike. */
function priceOf(id: string, sim: SimConfig): { price: Price; simulated: boolean } {
  const resolved = resolveModel(id);
  if (!resolved.ok) return { price: { input: 0, output: 0 }, simulated: false };
  const { model } = resolved;
  if (model.simulated)
    return { price: { input: sim.pricePerMTok, output: sim.pricePerMTok }, simulated: true };
  return { price: { input: model.price.input, output: model.price.output }, simulated: false };
}

/** An estimate as figures (what `--estimate --json` prints): a range from assumptions, or a point at measured rates. */
export type EstimateFigures =
  | ({ kind: 'range'; generations: number; simulated: boolean } & Estimate)
  | {
      kind: 'point';
      generations: number;
      simulated: boolean;
      /** The run the rates were measured on. */
      source: string;
      calls: number;
      usd: number;
      seconds: number;
      perGeneration: PointEstimate['perGeneration'];
      initial: PointEstimate['initial'];
      rates: HistoryRates;
      budgetLeftUsd: number | null;
      overBudget: boolean;
    };

/**
 * What a run was expected to take when it started, as printed and as recorded in its events (`estimate`): the
 * generations it covered, calls, cost and time (a range, or one expected figure where low equals high), the run
 * whose rates gave that figure (null: a range from assumptions), and the lines printed.
 */
export interface RunEstimate {
  generations: number;
  resumed: boolean;
  calls: Range;
  usd: Range;
  seconds: Range;
  from: string | null;
  lines: string[];
}

/**
 * The estimate for a run about to start: `done` generations already finished and `spentUsd` spent
 * (a resumed run; 0 and 0 for a new one). With `history` (rates measured on an earlier run, or on this one
 * when resumed), one expected figure at those rates; without, a range from assumptions. `startupSec`: what
 * the command took to start up to here on this machine, which the run will take again before it begins.
 * The lines printed, and the same as figures.
 */
export function runEstimate(
  config: RunConfig,
  domains: readonly DomainTasks[],
  resumed: { done: number; spentUsd: number } | null,
  history: { rates: HistoryRates; source: string } | null = null,
  startupSec = 0,
): RunEstimate & { figures: EstimateFigures } {
  const { input, simulated, note } = estimateInput(config, domains, resumed);
  const { generations } = input;
  const base = { generations, resumed: resumed !== null };
  if (history === null) {
    const range = estimateRun(input);
    const lines = estimateLines(input, range, note, resumed !== null);
    const { calls, usd, seconds } = range;
    return {
      ...base,
      calls,
      usd,
      seconds,
      from: null,
      lines,
      figures: { kind: 'range', generations, simulated, ...range },
    };
  }
  const plan = {
    ...input,
    valTasks: domains.reduce((n, d) => n + stageTasks(d.splits.val ?? [], d.domain, 'full').length, 0),
    noiseFloor: resumed === null ? config.noiseFloor : 0,
    confirmTop: config.confirmTop,
    startupSec,
  };
  const { point, batch } = pointWithBatch(history.rates, plan, input.batch);
  const lines = historyLines(
    `${resumed ? 'the remaining ' : ''}${generations} generation(s)`,
    history.source,
    history.rates,
    point,
    duration,
  );
  if (batch !== null) lines.push(batch);
  const left = input.budgetUsd === null ? null : Math.max(0, input.budgetUsd - input.spentUsd);
  const overBudget = left !== null && point.total.usd > left;
  if (overBudget)
    lines.push(
      `  That is over the budget left (${usdText(left)} of --budget-usd): the run will likely stop on the budget.`,
    );
  const at = (x: number): Range => ({ low: x, high: x });
  const { total } = point;
  return {
    ...base,
    calls: at(total.calls),
    usd: at(total.usd),
    seconds: at(total.seconds),
    from: history.source,
    lines,
    figures: {
      kind: 'point',
      generations,
      simulated,
      source: history.source,
      ...point.total,
      perGeneration: point.perGeneration,
      initial: point.initial,
      rates: history.rates,
      budgetLeftUsd: left,
      overBudget,
    },
  };
}

/** What an estimate of `config` is made from: the generations left, task counts, prices, budget. */
function estimateInput(
  config: RunConfig,
  domains: readonly DomainTasks[],
  resumed: { done: number; spentUsd: number } | null,
): { input: EstimateInput; simulated: boolean; note: PriceNote } {
  const meta = priceOf(config.metaModel, config.sim);
  const task = priceOf(config.taskModel, config.sim);
  const simulated = meta.simulated || task.simulated;
  const input: EstimateInput = {
    generations: Math.max(0, config.generations - (resumed?.done ?? 0)),
    parallel: config.parallel,
    evalWorkers: config.evalWorkers,
    evalRepeats: config.evalRepeats,
    skipStagedEval: config.skipStagedEval,
    tasks: stageCounts(domains, config.evalTest),
    maxToolCalls: config.workspace.maxToolCalls,
    metaTimeoutSec: config.metaTimeoutSec,
    metaPrice: meta.price,
    taskPrice: task.price,
    callSec: simulated ? simCallSec(config.sim.latency) : REAL_CALL_SEC,
    budgetUsd: config.budgetUsd,
    spentUsd: resumed?.spentUsd ?? 0,
    initialEval: resumed === null,
    ...batchOf(config),
  };
  const note: PriceNote = simulated
    ? { kind: 'sim', pricePerMTok: config.sim.pricePerMTok }
    : { kind: 'real' };
  return { input, simulated, note };
}
