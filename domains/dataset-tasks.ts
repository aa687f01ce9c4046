import { fieldValue, type ResolvedOptions, text } from './dataset-fields.ts';
import { SPLIT_NAMES } from './dataset-files.ts';
import type { Row } from './dataset-rows.ts';
import type { SkippedRow, Split, Task } from './define-domain.ts';
import { hashSplit } from './hash-split.ts';
import type { Metric } from './metrics.ts';
import { parseNumber } from './numbers.ts';
import { renderTemplate } from './prompt-template.ts';
import { rowChoices } from './row-choices.ts';

/** What grading a dataset task needs: the gold answer(s) as text, and the number for `numeric`. */
export interface DatasetAnswer {
  accepted: string[];
  number: number | null;
  /** The labels of the row's own choices (choice metric), else null: the domain's labels apply. */
  labels: string[] | null;
  /** Correct and incorrect answers from `correctField` / `incorrectField` (truthful metric, wrong-answer checks). */
  correct: string[];
  incorrect: string[];
}

export type DatasetTask = Task<Record<string, unknown>, DatasetAnswer>;

/** A list of answers: a JSON list, or text separated by ";" (TruthfulQA's CSV). */
function answerList(value: unknown): string[] {
  const items = Array.isArray(value) ? value.map(text) : typeof value === 'string' ? value.split(';') : [];
  return items.map((a) => a.trim()).filter((a) => a !== '');
}

/**
 * The index an answer gives into the row's choices, where the answer is a whole number and not itself one
 * of the labels (ARC's labels "1".."4" are labels; MMLU's 2 is an index); null otherwise.
 */
function indexAnswer(raw: unknown, answer: string, labels: readonly string[] | undefined): number | null {
  if (labels?.some((l) => l.toLowerCase() === answer.toLowerCase())) return null;
  if (typeof raw === 'number' ? !Number.isInteger(raw) : !/^\d+$/.test(answer)) return null;
  if (typeof raw !== 'number' && typeof raw !== 'string') return null;
  return Number(answer);
}

/** A row's `canary` field marks a canary task when truthy (true, 1, "true", "yes"). */
function isCanary(value: unknown): boolean {
  if (typeof value === 'string') return ['true', '1', 'yes', 'y'].includes(value.trim().toLowerCase());
  return value === true || value === 1;
}

/** Turns one row into a task, or says why the row is skipped. */
function toTask(
  row: Row,
  o: ResolvedOptions,
  metric: Metric,
  pattern: RegExp | null,
):
  | { task: DatasetTask; split: Split | null; ownLabels: string[] | null; example?: string }
  | { reason: string } {
  const rawAnswer = fieldValue(row.values, o.answerField);
  if (rawAnswer === undefined || rawAnswer === null || rawAnswer === '')
    return { reason: `no answer in field "${o.answerField}"` };
  const listed: unknown[] = Array.isArray(rawAnswer) ? rawAnswer : [rawAnswer];
  if (listed.length === 0) return { reason: `no answer in field "${o.answerField}" (an empty list)` };
  // An empty accepted answer would give an empty reply full marks.
  if (listed.some((a) => a === null || (typeof a === 'string' && a.trim() === '')))
    return { reason: `an empty answer in the list in field "${o.answerField}"` };
  let accepted = listed.map(text).map((a) => a.trim());
  if (pattern !== null) {
    const extracted = accepted.map((a) => pattern.exec(a)?.[1]?.trim());
    if (extracted.some((a) => a === undefined || a === ''))
      return { reason: `the answer pattern ${pattern} does not match "${text(rawAnswer).slice(0, 60)}"` };
    accepted = extracted as string[];
  }
  const number = metric === 'numeric' ? parseNumber(accepted[0]) : null;
  if (metric === 'numeric' && number === null)
    return { reason: `the answer "${accepted[0]}" is not a number` };
  const own = metric === 'choice' ? rowChoices(row.values, o.choices) : null;
  const labels = own?.labels ?? o.choices;
  // A canary has no correct answer: its answer field holds what only a gamed grader would accept.
  const canary = isCanary(row.values.canary);
  // An answer index into the row's choices (MMLU's 2, HellaSwag's "2") is the label at that index.
  const index =
    metric === 'choice' && !canary && labels !== undefined
      ? indexAnswer(listed[0], accepted[0]!, labels)
      : null;
  if (index !== null && labels !== undefined) {
    if (index >= labels.length)
      return {
        reason: `the answer ${accepted[0]} reads as an index into the choices, but there are only ${labels.length} (${labels.join(', ')})`,
      };
    accepted = [labels[index]!];
  }
  if (
    metric === 'choice' &&
    !canary &&
    labels &&
    !labels.some((c) => c.toLowerCase() === accepted[0]!.toLowerCase())
  ) {
    return {
      reason: `the answer "${accepted[0]}" is not one of the ${own ? `row's choices (${own.path})` : 'choices'} ${labels.join(', ')}`,
    };
  }
  const correct = o.correctField === undefined ? [] : answerList(fieldValue(row.values, o.correctField));
  const incorrect =
    o.incorrectField === undefined ? [] : answerList(fieldValue(row.values, o.incorrectField));
  if (metric === 'truthful' && incorrect.length === 0)
    return { reason: `no incorrect answers in field "${o.incorrectField}"` };
  const input: Record<string, unknown> = {};
  for (const field of o.inputFields) {
    const value = fieldValue(row.values, field);
    if (value === undefined) return { reason: `no input field "${field}" in this row` };
    input[field] = value;
  }
  if (own !== null) {
    // The data's own choices are kept; plain texts are shown with the labels they are graded by.
    const [root, nested] = own.path.split('.') as [string, string | undefined];
    if (!(root in input)) input.choices = own.shown;
    else if (nested === undefined) input[root] = own.shown;
    else input[root] = { ...(input[root] as object), [nested]: own.shown };
  } else if (metric === 'choice' && o.choices && !('choices' in input)) input.choices = o.choices;
  const id =
    o.idField === undefined
      ? (row.lineId ?? String(row.line))
      : text(fieldValue(row.values, o.idField) ?? '').trim();
  if (id === '') return { reason: `no id in field "${o.idField}"` };
  let split: Split | null = row.split ?? null;
  if (split === null && o.splitField !== undefined) {
    const name = text(fieldValue(row.values, o.splitField) ?? '')
      .trim()
      .toLowerCase();
    split = SPLIT_NAMES[name] ?? null;
    if (split === null) return { reason: `split "${name}" is not train, val (validation, dev) or test` };
  }
  const answer: DatasetAnswer = {
    accepted,
    number,
    labels: own?.labels ?? null,
    correct: [...new Set([...accepted, ...correct])],
    incorrect,
  };
  if (o.template !== undefined) {
    const rendered = renderTemplate(o.template, (field) => {
      if (own !== null && field === own.path) return choiceLines(own);
      const value = fieldValue(row.values, field);
      return value === undefined || value === null ? undefined : text(value);
    });
    if (!rendered.ok) return { reason: `no field "${rendered.field}" for the prompt template in this row` };
    const shown = metric === 'choice' ? accepted[0]! : text(rawAnswer).trim();
    return {
      task: { id, input: { prompt: rendered.text }, answer, ...(canary ? { canary: true } : {}) },
      split,
      ownLabels: own?.labels ?? null,
      example: `${rendered.text} ${shown}`,
    };
  }
  return {
    task: { id, input, answer, ...(canary ? { canary: true } : {}) },
    split,
    ownLabels: own?.labels ?? null,
  };
}

/** A row's own choices as the lines "A. text", for a prompt template's placeholder of the choices field. */
function choiceLines(own: NonNullable<ReturnType<typeof rowChoices>>): string {
  const shown = own.shown as unknown;
  const texts: unknown[] = Array.isArray(shown)
    ? shown.map((c) =>
        typeof c === 'object' && c !== null && 'text' in c ? (c as { text: unknown }).text : c,
      )
    : Array.isArray((shown as { text?: unknown }).text)
      ? ((shown as { text: unknown[] }).text as unknown[])
      : [];
  return own.labels.map((label, i) => `${label}. ${text(texts[i] ?? '')}`).join('\n');
}

/** Every row as a task in its split, or skipped with its reason (with the rows unread before), by line. */
export function placeRows(
  rows: readonly Row[],
  errors: readonly SkippedRow[],
  o: ResolvedOptions,
  metric: Metric,
  pattern: RegExp | null,
): {
  placed: { task: DatasetTask; split: Split; example?: string }[];
  skipped: SkippedRow[];
  problems: string[];
} {
  const skipped: SkippedRow[] = [...errors];
  const placed: { task: DatasetTask; split: Split; example?: string }[] = [];
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const row of rows) {
    const made = toTask(row, o, metric, pattern);
    if ('reason' in made) skipped.push({ line: row.line, reason: made.reason });
    else if (ids.has(made.task.id))
      skipped.push({ line: row.line, reason: `id "${made.task.id}" was used by an earlier row` });
    else {
      ids.add(made.task.id);
      placed.push({
        task: made.task,
        split: made.split ?? hashSplit(made.task.id),
        ...(made.example === undefined ? {} : { example: made.example }),
      });
      const own = made.ownLabels;
      if (problems.length === 0 && own && o.choices && own.some((l) => !o.choices!.includes(l)))
        problems.push(
          `--choices ${o.choices.join(',')} disagrees with the row's own choices (line ${row.line}: ${own.join(', ')}); the labels come from the data, so leave --choices out`,
        );
    }
  }
  skipped.sort((a, b) => a.line - b.line);
  return { placed, skipped, problems };
}
