import { z } from 'zod';
import { type Domain, defineDomain, type Split, type WorkspaceFiles } from '../define-domain.ts';
import { groupBySplit, hashSplit } from '../hash-split.ts';
import { gradeExercise } from './grade.ts';
import { DEFAULT_GRADING_SEC, GRADING_SEC } from './grading-time.ts';
import type { ExercismLanguage, GradeLimits, LanguageName } from './language.ts';
import { LANGUAGES } from './languages.ts';
import type { ExerciseAnswer, ExerciseInput, ExerciseSet, ExerciseTask } from './read.ts';

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

export { DEFAULT_LIMITS, gradeExercise, judgeRun } from './grade.ts';

export const EXERCISE_FORMAT_HINT =
  'The exercise is a folder of files: write the whole solution into the solution files listed in the task ' +
  "(keeping the names the tests import). Only those files are graded, with the exercise's own tests and " +
  'build files; an answer that changes a file the test runner reads (its configuration, the tests, the ' +
  'build files) is refused.';

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
    graderVersion: 'exercism-workspace-2',
    metric: visible ? 'all tests pass (tests visible)' : 'all tests pass',
    stagedSamples: options.stagedSamples ?? 5,
    formatHint: EXERCISE_FORMAT_HINT,
    skipped: set.skipped,
    gradingSec: (task) => GRADING_SEC[task.input.language] ?? DEFAULT_GRADING_SEC,
  });
}
