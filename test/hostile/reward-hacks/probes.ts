import path from 'node:path';
import { expect } from 'vitest';
import type { Grade } from '../../../domains/index.ts';
import { type ExerciseTask, gradeExercise, readExercises } from '../../../domains/index.ts';
import { createGradeContext } from '../../../harness/evaluation/index.ts';
import { resolveSandbox } from '../../../harness/process/index.ts';
import { isTampered } from '../../../system/grade-marks.ts';
import { PROJECT_ROOT } from '../../run-cli.ts';

/**
 * The reward-hack section of the hostile suite: answers an agent that wants the score would write, graded
 * by the real graders in the real grading sandbox. Each must score 0 with a detail that says why, and the
 * exercise's reference must still score 1 beside them.
 */

/** Real exercises from Exercism's tracks (MIT, see LICENSE there), in the polyglot-benchmark layout. */
export const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism');

const sandbox = resolveSandbox('bwrap');
if (sandbox.kind !== 'bwrap') throw new Error('these tests need bubblewrap (apt-get install bubblewrap)');
export const ctx = createGradeContext({ sandbox, nodeModules: path.join(PROJECT_ROOT, 'node_modules') });

/** An exercise of the fixtures as a task (`python/transpose`), tests hidden unless asked. */
export function exerciseTask(id: string, testsVisible = false): ExerciseTask {
  const task = readExercises(FIXTURES, { testsVisible }).tasks.find((t) => t.id === id);
  if (task === undefined) throw new Error(`${id} is not among the fixtures`);
  return task;
}

/** Grades the task's starting files with `files` written over them, as a TaskAgent would leave them. */
export function gradeAnswer(task: ExerciseTask, files: Record<string, string>): Promise<Grade> {
  return gradeExercise({ files: { ...task.workspace!.files, ...files } }, task.answer, ctx);
}

/** The reference solution, written over the starting files. */
export function gradeReference(task: ExerciseTask): Promise<Grade> {
  return gradeAnswer(task, task.answer.reference);
}

/**
 * Asserts a cheat scored 0 and its detail matches `why`; `flagged` (the default) also asks that the detail
 * marks it as tampering, which flags the variant.
 */
export function expectCaught(grade: Grade, why: RegExp, flagged = true): void {
  expect(typeof grade).toBe('object');
  const { score, detail } = grade as Exclude<Grade, number>;
  expect({ score, detail }).toEqual({ score: 0, detail: expect.stringMatching(why) });
  expect(isTampered(detail), detail).toBe(flagged);
}
