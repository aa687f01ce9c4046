import type { Grade } from '../define-domain.ts';
import type { CommandResult, GradeContext, SandboxedCommand } from '../grade-context.ts';

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
  /** The command grading runs, for the final workspace `files` (hidden tests already added). */
  gradeCommand(
    layout: ExerciseLayout,
  ): Omit<SandboxedCommand, 'files' | 'timeoutMs' | 'memoryMb' | 'maxOutputBytes'>;
  /**
   * Optional: builds once, for each distinct content, what grading may then read but never write (e.g. a
   * compiled test main), from the exercise's own support files as its folder holds them (never a
   * workspace's). Its commands run through `ctx` like grading; a failure leaves grading to build everything
   * itself. Calls for the same content after the first return at once.
   */
  prepare?(ctx: GradeContext, support: Record<string, string>): Promise<void>;
  /** Passed and total tests read from the runner's output, or null when it did not say. */
  countTests(result: CommandResult): { passed: number; total: number } | null;
  /** Limits of one grading run, when the domain's defaults (3 min, 2 GiB) do not fit. */
  limits?: GradeLimits;
  /**
   * Grades the final files (hidden tests added) itself, for a runner that is not one plain command
   * (JavaScript's spec runner, which reads a secret token first). Languages with a command leave it out.
   */
  grade?(
    ctx: GradeContext,
    files: Record<string, string>,
    layout: ExerciseLayout,
    limits: GradeLimits,
  ): Promise<Grade>;
}
