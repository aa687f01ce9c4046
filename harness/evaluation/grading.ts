import { extractJsons } from '../../agents/index.ts';
import type { TaskOutcome } from '../../archive/index.ts';
import type { Domain, Grade, GradeContext, Task } from '../../domains/index.ts';
import { workspaceDiff } from './workspace-diff.ts';
import type { CollectedWorkspace } from './workspace-folders.ts';

export interface Graded {
  outcome: TaskOutcome;
  prediction: unknown;
  score: number;
  error: string | null;
  /** What the grader said beside the score (e.g. "3/4 tests passed"). */
  detail: string | null;
  /** The test output the grader saw (graders that run tests), kept with the result. */
  log?: string | null;
}

/**
 * The prediction is the `response` field of the last JSON object in the output that has one.
 * No such object is a parse failure, counted apart from wrong answers.
 */
export function extractPrediction(output: string): { found: true; prediction: unknown } | { found: false } {
  const objects = extractJsons(output);
  for (let i = objects.length - 1; i >= 0; i--) {
    const value = objects[i];
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'response' in value) {
      return { found: true, prediction: (value as { response: unknown }).response };
    }
  }
  return { found: false };
}

/**
 * Grades a TaskAgent's output: no `response` or one the domain's schema rejects is a parse failure; a
 * grader that throws is an error. Never rejects.
 */
export async function gradeOutput(
  domain: Domain,
  task: Task,
  output: string,
  ctx: GradeContext,
): Promise<Graded> {
  const extracted = extractPrediction(output);
  if (!extracted.found) {
    return {
      outcome: 'parse_failure',
      prediction: undefined,
      score: 0,
      error: 'no JSON object with "response"',
      detail: null,
    };
  }
  return gradePrediction(domain, task, extracted.prediction, ctx);
}

export async function gradePrediction(
  domain: Domain,
  task: Task,
  prediction: unknown,
  ctx: GradeContext,
): Promise<Graded> {
  const parsed = domain.answerSchema.safeParse(prediction);
  if (!parsed.success) {
    const why = parsed.error.issues.map((issue) => issue.message).join('; ');
    return { outcome: 'parse_failure', prediction, score: 0, error: `invalid answer: ${why}`, detail: null };
  }
  let grade: Grade;
  try {
    grade = await domain.score(parsed.data, task, ctx);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { outcome: 'error', prediction, score: 0, error: `grader failed: ${message}`, detail: null };
  }
  const raw = typeof grade === 'number' ? grade : grade.score;
  const detail = typeof grade === 'number' ? null : grade.detail;
  const log = typeof grade === 'number' ? null : (grade.log ?? null);
  const score = Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : 0;
  return {
    outcome: score >= 1 ? 'correct' : 'wrong',
    prediction,
    score,
    error: null,
    detail,
    ...(log === null ? {} : { log }),
  };
}

/**
 * Grades a workspace task's final folder: the prediction `{files}` is validated and scored like any other;
 * what is stored is the unified diff against the starting files. A workspace the harness refused (over its
 * limits, removed, replaced by a link) is a wrong answer with the reason as its detail. Never rejects.
 */
export async function gradeWorkspace(
  domain: Domain,
  task: Task,
  collected: CollectedWorkspace,
  ctx: GradeContext,
): Promise<Graded> {
  if (collected.kind === 'refused') {
    return {
      outcome: 'wrong',
      prediction: undefined,
      score: 0,
      error: null,
      detail: collected.reason,
      log: null,
    };
  }
  const graded = await gradePrediction(domain, task, { files: collected.files }, ctx);
  const skipped =
    collected.skipped.length === 0
      ? ''
      : `not collected: ${collected.skipped.slice(0, 5).join(', ')}${collected.skipped.length > 5 ? ', ...' : ''}`;
  const detail = [graded.detail, skipped].filter((d) => d !== null && d !== '').join('; ');
  return {
    ...graded,
    prediction: workspaceDiff(task.workspace?.files ?? {}, collected.files),
    detail: detail === '' ? null : detail,
  };
}

export interface Tally {
  score: number;
  n: number;
  correct: number;
  wrong: number;
  parseFailures: number;
  errors: number;
}

export function tally(results: readonly { outcome: TaskOutcome; score: number }[]): Tally {
  const count = (outcome: TaskOutcome): number => results.filter((r) => r.outcome === outcome).length;
  const n = results.length;
  return {
    score: n === 0 ? 0 : results.reduce((sum, r) => sum + r.score, 0) / n,
    n,
    correct: count('correct'),
    wrong: count('wrong'),
    parseFailures: count('parse_failure'),
    errors: count('error'),
  };
}

/**
 * What is graded for a response: for a workspace task, a response `{files}` holds the files written over
 * the starting ones (gold answers and answers given in a file), so the final workspace is both together.
 */
export function finalResponse(task: Task, response: unknown): unknown {
  if (task.workspace === undefined || typeof response !== 'object' || response === null) return response;
  const files = (response as { files?: unknown }).files;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return response;
  return { ...response, files: { ...task.workspace.files, ...files } };
}
