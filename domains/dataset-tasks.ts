import { fieldValue, type ResolvedOptions, text } from './dataset-fields.ts';
import { SPLIT_NAMES } from './dataset-files.ts';
import type { Row } from './dataset-rows.ts';
import type { SkippedRow, Split, Task } from './define-domain.ts';
import { hashSplit } from './hash-split.ts';
import type { Metric } from './metrics.ts';
import { parseNumber } from './numbers.ts';
import { renderTemplate } from './prompt-template.ts';
import { type RowChoices, rowChoices } from './row-choices.ts';

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

/** Why a row is skipped. */
type Skip = { reason: string };
type Made = { task: DatasetTask; split: Split | null; ownLabels: string[] | null; example?: string };

const isSkip = <T extends object>(value: T | Skip): value is Skip => 'reason' in value;

/** Turns one row into a task, or says why the row is skipped. */
function toTask(row: Row, o: ResolvedOptions, metric: Metric, pattern: RegExp | null): Made | Skip {
  const gold = goldAnswers(row, o, pattern);
  if (isSkip(gold)) return gold;
  const number = metric === 'numeric' ? parseNumber(gold.accepted[0]) : null;
  if (metric === 'numeric' && number === null)
    return { reason: `the answer "${gold.accepted[0]}" is not a number` };
  const own = metric === 'choice' ? rowChoices(row.values, o.choices) : null;
  // A canary has no correct answer: its answer field holds what only a gamed grader would accept.
  const canary = isCanary(row.values.canary);
  const accepted = metric === 'choice' && !canary ? choiceAnswer(gold, own, o.choices) : gold.accepted;
  if (isSkip(accepted)) return accepted;
  const correct = o.correctField === undefined ? [] : answerList(fieldValue(row.values, o.correctField));
  const incorrect =
    o.incorrectField === undefined ? [] : answerList(fieldValue(row.values, o.incorrectField));
  if (metric === 'truthful' && incorrect.length === 0)
    return { reason: `no incorrect answers in field "${o.incorrectField}"` };
  const input = taskInput(row, o, own, metric);
  if (isSkip(input)) return input;
  const place = idAndSplit(row, o);
  if (isSkip(place)) return place;
  const answer: DatasetAnswer = {
    accepted,
    number,
    labels: own?.labels ?? null,
    correct: [...new Set([...accepted, ...correct])],
    incorrect,
  };
  const marks = canary ? { canary: true } : {};
  const made = { split: place.split, ownLabels: own?.labels ?? null };
  if (o.template === undefined) return { task: { id: place.id, input, answer, ...marks }, ...made };
  const rendered = renderTemplate(o.template, (field) => {
    if (own !== null && field === own.path) return choiceLines(own);
    const value = fieldValue(row.values, field);
    return value === undefined || value === null ? undefined : text(value);
  });
  if (!rendered.ok) return { reason: `no field "${rendered.field}" for the prompt template in this row` };
  const shown = metric === 'choice' ? accepted[0]! : text(gold.raw).trim();
  return {
    task: { id: place.id, input: { prompt: rendered.text }, answer, ...marks },
    ...made,
    example: `${rendered.text} ${shown}`,
  };
}

/** The row's gold answers as given (`listed`) and as text (`accepted`, through the answer pattern if any). */
function goldAnswers(
  row: Row,
  o: ResolvedOptions,
  pattern: RegExp | null,
): { raw: unknown; listed: unknown[]; accepted: string[] } | Skip {
  const raw = fieldValue(row.values, o.answerField);
  if (raw === undefined || raw === null || raw === '')
    return { reason: `no answer in field "${o.answerField}"` };
  const listed: unknown[] = Array.isArray(raw) ? raw : [raw];
  if (listed.length === 0) return { reason: `no answer in field "${o.answerField}" (an empty list)` };
  // An empty accepted answer would give an empty reply full marks.
  if (listed.some((a) => a === null || (typeof a === 'string' && a.trim() === '')))
    return { reason: `an empty answer in the list in field "${o.answerField}"` };
  const accepted = listed.map(text).map((a) => a.trim());
  if (pattern === null) return { raw, listed, accepted };
  const extracted = accepted.map((a) => pattern.exec(a)?.[1]?.trim());
  if (extracted.some((a) => a === undefined || a === ''))
    return { reason: `the answer pattern ${pattern} does not match "${text(raw).slice(0, 60)}"` };
  return { raw, listed, accepted: extracted as string[] };
}

/**
 * A choice task's answer as one of its labels: an index into the row's choices (MMLU's 2, HellaSwag's "2")
 * is the label at that index; an answer that is none of the labels skips the row.
 */
function choiceAnswer(
  gold: { listed: unknown[]; accepted: string[] },
  own: RowChoices | null,
  given: readonly string[] | undefined,
): string[] | Skip {
  const labels = own?.labels ?? given;
  if (labels === undefined) return gold.accepted;
  const first = gold.accepted[0]!;
  const index = indexAnswer(gold.listed[0], first, labels);
  if (index !== null && index >= labels.length)
    return {
      reason: `the answer ${first} reads as an index into the choices, but there are only ${labels.length} (${labels.join(', ')})`,
    };
  const accepted = index === null ? gold.accepted : [labels[index]!];
  if (!labels.some((c) => c.toLowerCase() === accepted[0]!.toLowerCase()))
    return {
      reason: `the answer "${accepted[0]}" is not one of the ${own ? `row's choices (${own.path})` : 'choices'} ${labels.join(', ')}`,
    };
  return accepted;
}

/** The task's input: its input fields, with the choices shown as they are graded. */
function taskInput(
  row: Row,
  o: ResolvedOptions,
  own: RowChoices | null,
  metric: Metric,
): Record<string, unknown> | Skip {
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
  return input;
}

/** The task's id (its id field, else its line) and split (the file's, else its split field's). */
function idAndSplit(row: Row, o: ResolvedOptions): { id: string; split: Split | null } | Skip {
  const id =
    o.idField === undefined
      ? (row.lineId ?? String(row.line))
      : text(fieldValue(row.values, o.idField) ?? '').trim();
  if (id === '') return { reason: `no id in field "${o.idField}"` };
  if (row.split !== undefined && row.split !== null) return { id, split: row.split };
  if (o.splitField === undefined) return { id, split: null };
  const name = text(fieldValue(row.values, o.splitField) ?? '')
    .trim()
    .toLowerCase();
  const split = SPLIT_NAMES[name] ?? null;
  if (split === null) return { reason: `split "${name}" is not train, val (validation, dev) or test` };
  return { id, split };
}

/** A row's own choices as the lines "A. text", for a prompt template's placeholder of the choices field. */
function choiceLines(own: RowChoices): string {
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
