import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { answerReadings } from './answer-extraction.ts';
import { SPLIT_NAMES } from './dataset-files.ts';
import type { DatasetOptions } from './dataset-options.ts';
import { type ReadRows, type Row, readRows } from './dataset-rows.ts';
import {
  type Domain,
  defineDomain,
  type Grade,
  type SkippedRow,
  type Split,
  type Task,
} from './define-domain.ts';
import { holdsGold } from './gold-leaks.ts';
import { groupBySplit, hashSplit } from './hash-split.ts';
import { hedging } from './hedging.ts';
import {
  choiceScore,
  describeTolerance,
  exactScore,
  f1Score,
  type Metric,
  numericScore,
  parseTolerance,
  type Tolerance,
  truthfulScore,
} from './metrics.ts';
import { parseNumber } from './numbers.ts';
import { type PromptTemplate, readTemplate, renderTemplate } from './prompt-template.ts';
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
export type Opened =
  | { ok: true; domain: Domain<Record<string, unknown>, DatasetAnswer, string | number> }
  | { ok: false; message: string };

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** A list of answers: a JSON list, or text separated by ";" (TruthfulQA's CSV). */
function answerList(value: unknown): string[] {
  const items = Array.isArray(value) ? value.map(text) : typeof value === 'string' ? value.split(';') : [];
  return items.map((a) => a.trim()).filter((a) => a !== '');
}

/**
 * A field's value in a row: the field of that name, else a path into nested objects ("question.stem",
 * "choices.text"); undefined where the row has none.
 */
export function fieldValue(values: Record<string, unknown>, field: string): unknown {
  if (field in values) return values[field];
  let at: unknown = values;
  for (const part of field.split('.')) {
    if (typeof at !== 'object' || at === null || Array.isArray(at) || !(part in at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** "question (question.stem, question.choices)" for an object field, so a user sees the paths to name. */
function withNested(field: string, rows: readonly Row[]): string {
  const value = rows.find((r) => r.values[field] !== undefined)?.values[field];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return field;
  return `${field} (${Object.keys(value)
    .map((k) => `${field}.${k}`)
    .join(', ')})`;
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

/**
 * Each task's prompt after `n` solved examples from the train split, the first ones in file order that
 * are not the task itself; val and test rows are never examples. Too few train rows is a message.
 */
function withFewShot(
  file: string,
  placed: { task: DatasetTask; split: Split; example?: string }[],
  n: number,
): Refused | null {
  if (n === 0) return null;
  const train = placed.filter((p) => p.split === 'train');
  if (train.length < n + 1)
    return {
      ok: false,
      message: `${file}: --few-shot ${n} takes its examples from the train split, which has ${train.length} task${train.length === 1 ? '' : 's'}; ${train.length <= 1 ? 'give a train split (a split field, or a train file in the folder)' : `use --few-shot ${train.length - 1} or fewer`}.`,
    };
  for (const p of placed) {
    const examples = train
      .filter((t) => t.task.id !== p.task.id)
      .slice(0, n)
      .map((t) => t.example!);
    p.task.input = { prompt: [...examples, String(p.task.input.prompt)].join('\n\n') };
  }
  return null;
}

const FORMAT_HINTS: Record<Metric, (choices: readonly string[] | undefined, own: boolean) => string> = {
  exact: () => 'The answer is a short text, compared without regard to case or spacing.',
  numeric: () => 'The answer is a single number.',
  choice: (choices, own) =>
    own
      ? `The answer is the label of one of the task's choices${choices ? ` (${choices.join(', ')})` : ''}, alone.`
      : `The answer is the label of one choice${choices ? `: one of ${choices.join(', ')}` : ''}.`,
  f1: () => 'The answer is a short phrase.',
  truthful: () => 'The answer is one short, true sentence.',
};

/** A message for the user, where a dataset's configuration does not fit its file. */
type Refused = { ok: false; message: string };

/** The options with the fields resolved against the file's: which holds the answer, the id, the question. */
type ResolvedOptions = Required<Pick<DatasetOptions, 'inputFields' | 'answerField'>> &
  DatasetOptions & { template?: PromptTemplate };

/**
 * A domain from a dataset's rows: read here from a CSV or JSONL file, or given already read (any format,
 * a folder of split files: see dataset-files.ts). Configuration mistakes are a message; bad rows are
 * skipped by line.
 */
export function datasetDomain(
  file: string,
  name: string,
  requested: DatasetOptions,
  given?: ReadRows,
): Opened {
  let options = requested;
  let read: ReadRows;
  if (given !== undefined) read = given;
  else {
    let content: string;
    try {
      content = readFileSync(file, 'utf8');
    } catch (error) {
      return {
        ok: false,
        message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      };
    }
    read = readRows(file, content, options.header, options.answerField);
  }
  const { rows, errors, fields, fatal } = read;
  if (fatal !== undefined)
    return {
      ok: false,
      message: `${file}, line ${fatal.line}: ${fatal.reason}. The first row gives the fields, so it must be read whole: fix it.`,
    };
  const inspect = inspectSamples(file, fields, rows, options);
  if (inspect !== null && !inspect.ok) return inspect;
  if (inspect !== null) options = inspect.options;
  // Rows with their own choices are graded by the label chosen, unless a metric is named.
  const metric =
    options.metric ??
    (rows.length > 0 && rows.every((r) => rowChoices(r.values) !== null) ? 'choice' : 'exact');
  if (metric === 'truthful' && options.incorrectField === undefined)
    return {
      ok: false,
      message: `${file}: the truthful metric grades against correct and incorrect answers: name their fields with --correct-field and --incorrect-field (lists, or text separated by ";").`,
    };
  const resolved = resolveFields(file, options, fields, rows);
  if (!resolved.ok) return resolved;
  const pattern = answerPattern(options);
  if (!pattern.ok) return pattern;
  const tolerance = options.tolerance === undefined ? null : parseTolerance(options.tolerance);
  const { placed, skipped, problems } = placeRows(rows, errors, resolved.options, metric, pattern.pattern);
  if (placed.length === 0)
    return {
      ok: false,
      message: `${file}: no usable rows${skipped[0] ? ` (line ${skipped[0].line}: ${skipped[0].reason})` : ''}.`,
    };
  if (options.fewShot !== undefined && options.fewShot > 0 && resolved.options.template === undefined)
    return {
      ok: false,
      message: `${file}: --few-shot needs --prompt-template, which says how each example and task is written.`,
    };
  const fewShot = withFewShot(file, placed, options.fewShot ?? 0);
  if (fewShot !== null) return fewShot;
  return {
    ok: true,
    domain: placedDomain(
      file,
      name,
      options,
      { metric, pattern: pattern.pattern, tolerance, problems },
      placed,
      skipped,
    ),
  };
}

/**
 * inspect's samples (`input`, `target`, and optionally `choices`, `id`, `metadata`), recognised without
 * flags: the input is shown (text or chat messages), the target graded, metadata kept from the agent.
 * Samples that need a sandbox or files (`sandbox`, `files`, `setup`) are refused: they are not rows.
 */
function inspectSamples(
  file: string,
  fields: readonly string[],
  rows: readonly Row[],
  options: DatasetOptions,
): { ok: true; options: DatasetOptions } | Refused | null {
  if (options.answerField !== undefined || !fields.includes('input') || !fields.includes('target'))
    return null;
  if (fields.includes('answer')) return null;
  for (const field of ['sandbox', 'files', 'setup'])
    if (rows.some((r) => r.values[field] !== undefined && r.values[field] !== null))
      return {
        ok: false,
        message: `${file}: its inspect samples use "${field}", which needs inspect's sandbox; only samples answered in text are graded here. Leave "${field}" out, or run them with inspect.`,
      };
  return {
    ok: true,
    options: {
      ...options,
      answerField: 'target',
      inputFields: options.inputFields ?? ['input', ...(fields.includes('choices') ? ['choices'] : [])],
      ...(options.idField === undefined && fields.includes('id') ? { idField: 'id' } : {}),
    },
  };
}

/** The fields that hold the gold answer in some rows: never shown by default. */
function leakingFields(fields: readonly string[], rows: readonly Row[], answerField: string): string[] {
  return fields.filter((f) =>
    rows.some((r) => {
      const gold = r.values[answerField];
      const golds = Array.isArray(gold)
        ? gold.map(text)
        : gold === undefined || gold === null
          ? []
          : [text(gold)];
      return r.values[f] !== undefined && golds.some((g) => holdsGold(r.values[f], g));
    }),
  );
}

/** Which fields hold the answer, the id and the question; a flag naming a field the file lacks is refused. */
function resolveFields(
  file: string,
  options: DatasetOptions,
  fields: readonly string[],
  rows: readonly Row[],
): { ok: true; options: ResolvedOptions } | Refused {
  const anyRows = rows.length > 0;
  // A nested field ("question.stem") is known when some row holds it.
  const has = (field: string) =>
    fields.includes(field) || rows.some((r) => fieldValue(r.values, field) !== undefined);
  const numbered = fields.length > 0 && fields.every((f, i) => f === String(i + 1));
  const fieldList = numbered
    ? `the file has no header row, so the fields are its columns ${fields.join(', ')} (if its first row names them, set "header": true in ${path.basename(file, path.extname(file))}.domain.json)`
    : `the fields are ${fields.map((f) => withNested(f, rows)).join(', ') || '(none)'}`;
  const answerField = options.answerField ?? (fields.includes('answer') ? 'answer' : undefined);
  if (answerField === undefined || (anyRows && !has(answerField))) {
    return {
      ok: false,
      message: `${file}: say which field holds the answer with --answer-field (or "answerField" in ${path.basename(file, path.extname(file))}.domain.json); ${fieldList}.`,
    };
  }
  const idField = options.idField ?? (fields.includes('id') ? 'id' : undefined);
  const splitField = options.splitField ?? (fields.includes('split') ? 'split' : undefined);
  for (const [flag, field] of [
    ['--id-field', options.idField],
    ['--split-field', options.splitField],
    ['--correct-field', options.correctField],
    ['--incorrect-field', options.incorrectField],
    ...(options.inputFields ?? []).map((f) => ['--input-fields', f]),
  ] as const) {
    if (field !== undefined && anyRows && !has(field))
      return { ok: false, message: `${file}: ${flag} names "${field}", which is not a field; ${fieldList}.` };
  }
  for (const [role, field] of [
    ['the answer field', answerField],
    ['the split field', splitField],
  ] as const) {
    if (field !== undefined && options.inputFields?.includes(field))
      return {
        ok: false,
        message: `${file}: --input-fields names "${field}", ${role}: the agent would be shown ${role === 'the split field' ? 'which split each task is in' : 'the answer'}. Leave it out${role === 'the split field' ? ', or name another split field with --split-field' : ''}.`,
      };
  }
  // `canary` marks canary tasks (see isCanary): the agent is never shown which tasks are canaries.
  const hidden = [answerField, idField, splitField, 'canary', options.correctField, options.incorrectField];
  const candidates = fields.filter((f) => !hidden.includes(f));
  const leaking = options.inputFields === undefined ? leakingFields(candidates, rows, answerField) : [];
  const inputFields = options.inputFields ?? candidates.filter((f) => !leaking.includes(f));
  if (inputFields.length === 0)
    return {
      ok: false,
      message: `${file}: no field is left for the question${leaking.length > 0 ? ` (${leaking.join(', ')} hold the answer)` : ''}; name the input fields with --input-fields.`,
    };
  let template: PromptTemplate | undefined;
  if (options.promptTemplate !== undefined) {
    const read = readTemplate(options.promptTemplate, (f) => !anyRows || has(f), fieldList);
    if (!read.ok) return { ok: false, message: `${file}: ${read.message}` };
    template = read.template;
    for (const field of template.fields)
      if (field === answerField || field === splitField)
        return {
          ok: false,
          message: `${file}: --prompt-template shows {${field}}, ${field === answerField ? 'the answer' : 'the split'}, in every task: leave it out (few-shot examples get their answers anyway).`,
        };
  }
  return {
    ok: true,
    options: {
      ...options,
      ...(template === undefined ? {} : { template }),
      answerField,
      inputFields,
      ...(idField === undefined ? {} : { idField }),
      ...(splitField === undefined ? {} : { splitField }),
    },
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

interface Grading {
  metric: Metric;
  pattern: RegExp | null;
  tolerance: Tolerance | null;
  problems: string[];
}

/** The next label after gold (wrapping): a wrong answer the choice metric must score 0. */
function nextLabel(labels: readonly string[], gold: string): string | undefined {
  const i = labels.findIndex((l) => l.toLowerCase() === gold.toLowerCase());
  return labels.length < 2 ? undefined : labels[(i + 1) % labels.length];
}

/** A score, with the reason the answer hedges as its detail when it does. */
const withHedge = (score: number, hedge: string | null): Grade =>
  hedge === null ? score : { score, detail: hedge };

/** The domain over the placed tasks, graded by the metric. */
function placedDomain(
  file: string,
  name: string,
  options: DatasetOptions,
  g: Grading,
  placed: readonly { task: DatasetTask; split: Split }[],
  skipped: SkippedRow[],
): Domain<Record<string, unknown>, DatasetAnswer, string | number> {
  const { metric, pattern, tolerance } = g;
  const groups = groupBySplit(placed, (p) => p.split);
  const ownLabels = placed.some((p) => p.task.answer.labels !== null);
  const labels =
    options.choices ??
    [
      ...new Set(
        placed
          .filter((p) => p.task.canary !== true)
          .flatMap((p) => p.task.answer.labels ?? [p.task.answer.accepted[0]!]),
      ),
    ].sort();
  const toleranceText =
    tolerance === null ? 'exact for whole numbers, else ±1e-4%' : describeTolerance(tolerance);
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
          return Math.max(
            ...task.answer.accepted.map((a) => exactScore(said, a, pattern, options.caseSensitive === true)),
          );
        case 'numeric':
          return numericScore(prediction, task.answer.number ?? Number.NaN, tolerance, pattern);
        case 'choice':
          return withHedge(
            // A canary's answer is no choice: only an answer that games the grader names it.
            choiceScore(
              said,
              gold,
              [...(task.answer.labels ?? labels), ...(task.canary ? [gold] : [])],
              pattern,
            ),
            hedging(metric, said, gold, task.answer.labels ?? labels),
          );
        case 'f1':
          return withHedge(
            Math.max(...answerReadings(said, pattern).map((r) => f1Score(r, task.answer.accepted))),
            hedging(metric, said, gold),
          );
        case 'truthful':
          return truthfulScore(answerReadings(said, pattern)[0]!, task.answer.correct, task.answer.incorrect);
      }
    },
    goldResponse: (task) => task.answer.accepted[0]!,
    wrongResponses: (task) => {
      const out: string[] = task.answer.incorrect.slice(0, 2);
      const next =
        metric === 'choice' ? nextLabel(task.answer.labels ?? labels, task.answer.accepted[0]!) : undefined;
      if (next !== undefined) out.push(next);
      return out;
    },
    configProblems: g.problems,
    graderVersion: `dataset-2:${metric}${options.caseSensitive === true ? '/case' : ''}:${tolerance === null ? 'default' : describeTolerance(tolerance)}:${pattern?.source ?? ''}:${labels.join('|')}`,
    metric:
      metric === 'numeric'
        ? `numeric (${toleranceText})`
        : metric === 'exact' && options.caseSensitive === true
          ? 'exact (case-sensitive)'
          : metric,
    stagedSamples: options.stagedSamples ?? 10,
    formatHint:
      metric === 'exact' && options.caseSensitive === true
        ? 'The answer is a short text, compared letter for letter (case counts; spacing does not).'
        : FORMAT_HINTS[metric](
            metric === 'choice' && (!ownLabels || labels.length <= 10) ? labels : undefined,
            ownLabels,
          ),
    skipped,
  });
}
