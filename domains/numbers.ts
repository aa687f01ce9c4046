/** Parses "42", "42.0", "$1,200", " -3 " as numbers; anything else is null. */
export function parseNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const cleaned = value
    .trim()
    .replace(/^(-?)\$/, '$1')
    .replace(/,(?=\d{3}\b)/g, '');
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return null;
  return Number(cleaned);
}

/** True when `prediction` reads as a number within `tolerance` (absolute, or relative to large golds) of `gold`. */
export function numbersMatch(prediction: unknown, gold: number, tolerance = 1e-6): boolean {
  const value = parseNumber(prediction);
  return value !== null && Math.abs(value - gold) <= tolerance * Math.max(1, Math.abs(gold));
}
