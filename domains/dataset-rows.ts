import { type CsvRecord, parseCsv } from './csv.ts';
import type { SkippedRow, Split } from './define-domain.ts';
import { parseNumber } from './numbers.ts';

/** A row as named fields, and the 1-based line it starts on. */
export interface Row {
  line: number;
  values: Record<string, unknown>;
  /** The split its file names, in a folder of split files; it wins over a split field. */
  split?: Split;
  /** Its file within a folder of split files, and the id it gets without an id field ("test-3"). */
  file?: string;
  lineId?: string;
}

export interface ReadRows {
  rows: Row[];
  errors: SkippedRow[];
  fields: string[];
  /** A broken first CSV record: the fields cannot be known. */
  fatal?: SkippedRow;
}

/** A cell that reads as a field's name: short, one line, not a number, not a sentence. */
const isLabel = (cell: string) =>
  cell.trim() !== '' && cell.length <= 48 && !/[\n?!]/.test(cell) && parseNumber(cell) === null;

/**
 * Whether a CSV's first record names the fields, judged by its shape: every cell a distinct label, and at
 * least one column whose cells below are unlike it (numbers, or texts much longer than the label), with
 * no label repeated in its column below. A first row of data such as "Paris,France" is not a header.
 */
export function looksLikeHeader(records: readonly (readonly string[])[]): boolean {
  const [first, ...below] = records;
  if (first === undefined || !first.every(isLabel) || new Set(first).size !== first.length) return false;
  if (below.length === 0) return false;
  let unlike = false;
  for (const [i, label] of first.entries()) {
    const column = below.map((r) => r[i] ?? '');
    if (column.includes(label)) return false;
    const numeric = column.filter((c) => parseNumber(c) !== null).length;
    const lengths = column.map((c) => c.length).sort((a, b) => a - b);
    const median = lengths[Math.floor(lengths.length / 2)] ?? 0;
    if (numeric > column.length / 2 || median > 2 * label.length + 8 || column.some((c) => /[?\n]/.test(c)))
      unlike = true;
  }
  return unlike;
}

function readJsonl(text: string): ReadRows {
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

/**
 * Tab-separated values as IANA's text/tab-separated-values has them: one record a line, fields split by
 * tabs, quotes taken as they are (a TSV has no quoting). A NUL byte leaves its record out.
 */
export function parseTsv(text: string): { records: CsvRecord[]; errors: SkippedRow[] } {
  const records: CsvRecord[] = [];
  const errors: SkippedRow[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '') return;
      if (line.includes('\0'))
        errors.push({
          line: i + 1,
          reason: 'a NUL byte (is the file binary, or text in an encoding other than UTF-8?)',
        });
      else records.push({ line: i + 1, fields: line.split('\t') });
    });
  return { records, errors };
}

/**
 * The rows of a JSONL, CSV or TSV file. A CSV's first row is a header when `header` says so, when it holds the
 * answer field's name, or when its shape says so (`looksLikeHeader`); else fields are column numbers.
 */
export function readRows(
  file: string,
  text: string,
  header: boolean | undefined,
  answerField: string | undefined,
): ReadRows {
  if (/\.jsonl?$/i.test(file)) return readJsonl(text);
  const { records, errors } = /\.tsv$/i.test(file) ? parseTsv(text) : parseCsv(text);
  const first = records[0];
  // The first record decides the fields (a header, or the first task's columns): a broken one is fatal.
  const broken = errors[0];
  if (broken !== undefined && (first === undefined || broken.line < first.line))
    return { rows: [], errors, fields: [], fatal: broken };
  if (first === undefined) return { rows: [], errors, fields: [] };
  const hasHeader =
    header ??
    (first.fields.includes(answerField ?? 'answer') ||
      looksLikeHeader(records.slice(0, 51).map((r) => r.fields)));
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
