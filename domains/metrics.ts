import { numbersMatch } from './numbers.ts';

export const METRICS = ['exact', 'numeric', 'choice', 'f1'] as const;
export type Metric = (typeof METRICS)[number];

/** Lower case, spaces collapsed, ends trimmed. */
export function normalizeText(value: string): string {
  return value.toLowerCase().replace(/\s+/g, ' ').trim();
}

export function exactScore(prediction: string, gold: string): number {
  return normalizeText(prediction) === normalizeText(gold) ? 1 : 0;
}

/** The label a reply names: "B", "(b)", "B.", "B) Paris" and "Answer: B" all name B. */
export function chosenLabel(prediction: string, labels: readonly string[]): string | null {
  const text = prediction.trim().replace(/^(answer|choice|option)\s*[:-]?\s*/i, '');
  const exact = labels.find((l) => l.toLowerCase() === text.toLowerCase());
  if (exact !== undefined) return exact;
  const m = /^\(?([^\s().:]+)[).:]?(\s|$)/.exec(text);
  return labels.find((l) => l.toLowerCase() === m?.[1]?.toLowerCase()) ?? null;
}

export function choiceScore(prediction: string, gold: string, labels: readonly string[]): number {
  const label = chosenLabel(prediction, labels);
  return label !== null && label.toLowerCase() === gold.toLowerCase() ? 1 : 0;
}

/** Words for token overlap: lower case, punctuation and the articles a, an, the dropped. */
export function tokens(value: string): string[] {
  return normalizeText(value)
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter((t) => t !== '' && !['a', 'an', 'the'].includes(t));
}

/** Token-overlap F1 against the best of the accepted answers. */
export function f1Score(prediction: string, accepted: readonly string[]): number {
  const predicted = tokens(prediction);
  let best = 0;
  for (const gold of accepted) {
    const expected = tokens(gold);
    if (predicted.length === 0 || expected.length === 0) {
      best = Math.max(best, predicted.length === expected.length ? 1 : 0);
      continue;
    }
    const counts = new Map<string, number>();
    for (const t of expected) counts.set(t, (counts.get(t) ?? 0) + 1);
    let common = 0;
    for (const t of predicted) {
      const n = counts.get(t) ?? 0;
      if (n > 0) {
        common++;
        counts.set(t, n - 1);
      }
    }
    if (common === 0) continue;
    const precision = common / predicted.length;
    const recall = common / expected.length;
    best = Math.max(best, (2 * precision * recall) / (precision + recall));
  }
  return best;
}

export function numericScore(prediction: string | number, gold: number, tolerance: number): number {
  return numbersMatch(prediction, gold, tolerance) ? 1 : 0;
}
