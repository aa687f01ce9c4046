import { answerReadings, bareAnswer } from './answer-extraction.ts';
import { parseNumber } from './numbers.ts';

export const METRICS = ['exact', 'numeric', 'choice', 'f1', 'truthful'] as const;
export type Metric = (typeof METRICS)[number];

/** Lower case, spaces collapsed, ends trimmed. */
export function normalizeText(value: string): string {
  return value.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** 1 when the reply, or the answer it states, is the gold text (spacing ignored, and case unless asked). */
export function exactScore(
  prediction: string,
  gold: string,
  pattern: RegExp | null = null,
  caseSensitive = false,
): number {
  const norm = caseSensitive ? (v: string) => v.replace(/\s+/g, ' ').trim() : normalizeText;
  return answerReadings(prediction, pattern).some((r) => norm(r) === norm(gold)) ||
    norm(prediction) === norm(gold)
    ? 1
    : 0;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The label a reading names when the label stands alone: "B", "(b)", "[B]", "B.", "**B**", "Answer: C",
 * "B) Paris", "(B) Paris", "B. Paris". A text that merely begins with a label's letter ("a cat") names none.
 */
function standingLabel(reading: string, labels: readonly string[]): string | null {
  const text = bareAnswer(
    reading.replace(/^(?:the\s+)?(?:correct\s+)?(answer|choice|option)\s*(?:is)?\s*[:-]?\s*/i, ''),
  );
  for (const label of labels) {
    const l = escapeRegExp(label);
    if (new RegExp(`^[(\\[]?${l}[)\\]]?[.:]?$`, 'i').test(text)) return label;
    if (new RegExp(`^(?:\\(${l}\\)|${l}[).:])\\s+\\S`, 'i').test(text)) return label;
  }
  return null;
}

/** The label a reply names: the first of its readings (pattern, stated answer, final line, whole) that names one. */
export function chosenLabel(
  prediction: string,
  labels: readonly string[],
  pattern: RegExp | null = null,
): string | null {
  for (const reading of answerReadings(prediction, pattern)) {
    const label = standingLabel(reading, labels);
    if (label !== null) return label;
  }
  return null;
}

export function choiceScore(
  prediction: string,
  gold: string,
  labels: readonly string[],
  pattern: RegExp | null = null,
): number {
  const label = chosenLabel(prediction, labels, pattern);
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

/** Word-order-aware similarity in [0, 1]: the F-measure of the longest common subsequence of tokens (ROUGE-L). */
export function sequenceSimilarity(a: string, b: string): number {
  const x = tokens(a);
  const y = tokens(b);
  if (x.length === 0 || y.length === 0) return x.length === y.length ? 1 : 0;
  let prev = new Array<number>(y.length + 1).fill(0);
  for (const tx of x) {
    const row = [0];
    for (let j = 0; j < y.length; j++) row.push(tx === y[j] ? prev[j]! + 1 : Math.max(prev[j + 1]!, row[j]!));
    prev = row;
  }
  const lcs = prev[y.length]!;
  if (lcs === 0) return 0;
  const precision = lcs / x.length;
  const recall = lcs / y.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * TruthfulQA-style grading against both lists: the reply's similarity to the closest correct answer when
 * that is closer than every incorrect answer, else 0. A correct answer word for word scores 1; an
 * incorrect one, 0, however many words it shares with the correct ones.
 */
export function truthfulScore(
  prediction: string,
  correct: readonly string[],
  incorrect: readonly string[],
): number {
  const said = bareAnswer(prediction);
  const best = (list: readonly string[]) => Math.max(0, ...list.map((a) => sequenceSimilarity(said, a)));
  const toCorrect = best(correct);
  return toCorrect > best(incorrect) ? toCorrect : 0;
}

/** How close a number must be: `absolute` (|p − g| ≤ value) or `relative` (|p − g| ≤ value × |g|). */
export type Tolerance = { kind: 'absolute' | 'relative'; value: number };

/** "0.01" is absolute, "1%" relative; null for anything else. */
export function parseTolerance(text: string | number): Tolerance | null {
  if (typeof text === 'number')
    return Number.isFinite(text) && text >= 0 ? { kind: 'absolute', value: text } : null;
  const m = /^\s*(\d+(?:\.\d+)?(?:e-?\d+)?)\s*(%?)\s*$/i.exec(text);
  if (m === null) return null;
  const value = Number(m[1]);
  return m[2] === '%' ? { kind: 'relative', value: value / 100 } : { kind: 'absolute', value };
}

/** Without a tolerance: exact for integer gold (1,450,001 is not 1,450,000), else a relative 1e-6. */
export function defaultTolerance(gold: number): Tolerance {
  return Number.isInteger(gold) ? { kind: 'absolute', value: 0 } : { kind: 'relative', value: 1e-6 };
}

export function describeTolerance(t: Tolerance): string {
  return t.kind === 'absolute' ? `±${t.value}` : `±${t.value * 100}%`;
}

/** 1 when the first reading of the reply that is a number is within the tolerance of gold. */
export function numericScore(
  prediction: string | number,
  gold: number,
  tolerance: Tolerance | null,
  pattern: RegExp | null = null,
): number {
  const value =
    typeof prediction === 'number'
      ? prediction
      : (answerReadings(prediction, pattern)
          .map(parseNumber)
          .find((n) => n !== null) ?? null);
  if (value === null || !Number.isFinite(value)) return 0;
  const t = tolerance ?? defaultTolerance(gold);
  const allowed = t.kind === 'absolute' ? t.value : t.value * Math.abs(gold);
  return Math.abs(value - gold) <= allowed + Number.EPSILON * Math.abs(gold) ? 1 : 0;
}
