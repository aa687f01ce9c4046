import { HEDGE_MARK } from '../system/grade-marks.ts';
import { tokens } from './metrics.ts';

/** An answer longer than this many times its gold's tokens (and than LIST_MIN_TOKENS) stuffs a list. */
export const LIST_RATIO = 3;
export const LIST_MIN_TOKENS = 20;

/**
 * The distinct choice labels an answer names as words of their own ("A or C", "B, D"). A one-letter label
 * counts only in its own case, so the article "a" in "a cat" names no label "A".
 */
export function namedLabels(prediction: string, labels: readonly string[]): string[] {
  const words = prediction.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
  return labels.filter((label) =>
    words.some((w) => (label.length === 1 ? w === label : w.toLowerCase() === label.toLowerCase())),
  );
}

/**
 * Why an answer hedges, or null: several choice labels for a `choice` metric, or many more tokens than
 * its gold for `f1` (list-stuffing: naming everything to catch the overlap). Pure.
 */
export function hedging(
  metric: string,
  prediction: string,
  gold: string,
  labels: readonly string[] = [],
): string | null {
  if (metric === 'choice') {
    const named = namedLabels(prediction, labels);
    return named.length > 1 ? `${HEDGE_MARK}names ${named.length} choices (${named.join(', ')})` : null;
  }
  if (metric === 'f1') {
    const said = tokens(prediction).length;
    const expected = Math.max(1, tokens(gold).length);
    return said > LIST_MIN_TOKENS && said > LIST_RATIO * expected
      ? `${HEDGE_MARK}${said} words against the gold's ${expected}`
      : null;
  }
  return null;
}
