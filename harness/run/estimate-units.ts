// What an estimate counts in, shared by the estimate from prices (estimate.ts) and the one from a run's
// history (estimate-history.ts), which estimate.ts imports.

/** $ per million tokens. */
export interface Price {
  input: number;
  output: number;
}

/**
 * Tasks of each evaluation stage, plain and workspace, over every domain, and the seconds their grading
 * takes one attempt each (the domains' measured `gradingSec`; 0 or left out when grading is instant).
 */
export interface StageCounts {
  staged: { plain: number; workspace: number; gradingSec?: number };
  full: { plain: number; workspace: number; gradingSec?: number };
}

/** `$0`, `$0.0031`, `$1.25`. */
export const usdText = (x: number): string =>
  x === 0 ? '$0' : x < 0.01 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`;

/** A low–high range. */
export interface Range {
  low: number;
  high: number;
}

/** Model calls of one MetaAgent: a few at least; its tool-call limit (40) plus the final answer at most. */
export const META_CALLS: Range = { low: 3, high: 41 };
/** Tokens per MetaAgent call: its conversation grows with every step. */
export const META_TOKENS = { input: { low: 4_000, high: 40_000 }, output: { low: 300, high: 2_000 } };
/** Tokens per call of a TaskAgent answering one plain task (one call per task). */
export const TASK_TOKENS = { input: { low: 300, high: 2_000 }, output: { low: 50, high: 1_000 } };
/** Tokens per call of a TaskAgent on a workspace task (its conversation grows with each tool call). */
export const WORKSPACE_TOKENS = { input: { low: 2_000, high: 20_000 }, output: { low: 200, high: 2_000 } };
/** Seconds one call of a real model takes. */
export const REAL_CALL_SEC: Range = { low: 1, high: 20 };
/** Seconds a generation spends outside model calls: git, the gate's checks, starting agent processes. */
export const OVERHEAD_SEC: Range = { low: 1, high: 20 };

export interface EstimateInput {
  /** Generations still to run (all of them for a new run). */
  generations: number;
  parallel: number;
  evalWorkers: number;
  evalRepeats: number;
  skipStagedEval: boolean;
  tasks: StageCounts;
  /** Tool calls a TaskAgent may make on one workspace task. */
  maxToolCalls: number;
  metaTimeoutSec: number;
  metaPrice: Price;
  taskPrice: Price;
  /** Seconds per model call (the sim's latency, or REAL_CALL_SEC). */
  callSec: Range;
  budgetUsd: number | null;
  /** Spent before this process (a resumed run); 0 for a new run. */
  spentUsd: number;
  /** A new run evaluates variant 0 on the full stage first: counted in the high end (a cached result is free). */
  initialEval: boolean;
  /**
   * The task model's batch endpoint: whether `--batch` is on, and the share of the ordinary price a batch call
   * costs. Left out when the model has none.
   */
  batch?: { on: boolean; discount: number };
}

/**
 * The price with `--batch` and without it (the estimate's `usd` is the one in force), and the TaskAgent calls
 * a batch would answer: those on single-reply tasks, never the MetaAgent's or a workspace task's.
 */
export interface BatchPrices {
  withBatch: Range;
  withoutBatch: Range;
  batchedCalls: Range;
}

export interface Estimate {
  calls: Range;
  usd: Range;
  seconds: Range;
  /** The budget left for this process, or null without a budget. */
  budgetLeftUsd: number | null;
  /** `high`: the upper end exceeds the budget left; `low`: even the lower end does; null: it fits or no budget. */
  overBudget: 'low' | 'high' | null;
  /** With and without `--batch`; null when the task model has no batch endpoint. */
  batch: BatchPrices | null;
}
