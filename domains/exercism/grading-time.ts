import type { LanguageName } from './language.ts';

/**
 * Seconds one grading of an exercise takes per language (its reference, in the grading sandbox, with the
 * grader's build caches, one grading at a time): the medians of `npm run bench -- grading` over the
 * Polyglot benchmark (the mean of two runs), in docs/measurements.md ("Grading that keeps up").
 * `--estimate` adds them to each evaluation when a run has no history of its own to measure from; with
 * `--estimate-from` or a pilot, the measured evaluations' pace already includes grading.
 */
export const GRADING_SEC: Partial<Record<LanguageName, number>> = {
  cpp: 4.2,
  go: 2.5,
  java: 2,
  javascript: 0.65,
  python: 0.2,
  rust: 1.4,
  // Not in Polyglot: JavaScript's runner, with a type-check first.
  typescript: 1,
};

/** A language not measured yet. */
export const DEFAULT_GRADING_SEC = 3;
