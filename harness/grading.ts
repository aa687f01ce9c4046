import { extractJsons } from '../agents/core/json-extract.ts';
import type { TaskOutcome } from '../archive/archive.ts';
import type { Domain, Task } from '../domains/define-domain.ts';

export interface Graded {
  outcome: TaskOutcome;
  prediction: unknown;
  score: number;
  error: string | null;
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

export function gradeOutput(domain: Domain, task: Task, output: string): Graded {
  const extracted = extractPrediction(output);
  if (!extracted.found) {
    return {
      outcome: 'parse_failure',
      prediction: undefined,
      score: 0,
      error: 'no JSON object with "response"',
    };
  }
  const parsed = domain.answerSchema.safeParse(extracted.prediction);
  if (!parsed.success) {
    const why = parsed.error.issues.map((issue) => issue.message).join('; ');
    return {
      outcome: 'parse_failure',
      prediction: extracted.prediction,
      score: 0,
      error: `invalid answer: ${why}`,
    };
  }
  const raw = domain.score(parsed.data, task);
  const score = Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : 0;
  return { outcome: score >= 1 ? 'correct' : 'wrong', prediction: extracted.prediction, score, error: null };
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
