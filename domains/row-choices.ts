/**
 * A row's own choices, where the data has them: a `choices` field, or one inside an object field (ARC and
 * OpenBookQA put them in `question.choices`). Read in the shapes the public files use:
 * `[{label, text}]`, `{label: [...], text: [...]}`, or a plain list of texts (labelled A, B, C... or by
 * the given labels, in order).
 */
export interface RowChoices {
  /** The field holding them: "choices" or "question.choices". */
  path: string;
  labels: string[];
  /** What the agent is shown in their place: the data's value, or plain texts given their labels. */
  shown: unknown;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

function read(
  value: unknown,
  given: readonly string[] | undefined,
): { labels: string[]; shown: unknown } | null {
  if (Array.isArray(value) && value.length >= 2) {
    if (value.every((c) => typeof c === 'object' && c !== null && 'label' in c)) {
      return { labels: value.map((c) => String((c as { label: unknown }).label)), shown: value };
    }
    if (value.every((c) => typeof c === 'string' || typeof c === 'number')) {
      const labels = value.map((_, i) => given?.[i] ?? LETTERS[i] ?? String(i + 1));
      return { labels, shown: value.map((text, i) => ({ label: labels[i], text })) };
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    const { label, text } = value as { label?: unknown; text?: unknown };
    if (Array.isArray(label) && Array.isArray(text) && label.length === text.length && label.length >= 2)
      return { labels: label.map(String), shown: value };
  }
  return null;
}

/** The row's choices, or null when it has none in a shape read here. */
export function rowChoices(values: Record<string, unknown>, given?: readonly string[]): RowChoices | null {
  if ('choices' in values) {
    const found = read(values.choices, given);
    if (found !== null) return { path: 'choices', ...found };
  }
  for (const [field, value] of Object.entries(values)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !('choices' in value))
      continue;
    const found = read((value as { choices: unknown }).choices, given);
    if (found !== null) return { path: `${field}.choices`, ...found };
  }
  return null;
}
