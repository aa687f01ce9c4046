/** Spaces collapsed, ends trimmed; case kept, since a task may be about case ("paris" → "PARIS"). */
const spaced = (value: string) => value.replace(/\s+/g, ' ').trim();

const asText = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? '');

/**
 * Whether `value` gives the gold answer away: it is the gold text, or it holds a gold text long enough not
 * to occur by chance (two words and eight characters or more). "4" in a question about 4 apples is no leak;
 * TruthfulQA's "Correct Answers" holding the "Best Answer" is.
 */
export function holdsGold(value: unknown, gold: string): boolean {
  const g = spaced(gold);
  if (g === '') return false;
  const v = spaced(asText(value));
  return v === g || (g.length >= 8 && g.includes(' ') && v.includes(g));
}

/** The top-level fields of an input that hold the gold answer ("(input)" for an input that is not an object). */
export function fieldsHoldingGold(input: unknown, gold: string): string[] {
  if (typeof input === 'object' && input !== null && !Array.isArray(input))
    return Object.entries(input)
      .filter(([, v]) => holdsGold(v, gold))
      .map(([k]) => k);
  return holdsGold(input, gold) ? ['(input)'] : [];
}
