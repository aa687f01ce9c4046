// What an estimate counts in, shared by the estimate from prices (estimate.ts) and the one from a run's
// history (estimate-history.ts), which estimate.ts imports.

/** $ per million tokens. */
export interface Price {
  input: number;
  output: number;
}

/** Tasks of each evaluation stage, plain and workspace, over every domain. */
export interface StageCounts {
  staged: { plain: number; workspace: number };
  full: { plain: number; workspace: number };
}

/** `$0`, `$0.0031`, `$1.25`. */
export const usdText = (x: number): string =>
  x === 0 ? '$0' : x < 0.01 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`;
