/**
 * How the answer is taken out of a longer reply, the same way for gold answers and predictions: a
 * pattern's one group when a pattern is given, else the conventions "#### X" and "the answer is X" (the
 * last one stated), else the final non-empty line. Markdown emphasis and a trailing full stop are dropped.
 */

/** "**B**", "`18`", "B." → "B", "18"; never empties a text that is only punctuation. */
export function bareAnswer(text: string): string {
  const stripped = text
    .trim()
    .replace(/^[*_`]+|[*_`]+$/g, '')
    .trim()
    .replace(/[.。]$/, '')
    .trim();
  return stripped === '' ? text.trim() : stripped;
}

/** The answer a reply states by convention ("#### 18", "The answer is B."), the last one; null without one. */
export function statedAnswer(text: string): string | null {
  const hashes = [...text.matchAll(/^\s*####\s*(.+?)\s*$/gm)].at(-1)?.[1];
  if (hashes !== undefined) return bareAnswer(hashes);
  const said = [...text.matchAll(/\b(?:final\s+)?answer\s*(?:is|:)\s*:?\s*(.+?)\s*$/gim)].at(-1)?.[1];
  return said === undefined ? null : bareAnswer(said);
}

/** The final non-empty line of a reply of several lines; null for a single line. */
export function finalLine(text: string): string | null {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  return lines.length > 1 ? bareAnswer(lines.at(-1)!) : null;
}

/**
 * The readings of a reply, most specific first: the pattern's group (when it matches), the stated answer,
 * the final line, the whole reply. Graders take the first reading that fits their metric.
 */
export function answerReadings(text: string, pattern: RegExp | null): string[] {
  const readings: string[] = [];
  const matched = pattern?.exec(text)?.[1];
  if (matched !== undefined && matched.trim() !== '') readings.push(bareAnswer(matched));
  const stated = statedAnswer(text);
  if (stated !== null) readings.push(stated);
  const last = finalLine(text);
  if (last !== null) readings.push(last);
  readings.push(bareAnswer(text));
  return [...new Set(readings)];
}
