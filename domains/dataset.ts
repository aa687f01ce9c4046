import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseCsv } from './csv.ts';
import type { DatasetOptions } from './dataset-options.ts';
import { type Domain, defineDomain, type SkippedRow, type Split, type Task } from './define-domain.ts';
import { groupBySplit, hashSplit } from './hash-split.ts';
import { choiceScore, exactScore, f1Score, type Metric, numericScore } from './metrics.ts';
import { parseNumber } from './numbers.ts';

/** A row as named fields, and the 1-based line it starts on. */
interface Row {
  line: number;
  values: Record<string, unknown>;
}

/** What grading a dataset task needs: the gold answer(s) as text, and the number for `numeric`. */
export interface DatasetAnswer {
  accepted: string[];
  number: number | null;
}

export type DatasetTask = Task<Record<string, unknown>, DatasetAnswer>;
export type Opened =
  | { ok: true; domain: Domain<Record<string, unknown>, DatasetAnswer, string | number> }
  | { ok: false; message: string };

const SPLIT_NAMES: Record<string, Split> = {
  train: 'train',
  training: 'train',
  val: 'val',
  valid: 'val',
  validation: 'val',
  dev: 'val',
  test: 'test',
  testing: 'test',
};

function readRows(
  file: string,
  text: string,
  header: boolean | undefined,
  answerField: string | undefined,
): { rows: Row[]; errors: SkippedRow[]; fields: string[]; fatal?: SkippedRow } {
  if (/\.jsonl?$/i.test(file)) {
    const rows: Row[] = [];
    const errors: SkippedRow[] = [];
    text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .forEach((line, i) => {
        if (line.trim() === '') return;
        try {
          const value: unknown = JSON.parse(line);
          if (typeof value !== 'object' || value === null || Array.isArray(value))
            errors.push({ line: i + 1, reason: 'not a JSON object' });
          else rows.push({ line: i + 1, values: value as Record<string, unknown> });
        } catch (error) {
          errors.push({ line: i + 1, reason: `not valid JSON (${(error as Error).message})` });
        }
      });
    return { rows, errors, fields: [...new Set(rows.flatMap((r) => Object.keys(r.values)))] };
  }
  const { records, errors } = parseCsv(text);
  const first = records[0];
  // The first record decides the fields (a header, or the first task's columns): a broken one is fatal.
  const broken = errors[0];
  if (broken !== undefined && (first === undefined || broken.line < first.line))
    return { rows: [], errors, fields: [], fatal: broken };
  if (first === undefined) return { rows: [], errors, fields: [] };
  const hasHeader =
    header ??
    (answerField === undefined ? first.fields.includes('answer') : first.fields.includes(answerField));
  const fields = hasHeader ? first.fields : first.fields.map((_, i) => String(i + 1));
  const rows: Row[] = [];
  for (const record of hasHeader ? records.slice(1) : records) {
    if (record.fields.length !== fields.length) {
      errors.push({
        line: record.line,
        reason: `${record.fields.length} fields where the ${hasHeader ? 'header has' : 'first row has'} ${fields.length}`,
      });
      continue;
    }
    rows.push({ line: record.line, values: Object.fromEntries(fields.map((f, i) => [f, record.fields[i]])) });
  }
  return { rows, errors, fields };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** Turns one row into a task, or says why the row is skipped. */
function toTask(
  row: Row,
  o: ResolvedOptions,
  metric: Metric,
  pattern: RegExp | null,
): { task: DatasetTask; split: Split | null } | { reason: string } {
  const rawAnswer = row.values[o.answerField];
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
  if (
    metric === 'choice' &&
    o.choices &&
    !o.choices.some((c) => c.toLowerCase() === accepted[0]!.toLowerCase())
  ) {
    return { reason: `the answer "${accepted[0]}" is not one of the choices ${o.choices.join(', ')}` };
  }
  const input: Record<string, unknown> = {};
  for (const field of o.inputFields) {
    if (!(field in row.values)) return { reason: `no input field "${field}"` };
    input[field] = row.values[field];
  }
  if (metric === 'choice' && o.choices) input.choices = o.choices;
  const id = o.idField === undefined ? String(row.line) : text(row.values[o.idField] ?? '').trim();
  if (id === '') return { reason: `no id in field "${o.idField}"` };
  let split: Split | null = null;
  if (o.splitField !== undefined) {
    const name = text(row.values[o.splitField] ?? '')
      .trim()
      .toLowerCase();
    split = SPLIT_NAMES[name] ?? null;
    if (split === null) return { reason: `split "${name}" is not train, val (validation, dev) or test` };
  }
  return { task: { id, input, answer: { accepted, number } }, split };
}

const FORMAT_HINTS: Record<Metric, (choices: readonly string[] | undefined) => string> = {
  exact: () => 'The answer is a short text, compared without regard to case or spacing.',
  numeric: () => 'The answer is a single number.',
  choice: (choices) =>
    `The answer is the label of one choice${choices ? `: one of ${choices.join(', ')}` : ''}.`,
  f1: () => 'The answer is a short phrase.',
};

/** A message for the user, where a dataset's configuration does not fit its file. */
type Refused = { ok: false; message: string };

/** The options with the fields resolved against the file's: which holds the answer, the id, the question. */
type ResolvedOptions = Required<Pick<DatasetOptions, 'inputFields' | 'answerField'>> & DatasetOptions;

/** A domain from a CSV or JSONL file. Configuration mistakes are a message; bad rows are skipped by line. */
export function datasetDomain(file: string, name: string, options: DatasetOptions): Opened {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    return {
      ok: false,
      message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
  const { rows, errors, fields, fatal } = readRows(file, content, options.header, options.answerField);
  if (fatal !== undefined)
    return {
      ok: false,
      message: `${file}, line ${fatal.line}: ${fatal.reason}. The first row gives the fields, so it must be read whole: fix it.`,
    };
  const resolved = resolveFields(file, options, fields, rows.length > 0);
  if (!resolved.ok) return resolved;
  const pattern = answerPattern(options);
  if (!pattern.ok) return pattern;
  const metric = options.metric ?? 'exact';
  const { placed, skipped } = placeRows(rows, errors, resolved.options, metric, pattern.pattern);
  if (placed.length === 0)
    return {
      ok: false,
      message: `${file}: no usable rows${skipped[0] ? ` (line ${skipped[0].line}: ${skipped[0].reason})` : ''}.`,
    };
  return { ok: true, domain: placedDomain(file, name, options, metric, placed, skipped) };
}

/** Which fields hold the answer, the id and the question; a flag naming a field the file lacks is refused. */
function resolveFields(
  file: string,
  options: DatasetOptions,
  fields: readonly string[],
  anyRows: boolean,
): { ok: true; options: ResolvedOptions } | Refused {
  const answerField = options.answerField ?? (fields.includes('answer') ? 'answer' : undefined);
  if (answerField === undefined || (anyRows && !fields.includes(answerField))) {
    return {
      ok: false,
      message: `${file}: say which field holds the answer with --answer-field (or "answerField" in ${path.basename(file, path.extname(file))}.domain.json); the fields are ${fields.join(', ') || '(none)'}.`,
    };
  }
  const idField = options.idField ?? (fields.includes('id') ? 'id' : undefined);
  for (const [flag, field] of [
    ['--id-field', options.idField],
    ['--split-field', options.splitField],
    ...(options.inputFields ?? []).map((f) => ['--input-fields', f]),
  ] as const) {
    if (field !== undefined && anyRows && !fields.includes(field))
      return {
        ok: false,
        message: `${file}: ${flag} names "${field}", which is not a field; the fields are ${fields.join(', ')}.`,
      };
  }
  const inputFields =
    options.inputFields ?? fields.filter((f) => ![answerField, idField, options.splitField].includes(f));
  if (inputFields.length === 0)
    return {
      ok: false,
      message: `${file}: no field is left for the question; name the input fields with --input-fields.`,
    };
  return {
    ok: true,
    options: { ...options, answerField, inputFields, ...(idField === undefined ? {} : { idField }) },
  };
}

/** `--answer-pattern` compiled, with exactly one capturing group; null without one. */
function answerPattern(options: DatasetOptions): { ok: true; pattern: RegExp | null } | Refused {
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

/** Every row as a task in its split, or skipped with its reason (with the rows unread before), by line. */
function placeRows(
  rows: readonly Row[],
  errors: readonly SkippedRow[],
  o: ResolvedOptions,
  metric: Metric,
  pattern: RegExp | null,
): { placed: { task: DatasetTask; split: Split }[]; skipped: SkippedRow[] } {
  const skipped: SkippedRow[] = [...errors];
  const placed: { task: DatasetTask; split: Split }[] = [];
  const ids = new Set<string>();
  for (const row of rows) {
    const made = toTask(row, o, metric, pattern);
    if ('reason' in made) skipped.push({ line: row.line, reason: made.reason });
    else if (ids.has(made.task.id))
      skipped.push({ line: row.line, reason: `id "${made.task.id}" was used by an earlier row` });
    else {
      ids.add(made.task.id);
      placed.push({ task: made.task, split: made.split ?? hashSplit(made.task.id) });
    }
  }
  skipped.sort((a, b) => a.line - b.line);
  return { placed, skipped };
}

/** The domain over the placed tasks, graded by `metric`. */
function placedDomain(
  file: string,
  name: string,
  options: DatasetOptions,
  metric: Metric,
  placed: readonly { task: DatasetTask; split: Split }[],
  skipped: SkippedRow[],
): Domain<Record<string, unknown>, DatasetAnswer, string | number> {
  const groups = groupBySplit(placed, (p) => p.split);
  const labels = options.choices ?? [...new Set(placed.map((p) => p.task.answer.accepted[0]!))];
  const tolerance = options.tolerance ?? 1e-6;
  return defineDomain<Record<string, unknown>, DatasetAnswer, string | number>({
    name,
    description:
      options.description ??
      `Rows of ${path.basename(file)}, graded by ${metric === 'f1' ? 'token-overlap F1' : `${metric} match`}.`,
    splits: (['train', 'val', 'test'] as const).filter((s) => groups.has(s)),
    load: (split) => (groups.get(split) ?? []).map((p) => p.task),
    answerSchema: z.union([z.string(), z.number()]),
    score: (prediction, task) => {
      const said = String(prediction);
      const gold = task.answer.accepted[0]!;
      switch (metric) {
        case 'exact':
          return Math.max(...task.answer.accepted.map((a) => exactScore(said, a)));
        case 'numeric':
          return numericScore(prediction, task.answer.number ?? Number.NaN, tolerance);
        case 'choice':
          return choiceScore(said, gold, labels);
        case 'f1':
          return f1Score(said, task.answer.accepted);
      }
    },
    goldResponse: (task) => task.answer.accepted[0]!,
    graderVersion: `dataset-1:${metric}:${tolerance}:${labels.join('|')}`,
    metric: metric === 'numeric' ? `numeric (tolerance ${tolerance})` : metric,
    stagedSamples: options.stagedSamples ?? 10,
    formatHint: FORMAT_HINTS[metric](metric === 'choice' ? labels : undefined),
    skipped,
  });
}
