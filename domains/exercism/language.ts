import type { CommandResult, GradeContext, SandboxedCommand } from '../grade-context.ts';

/** The output of one grading run kept, in bytes: past it the run is cut off and fails. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** How long and how much memory one grading run of an exercise may take. */
export interface GradeLimits {
  timeoutMs: number;
  memoryMb: number;
}

/** The languages of the Polyglot benchmark, and TypeScript, as `exercism:` names them in task ids. */
export const LANGUAGE_NAMES = ['cpp', 'go', 'java', 'javascript', 'python', 'rust', 'typescript'] as const;
export type LanguageName = (typeof LANGUAGE_NAMES)[number];

/** One exercise as `.meta/config.json` lays it out (paths relative to the exercise folder). */
export interface ExerciseLayout {
  /** The folder name, e.g. `bowling`. */
  name: string;
  /** The files the solution goes in (the stubs the TaskAgent starts with). */
  solution: string[];
  /** The test files: hidden unless the domain makes them visible. */
  test: string[];
  /** The reference solution's files, in the order of `solution` where they correspond. */
  example: string[];
}

/** One test as the runner reported it, by the name `expectedTests` gives it. */
export interface TestOutcome {
  name: string;
  passed: boolean;
  /** Why it failed, briefly (an assertion's message). */
  message?: string;
}

/**
 * What the test runner itself reported, read from a channel the solution cannot write (a line that carries
 * this grading's secret token, which no solution code sees, or a file only the runner writes).
 */
export interface TestReport {
  tests: TestOutcome[];
  /** What the runner saw the solution do to it (an assertion method replaced, an intrinsic patched). */
  tampering: string[];
}

/** Whether a language's toolchain is usable here, and if not, what to install. */
export type ToolchainStatus = { ok: true } | { ok: false; missing: string; packages: string[] };

/**
 * How one language's exercises are read, graded and described. Grading runs `command` in the grading
 * sandbox (no network, a fresh working directory holding `files`, nothing writable shared between tasks).
 */
export interface ExercismLanguage {
  name: LanguageName;
  /** Debian packages that provide the toolchain, for the refusal message and the README. */
  packages: readonly string[];
  /** Checks the toolchain once per process (binaries, jars, modules). */
  toolchain(): ToolchainStatus;
  /**
   * Where the reference file `example` is written in the workspace, e.g. `.meta/example.py` →
   * `bowling.py`, `.meta/src/reference/java/Bowling.java` → `src/main/java/Bowling.java`.
   */
  referenceTarget(layout: ExerciseLayout, example: string): string;
  /** Optional: the reference file's text as the track's CI uses it (JavaScript: `../` imports made `./`). */
  referenceText?(text: string): string;
  /** Files of the exercise folder beside the solution that the workspace holds (build files, headers). */
  isSupportFile(relPath: string): boolean;
  /** The test files as grading runs them: every test enabled (skips, `@Disabled`, `#[ignore]` lifted). */
  enableAllTests(files: Record<string, string>, layout: ExerciseLayout): Record<string, string>;
  /** The test command, for the TaskAgent's prompt when tests are visible (e.g. `pytest -q`). */
  testCommand: string;
  /**
   * Whether the runner would read this file, beside the solution files, in a grading copy: configuration
   * (`conftest.py`, `.cargo/config.toml`, `META-INF/services/*`), build files, test sources, modules that
   * shadow the framework. The grading copy never holds a TaskAgent's version of such a file; one that the
   * TaskAgent added or changed refuses the answer as tampering. Files the runner makes for itself (build
   * folders, caches, `Cargo.lock`) are not inputs: an honest TaskAgent that ran the tests leaves them.
   */
  isRunnerInput(relPath: string): boolean;
  /**
   * The tests the exercise defines (every test enabled), by the names `readReport` gives them: each must
   * be reported as passed. Empty when the language cannot tell them from the sources; then the report
   * alone counts, and it must hold at least one test.
   */
  expectedTests(tests: Record<string, string>, layout: ExerciseLayout): string[];
  /**
   * The command grading runs, for the grading copy `files` (hidden tests and support files added). `token`
   * is this grading's secret: the runner's report carries it, and no file or variable the solution can
   * read holds it.
   */
  gradeCommand(
    layout: ExerciseLayout,
    token: string,
  ): Omit<SandboxedCommand, 'files' | 'timeoutMs' | 'memoryMb' | 'maxOutputBytes'>;
  /**
   * Optional: builds once, for each distinct content, what grading may then read but never write (e.g. a
   * compiled test main), from the exercise's own support and configuration files as its folder holds
   * them (never a workspace's: Rust's `Cargo.toml` is the exercise's, not the answer's). Its commands run through `ctx` like grading; a failure leaves grading to build everything
   * itself. Calls for the same content after the first return at once.
   */
  prepare?(ctx: GradeContext, support: Record<string, string>): Promise<void>;
  /**
   * Optional: why this exercise cannot be graded here although the toolchain is installed (it needs a
   * newer toolchain, a library or crate that is missing, or defines no test), or null. The exercise is
   * then refused as a task with that reason (skipped, never scored). `tests` have every test enabled;
   * `files` are the workspace's with the reference over them.
   */
  unsupported?(exercise: {
    tests: Record<string, string>;
    reference: Record<string, string>;
    support: Record<string, string>;
    files: Record<string, string>;
  }): string | null;
  /** The runner's report, from its trusted channel (see TestReport), or null when none came. */
  readReport(result: CommandResult, token: string): TestReport | null;
  /**
   * Whether the output claims the tests passed, as the runner's summary would (for the detail of a run
   * that ended without a report: a solution that printed a summary and exited).
   */
  claimsSuccess(result: CommandResult): boolean;
  /**
   * Optional: the text a solution file is graded with, when the file is also the runner's configuration
   * (Rust's `Cargo.toml`, which names the crates a solution uses): what may change is kept, the rest is
   * the exercise's own; or why it is refused as tampering.
   */
  solutionText?(
    relPath: string,
    text: string,
    exercise: Record<string, string>,
  ): { text: string } | { refused: string };
  /** Limits of one grading run, when the domain's defaults (3 min, 2 GiB) do not fit. */
  limits?: GradeLimits;
  /**
   * Runs the tests on the grading copy itself, for a runner that is not one plain command (JavaScript's
   * spec runner, whose files are laid out for it). Languages with a command leave it out.
   */
  run?(
    ctx: GradeContext,
    files: Record<string, string>,
    layout: ExerciseLayout,
    limits: GradeLimits,
    token: string,
  ): Promise<CommandResult>;
}
