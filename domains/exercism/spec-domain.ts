import { z } from 'zod';
import { type Domain, defineDomain, type SkippedRow, type Split, type Task } from '../define-domain.ts';
import { groupBySplit, hashSplit } from '../hash-split.ts';
import { DEFAULT_SPEC_LIMITS, gradeWithSpec, type SpecLimits, type SpecRun } from '../spec-grader.ts';

/**
 * Exercises answered as one JSON string, the whole solution file, and graded by the spec runner: the
 * `code` domain's form. Exercism folders are workspace tasks (see exercism-domain.ts).
 */

/** What the TaskAgent sees of an exercise. */
export interface ExerciseInput {
  exercise: string;
  instructions: string;
  solutionFile: string;
  stub: string;
}

/** What grading needs; `reference` is the example solution, the gold answer. */
export interface ExerciseAnswer extends Omit<SpecRun, 'solution'> {
  reference: string;
}

export type ExerciseTask = Task<ExerciseInput, ExerciseAnswer>;

export interface ExercismOptions {
  name: string;
  description?: string;
  limits?: SpecLimits;
  stagedSamples?: number;
  /** Assigns splits; default: a stable hash of the exercise name. */
  splitOf?: (task: ExerciseTask) => Split;
}

export interface ExerciseSet {
  tasks: ExerciseTask[];
  skipped: SkippedRow[];
}

export const EXERCISE_FORMAT_HINT =
  'The response is the complete content of the solution file named in the task, as one string.';

/** A domain over one-file JavaScript or TypeScript exercises answered as JSON, graded by their specs. */
export function exercismDomain(
  set: ExerciseSet,
  options: ExercismOptions,
): Domain<ExerciseInput, ExerciseAnswer, string> {
  const groups = groupBySplit(set.tasks, options.splitOf ?? ((t) => hashSplit(t.id)));
  const limits = options.limits ?? DEFAULT_SPEC_LIMITS;
  return defineDomain<ExerciseInput, ExerciseAnswer, string>({
    name: options.name,
    description:
      options.description ??
      `Exercises in ${options.name}, graded by running each spec with every test enabled.`,
    splits: (['train', 'val', 'test'] as const).filter((s) => groups.has(s)),
    load: (split) => groups.get(split) ?? [],
    answerSchema: z.string().min(1, 'the solution file is empty'),
    score: (solution, task, ctx) => gradeWithSpec(ctx, { ...task.answer, solution }, limits),
    goldResponse: (task) => task.answer.reference,
    graderVersion: 'spec-runner-1',
    metric: 'all tests pass',
    stagedSamples: options.stagedSamples ?? 5,
    formatHint: EXERCISE_FORMAT_HINT,
    skipped: set.skipped,
  });
}
