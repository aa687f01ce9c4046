/**
 * What the harness gives a grader: a way to run a command in the sandbox with limits. Domains never
 * import the sandbox; they describe the command and the harness decides how it is contained.
 */
export interface GradeContext {
  /** Runs one command; never throws (a failure to start is a result with `exitCode: null`). */
  run(command: SandboxedCommand): Promise<CommandResult>;
}

export interface SandboxedCommand {
  file: string;
  args: string[];
  /**
   * Files (relative path → text) written into a fresh working directory, the only place the command
   * may write; the directory is removed afterwards. Relative paths in `args` are relative to it.
   */
  files: Record<string, string>;
  /** Extra paths the command may read (the project's node_modules and Node itself are always readable). */
  readOnly?: string[];
  /**
   * Extra paths the command may write: only a fresh folder the caller made for this one command and
   * moves into place once it ends (a grader's build cache, built from the exercise alone). Never a
   * folder another command reads.
   */
  readWrite?: string[];
  env?: Record<string, string>;
  /** Written to the command's standard input, which is then closed. */
  stdin?: string;
  /** Wall-clock limit; the whole process tree is killed when it passes. */
  timeoutMs: number;
  /** Limit on the data segment of every process, in MiB. */
  memoryMb: number;
  /**
   * Processes and threads the command may run at once; the sandbox's default (256) when left out. For
   * runners whose tests start many threads (C++ and Java `bank-account` start 1,000). Each thread's stack
   * still counts against `memoryMb`.
   */
  processes?: number;
  /** Output kept per stream; the command is killed once it writes more. */
  maxOutputBytes: number;
}

export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Stopped at its wall-clock limit (`timeoutMs`). */
  timedOut: boolean;
  /** Stopped for writing more than `maxOutputBytes`. */
  outputExceeded: boolean;
  /**
   * Ended because memory could not be had under its limit (`memoryMb`, or a runtime's own heap limit): read
   * from how the process ended, never from what it printed.
   */
  memoryExceeded: boolean;
  durationMs: number;
}
