import type { LanguageName } from './language.ts';

/**
 * Seconds one grading of an exercise takes per language (its reference, in the grading sandbox, with the
 * grader's build caches, one grading at a time): the medians of `npm run bench -- grading` over the
 * Polyglot benchmark, in docs/measurements.md ("Grading that keeps up"). `--estimate` adds them to each
 * evaluation when a run has no history of its own to measure from; with `--estimate-from` or a pilot, the
 * measured run's evaluations already include grading.
 */
export const GRADING_SEC: Partial<Record<LanguageName, number>> = {
  cpp: 4,
  go: 3,
  java: 5,
  javascript: 1.3,
  python: 0.6,
  rust: 3,
  typescript: 1.5,
};

/** A language not measured yet. */
export const DEFAULT_GRADING_SEC = 3;
