import type { CommandResult } from '../../grade-context.ts';

/** A finished grading command that printed `stdout` and exited with `exitCode`, for tests of report reading. */
export const commandResult = (stdout: string, exitCode: number | null = 0): CommandResult => ({
  exitCode,
  signal: null,
  stdout,
  stderr: '',
  timedOut: false,
  outputExceeded: false,
  memoryExceeded: false,
  durationMs: 1,
});
