import path from 'node:path';
import type { DatasetOptions } from './dataset-options.ts';
import type { Row } from './dataset-rows.ts';
import { holdsGold } from './gold-leaks.ts';
import { type PromptTemplate, readTemplate } from './prompt-template.ts';

/** A message for the user, where a dataset's configuration does not fit its file. */
type Refused = { ok: false; message: string };

/** The options with the fields resolved against the file's: which holds the answer, the id, the question. */
export type ResolvedOptions = Required<Pick<DatasetOptions, 'inputFields' | 'answerField'>> &
  DatasetOptions & { template?: PromptTemplate };

export const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

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
 * inspect's samples (`input`, `target`, and optionally `choices`, `id`, `metadata`), recognised without
 * flags: the input is shown (text or chat messages), the target graded, metadata kept from the agent.
 * Samples that need a sandbox or files (`sandbox`, `files`, `setup`) are refused: they are not rows.
 */
export function inspectSamples(
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
export function resolveFields(
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
  // `canary` marks canary tasks (see isCanary in dataset-tasks.ts): the agent is never shown which tasks
  // are canaries.
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
