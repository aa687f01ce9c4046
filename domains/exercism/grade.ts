import { randomBytes } from 'node:crypto';
import { tampered } from '../../system/grade-marks.ts';
import type { Grade, WorkspaceFiles } from '../define-domain.ts';
import type { CommandResult, GradeContext } from '../grade-context.ts';
import {
  type ExerciseLayout,
  type ExercismLanguage,
  type GradeLimits,
  type LanguageName,
  MAX_OUTPUT_BYTES,
  type TestReport,
} from './language.ts';
import { LANGUAGES, refusal } from './languages.ts';
import type { ExerciseAnswer } from './read.ts';

export const DEFAULT_LIMITS: GradeLimits = { timeoutMs: 180_000, memoryMb: 2048 };
/** The end of the runner's output kept with a grade. */
const LOG_BYTES = 8192;
/** Names listed in a detail before "and N more". */
const LISTED = 5;

/** The files a grading run gets, and what of the answer was refused or left out on the way. */
export interface GradingCopy {
  files: Record<string, string>;
  /** Files the answer added or changed that the runner reads besides the solution (tampering). */
  refused: string[];
  /** Why a solution file's text was refused (Rust's Cargo.toml naming a build script), as tampering. */
  refusedText: string[];
  /** Other files of the answer that grading does not take (notes, helper modules): said in the detail. */
  leftOut: string[];
}

/**
 * The grading copy of an answer: every file the runner reads comes from the exercise (support files,
 * tests with every test enabled), and the answer gives only the solution files its layout lists. A file
 * of the answer outside those that the runner would read, new or changed, is refused; others are left out.
 */
export function gradingCopy(
  prediction: WorkspaceFiles,
  answer: ExerciseAnswer,
  language: ExercismLanguage,
): GradingCopy {
  const exercise = { ...answer.support, ...answer.tests };
  // What a solution is made of: the files its layout lists, and where the reference puts its files.
  const solution = new Set([...answer.layout.solution, ...Object.keys(answer.reference)]);
  const files: Record<string, string> = { ...exercise };
  const refusedText: string[] = [];
  for (const rel of solution) {
    if (rel in exercise) continue;
    const text = prediction.files[rel] ?? '';
    const checked = language.solutionText?.(rel, text, { ...exercise, ...answer.configuration }) ?? { text };
    if ('refused' in checked) refusedText.push(`${rel}: ${checked.refused}`);
    else files[rel] = checked.text;
  }
  const refused: string[] = [];
  const leftOut: string[] = [];
  for (const [rel, text] of Object.entries(prediction.files)) {
    if ((solution.has(rel) && !(rel in exercise)) || exercise[rel] === text) continue;
    // A hidden test's path is not tampering: the TaskAgent never saw that file (it may write its own).
    const hiddenTest = rel in answer.tests && answer.testsVisible !== true;
    if (!hiddenTest && (rel in exercise || language.isRunnerInput(rel))) refused.push(rel);
    else leftOut.push(rel);
  }
  return { files, refused: refused.sort(), refusedText, leftOut: leftOut.sort() };
}

function tail(text: string): string {
  return text.length <= LOG_BYTES ? text : `…${text.slice(-LOG_BYTES)}`;
}

const listed = (names: readonly string[]): string =>
  names.length <= LISTED
    ? names.join(', ')
    : `${names.slice(0, LISTED).join(', ')} and ${names.length - LISTED} more`;

const exitOf = (result: CommandResult): string =>
  result.exitCode !== null ? `exit ${result.exitCode}` : `signal ${result.signal ?? 'unknown'}`;

/**
 * The grade of one run: 1 only when the runner's own report (never the exit status, never a summary in the
 * shared output) says every test the exercise defines passed, and the runner exited 0. A run that ended
 * with status 0 and no report, or whose report saw the framework changed, is tampering.
 */
export function judgeRun(
  language: ExercismLanguage,
  result: CommandResult,
  limits: GradeLimits,
  expected: readonly string[],
  token: string,
): Grade {
  const log = tail(`${result.stdout}${result.stderr === '' ? '' : `\n${result.stderr}`}`);
  const fail = (detail: string): Grade => ({ score: 0, detail, log });
  const report = language.readReport(result, token);
  if (report !== null && report.tampering.length > 0)
    return fail(tampered(`the solution changed the test framework: ${listed(report.tampering)}`));
  if (result.timedOut) return fail(`time limit of ${limits.timeoutMs / 1000} s exceeded`);
  if (result.outputExceeded) return fail(`output limit of ${MAX_OUTPUT_BYTES} bytes exceeded`);
  if (report === null) {
    if (result.memoryExceeded) return fail(`memory limit of ${limits.memoryMb} MiB exceeded`);
    if (result.exitCode === 0) {
      const claim = language.claimsSuccess(result) ? ', though its output claims they passed' : '';
      return fail(
        tampered(`the test process exited with status 0 before the test runner reported its results${claim}`),
      );
    }
    const why = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-3).join(' ').slice(0, 300);
    return fail(`the tests did not run (${exitOf(result)}): ${why}`);
  }
  return judgeReport(report, result, expected, log);
}

function judgeReport(
  report: TestReport,
  result: CommandResult,
  expected: readonly string[],
  log: string,
): Grade {
  const outcome = new Map<string, boolean>();
  for (const t of report.tests) outcome.set(t.name, (outcome.get(t.name) ?? true) && t.passed);
  const names = expected.length > 0 ? expected : [...outcome.keys()];
  const passed = names.filter((name) => outcome.get(name) === true).length;
  const missing = names.filter((name) => !outcome.has(name));
  const failedOther = report.tests.filter((t) => !t.passed && !names.includes(t.name));
  const all = names.length > 0 && passed === names.length && failedOther.length === 0;
  const firstFailure = report.tests.find((t) => !t.passed);
  const parts = [`${passed}/${names.length} tests passed`];
  if (missing.length > 0) parts.push(`${missing.length} never ran (${listed(missing)})`);
  if (firstFailure !== undefined)
    parts.push(
      `${firstFailure.name}${firstFailure.message ? `: ${firstFailure.message.slice(0, 300)}` : ''}`,
    );
  if (result.exitCode !== 0) parts.push(exitOf(result));
  return { score: all && result.exitCode === 0 ? 1 : 0, detail: parts.join('; '), log };
}

/** The token a grading run's report carries: new for each run, never written where the solution can read. */
export const newToken = (): string => randomBytes(16).toString('hex');

/**
 * Grades an answer: its grading copy (see gradingCopy) is run by the language's test runner in the grading
 * sandbox, and judged on the runner's own report.
 */
export async function gradeExercise(
  prediction: WorkspaceFiles,
  answer: ExerciseAnswer,
  ctx: GradeContext,
  languages: Partial<Record<LanguageName, ExercismLanguage>> = LANGUAGES,
  limitsOverride?: GradeLimits,
): Promise<Grade> {
  const language = languages[answer.language];
  if (language === undefined) throw new Error(`${answer.language} exercises are not graded by this version`);
  const toolchain = language.toolchain();
  if (!toolchain.ok) throw new Error(refusal(language, toolchain));
  const copy = gradingCopy(prediction, answer, language);
  const refused = refusalDetail(copy, answer.layout);
  if (refused !== null) return { score: 0, detail: refused };
  // What grading builds once per content (C++: the compiled test main; Rust: the manifest's
  // dependencies), from the exercise's own files: its support files and its own runner configuration.
  await language.prepare?.(ctx, { ...answer.support, ...answer.configuration });
  const limits = limitsOverride ?? language.limits ?? DEFAULT_LIMITS;
  const token = newToken();
  const result =
    language.run !== undefined
      ? await language.run(ctx, copy.files, answer.layout, limits, token)
      : await ctx.run({
          ...language.gradeCommand(answer.layout, token),
          files: copy.files,
          timeoutMs: limits.timeoutMs,
          memoryMb: limits.memoryMb,
          maxOutputBytes: MAX_OUTPUT_BYTES,
        });
  const grade = judgeRun(
    language,
    result,
    limits,
    language.expectedTests(answer.tests, answer.layout),
    token,
  );
  if (copy.leftOut.length === 0 || typeof grade === 'number') return grade;
  return { ...grade, detail: `${grade.detail} (not graded: ${listed(copy.leftOut)})` };
}

/** The detail of an answer refused before any test ran, or null. */
function refusalDetail(copy: GradingCopy, layout: ExerciseLayout): string | null {
  if (copy.refusedText.length > 0) return tampered(`refused: ${copy.refusedText.join('; ')}`);
  if (copy.refused.length === 0) return null;
  return tampered(
    `refused: the answer writes ${listed(copy.refused)}, which the test runner reads; ` +
      `only the solution files (${listed(layout.solution)}) are graded`,
  );
}
