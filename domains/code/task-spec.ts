/**
 * One small function task of the `code` domain, written for this project. It becomes an exercise in the
 * Exercism layout: a stub, hidden Jest-style tests, and a reference solution.
 */
export interface CodeTask {
  /** Folder-style name, also the task id. */
  name: string;
  lang: 'js' | 'ts';
  /** The exported function. */
  fn: string;
  /** What the function does, with an example; shown to the agent. */
  instructions: string;
  /** Parameter list as written in the stub, e.g. `(text: string): number` in TypeScript. */
  signature: string;
  /** [call, expected] pairs in source form; each becomes one hidden test. */
  cases: readonly (readonly [string, string])[];
  /** Body of the reference solution (the statements inside the function). */
  solution: string;
}
