import path from 'node:path';
import { z } from 'zod';
import { answerReadings } from './answer-extraction.ts';
import type { DatasetOptions } from './dataset-options.ts';
import type { DatasetAnswer, DatasetTask } from './dataset-tasks.ts';
import { type Domain, defineDomain, type Grade, type SkippedRow, type Split } from './define-domain.ts';
import { groupBySplit } from './hash-split.ts';
import { hedging } from './hedging.ts';
import {
  choiceScore,
  describeTolerance,
  exactScore,
  f1Score,
  type Metric,
  numericScore,
  type Tolerance,
  truthfulScore,
} from './metrics.ts';

/** A message for the user, where a dataset's configuration does not fit its file. */
type Refused = { ok: false; message: string };

/** `--answer-pattern` compiled, with exactly one capturing group; null without one. */
export function answerPattern(options: DatasetOptions): { ok: true; pattern: RegExp | null } | Refused {
  if (options.answerPattern === undefined) return { ok: true, pattern: null };
  let pattern: RegExp;
  try {
    pattern = new RegExp(options.answerPattern, 's');
  } catch (error) {
    return {
      ok: false,
      message: `--answer-pattern ${options.answerPattern} is not a regular expression: ${(error as Error).message}`,
    };
  }
  if (new RegExp(`${pattern.source}|`).exec('')!.length !== 2)
    return {
      ok: false,
      message: `--answer-pattern ${options.answerPattern} must have exactly one capturing group around the answer, as in "#### (.+)$".`,
    };
  return { ok: true, pattern };
}

const FORMAT_HINTS: Record<Metric, (choices: readonly string[] | undefined, own: boolean) => string> = {
  exact: () => 'The answer is a short text, compared without regard to case or spacing.',
  numeric: () => 'The answer is a single number.',
  choice: (choices, own) =>
    own
      ? `The answer is the label of one of the task's choices${choices ? ` (${choices.join(', ')})` : ''}, alone.`
      : `The answer is the label of one choice${choices ? `: one of ${choices.join(', ')}` : ''}.`,
  f1: () => 'The answer is a short phrase.',
  truthful: () => 'The answer is one short, true sentence.',
};

interface Grading {
  metric: Metric;
  pattern: RegExp | null;
  tolerance: Tolerance | null;
  problems: string[];
}

/** The next label after gold (wrapping): a wrong answer the choice metric must score 0. */
function nextLabel(labels: readonly string[], gold: string): string | undefined {
  const i = labels.findIndex((l) => l.toLowerCase() === gold.toLowerCase());
  return labels.length < 2 ? undefined : labels[(i + 1) % labels.length];
}

/** A score, with the reason the answer hedges as its detail when it does. */
const withHedge = (score: number, hedge: string | null): Grade =>
  hedge === null ? score : { score, detail: hedge };

/** The domain over the placed tasks, graded by the metric. */
export function placedDomain(
  file: string,
  name: string,
  options: DatasetOptions,
  g: Grading,
  placed: readonly { task: DatasetTask; split: Split }[],
  skipped: SkippedRow[],
): Domain<Record<string, unknown>, DatasetAnswer, string | number> {
  const { metric, pattern, tolerance } = g;
  const groups = groupBySplit(placed, (p) => p.split);
  const ownLabels = placed.some((p) => p.task.answer.labels !== null);
  const labels =
    options.choices ??
    [
      ...new Set(
        placed
          .filter((p) => p.task.canary !== true)
          .flatMap((p) => p.task.answer.labels ?? [p.task.answer.accepted[0]!]),
      ),
    ].sort();
  const toleranceText =
    tolerance === null ? 'exact for whole numbers, else ±1e-4%' : describeTolerance(tolerance);
  return defineDomain<Record<string, unknown>, DatasetAnswer, string | number>({
    name,
    description:
      options.description ??
      `Rows of ${path.basename(file)}, graded by ${metric === 'f1' ? 'token-overlap F1' : `${metric} match`}.`,
    splits: (['train', 'val', 'test'] as const).filter((s) => groups.has(s)),
    load: (split) => (groups.get(split) ?? []).map((p) => p.task),
    answerSchema: z.union([z.string(), z.number()]),
    score: scoreBy(g, options, labels),
    goldResponse: (task) => task.answer.accepted[0]!,
    wrongResponses: (task) => {
      const out: string[] = task.answer.incorrect.slice(0, 2);
      const next =
        metric === 'choice' ? nextLabel(task.answer.labels ?? labels, task.answer.accepted[0]!) : undefined;
      if (next !== undefined) out.push(next);
      return out;
    },
    configProblems: g.problems,
    graderVersion: `dataset-2:${metric}${options.caseSensitive === true ? '/case' : ''}:${tolerance === null ? 'default' : describeTolerance(tolerance)}:${pattern?.source ?? ''}:${labels.join('|')}`,
    metric:
      metric === 'numeric'
        ? `numeric (${toleranceText})`
        : metric === 'exact' && options.caseSensitive === true
          ? 'exact (case-sensitive)'
          : metric,
    stagedSamples: options.stagedSamples ?? 10,
    formatHint:
      metric === 'exact' && options.caseSensitive === true
        ? 'The answer is a short text, compared letter for letter (case counts; spacing does not).'
        : FORMAT_HINTS[metric](
            metric === 'choice' && (!ownLabels || labels.length <= 10) ? labels : undefined,
            ownLabels,
          ),
    skipped,
  });
}

/** How a prediction is scored against a task's answer, by the metric; `labels`: the domain's choices. */
function scoreBy(
  g: Grading,
  options: DatasetOptions,
  labels: readonly string[],
): (prediction: string | number, task: DatasetTask) => Grade {
  const { metric, pattern, tolerance } = g;
  return (prediction, task) => {
    const said = String(prediction);
    const gold = task.answer.accepted[0]!;
    switch (metric) {
      case 'exact':
        return Math.max(
          ...task.answer.accepted.map((a) => exactScore(said, a, pattern, options.caseSensitive === true)),
        );
      case 'numeric':
        return numericScore(prediction, task.answer.number ?? Number.NaN, tolerance, pattern);
      case 'choice':
        return withHedge(
          // A canary's answer is no choice: only an answer that games the grader names it.
          choiceScore(
            said,
            gold,
            [...(task.answer.labels ?? labels), ...(task.canary ? [gold] : [])],
            pattern,
          ),
          hedging(metric, said, gold, task.answer.labels ?? labels),
        );
      case 'f1':
        return withHedge(
          Math.max(...answerReadings(said, pattern).map((r) => f1Score(r, task.answer.accepted))),
          hedging(metric, said, gold),
        );
      case 'truthful':
        return truthfulScore(answerReadings(said, pattern)[0]!, task.answer.correct, task.answer.incorrect);
    }
  };
}
