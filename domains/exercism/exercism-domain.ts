import { z } from 'zod';
import { type Domain, defineDomain, type Grade, type Split, type WorkspaceFiles } from '../define-domain.ts';
import type { CommandResult, GradeContext } from '../grade-context.ts';
import { groupBySplit, hashSplit } from '../hash-split.ts';
import type { ExercismLanguage, GradeLimits, LanguageName } from './language.ts';
import { LANGUAGES, refusal } from './languages.ts';
import type { ExerciseAnswer, ExerciseInput, ExerciseSet, ExerciseTask } from './read.ts';

export const DEFAULT_LIMITS: GradeLimits = { timeoutMs: 180_000, memoryMb: 2048 };
const MAX_OUTPUT_BYTES = 1024 * 1024;
/** The end of the runner's output kept with a grade. */
const LOG_BYTES = 8192;

/** A workspace path: relative, forward slashes, no `.` or `..` parts. */
const WorkspacePath = z
  .string()
  .refine(
    (p) =>
      p !== '' &&
      !p.startsWith('/') &&
      !p.includes('\\') &&
      p.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
    'a file path must be relative, with forward slashes and no "." or ".." parts',
  );

export const WorkspaceFilesSchema: z.ZodType<WorkspaceFiles> = z
  .object({ files: z.record(WorkspacePath, z.string()) })
  .refine((w) => Object.keys(w.files).length > 0, 'the workspace holds no files');

export interface ExercismOptions {
  name: string;
  /** The tests were in the workspace: said in the description and the metric, so every score shows it. */
  testsVisible?: boolean;
  description?: string;
  stagedSamples?: number;
  /** The languages graded; default: every language this version grades. */
  languages?: Partial<Record<LanguageName, ExercismLanguage>>;
  /** Replaces every language's limits (tests use short ones). */
  limits?: GradeLimits;
  /** Assigns splits; default: a stable hash of the exercise name, so one exercise shares a split across languages. */
  splitOf?: (task: ExerciseTask) => Split;
}

function tail(text: string): string {
  return text.length <= LOG_BYTES ? text : `…${text.slice(-LOG_BYTES)}`;
}

/** Score 1 when the runner exits 0 and no test failed; the detail counts tests or names the limit hit. */
export function judgeRun(language: ExercismLanguage, result: CommandResult, limits: GradeLimits): Grade {
  const log = tail(`${result.stdout}${result.stderr === '' ? '' : `\n${result.stderr}`}`);
  const fail = (detail: string): Grade => ({ score: 0, detail, log });
  if (result.timedOut) return fail(`time limit of ${limits.timeoutMs / 1000} s exceeded`);
  if (result.outputExceeded) return fail(`output limit of ${MAX_OUTPUT_BYTES} bytes exceeded`);
  if (result.memoryExceeded) return fail(`memory limit of ${limits.memoryMb} MiB exceeded`);
  const count = language.countTests(result);
  if (count !== null) {
    const all = result.exitCode === 0 && count.total > 0 && count.passed === count.total;
    const detail = `${count.passed}/${count.total} tests passed${all || result.exitCode === 0 ? '' : ` (exit ${result.exitCode ?? result.signal})`}`;
    return { score: all ? 1 : 0, detail, log };
  }
  if (result.exitCode === 0) return { score: 1, detail: 'the tests passed', log };
  const why = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-3).join(' ').slice(0, 300);
  return fail(`the tests did not run (exit ${result.exitCode ?? result.signal}): ${why}`);
}

/** Grades final workspace files: the hidden tests are written over them, then the language's runner runs. */
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
  // What grading builds once per content (C++: the compiled test main), from the exercise's own files.
  await language.prepare?.(ctx, answer.support);
  const files = { ...prediction.files, ...answer.support, ...answer.tests };
  const limits = limitsOverride ?? language.limits ?? DEFAULT_LIMITS;
  if (language.grade !== undefined) return language.grade(ctx, files, answer.layout, limits);
  const result = await ctx.run({
    ...language.gradeCommand(answer.layout),
    files,
    timeoutMs: limits.timeoutMs,
    memoryMb: limits.memoryMb,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  });
  return judgeRun(language, result, limits);
}

export const EXERCISE_FORMAT_HINT =
  'The exercise is a folder of files: write the solution into the solution files listed in the task ' +
  '(keeping the names the tests import). Every file of the folder as you leave it is graded.';

/**
 * A domain over Exercism exercises as workspace tasks (any language of `languages`), graded by each
 * language's own test runner with every test enabled.
 */
export function exercismDomain(
  set: ExerciseSet,
  options: ExercismOptions,
): Domain<ExerciseInput, ExerciseAnswer, WorkspaceFiles> {
  const groups = groupBySplit(set.tasks, options.splitOf ?? ((t) => hashSplit(t.input.exercise)));
  const languages = [...new Set(set.tasks.map((t) => t.input.language))].sort();
  const visible = options.testsVisible === true;
  return defineDomain<ExerciseInput, ExerciseAnswer, WorkspaceFiles>({
    name: options.name,
    description:
      options.description ??
      `Exercism exercises (${languages.join(', ') || 'none'}) in ${options.name}, ` +
        `tests ${visible ? 'visible in the workspace' : 'hidden'}; graded by each language's test runner with every test enabled.`,
    splits: (['train', 'val', 'test'] as const).filter((s) => groups.has(s)),
    load: (split) => groups.get(split) ?? [],
    answerSchema: WorkspaceFilesSchema,
    score: (prediction, task, ctx) =>
      gradeExercise(prediction, task.answer, ctx, options.languages ?? LANGUAGES, options.limits),
    goldResponse: (task) => ({ files: task.answer.reference }),
    graderVersion: 'exercism-workspace-1',
    metric: visible ? 'all tests pass (tests visible)' : 'all tests pass',
    stagedSamples: options.stagedSamples ?? 5,
    formatHint: EXERCISE_FORMAT_HINT,
    skipped: set.skipped,
  });
}
