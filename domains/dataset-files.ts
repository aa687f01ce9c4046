import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import { type ReadRows, type Row, readRows } from './dataset-rows.ts';
import type { Split } from './define-domain.ts';

/** The formats a dataset file comes in, by its extension; text formats may be gzipped (`.jsonl.gz`). */
export type DatasetFormat = 'jsonl' | 'json' | 'csv' | 'tsv' | 'parquet';

export const FORMATS_HELP =
  '.jsonl, .json (an array, or JSON lines), .csv, .tsv (each may be .gz) or .parquet';

/** The format of a file by its name, and whether it is gzipped; null for a name that is no dataset. */
export function datasetFormat(file: string): { format: DatasetFormat; gzip: boolean } | null {
  const m = /\.(jsonl|json|csv|tsv|parquet)(\.gz)?$/i.exec(file);
  if (m === null) return null;
  const format = m[1]!.toLowerCase() as DatasetFormat;
  if (format === 'parquet' && m[2] !== undefined) return null;
  return { format, gzip: m[2] !== undefined };
}

type Refused = { ok: false; message: string };
export type ReadSource = { ok: true; read: ReadRows } | Refused;

/** Parquet values as JSON would hold them: 64-bit integers as numbers (or text past 2^53), dates as ISO text. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint')
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

async function readParquet(file: string, bytes: Buffer): Promise<ReadSource> {
  let objects: Record<string, unknown>[];
  try {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    objects = await parquetReadObjects({ file: buffer });
  } catch (error) {
    return {
      ok: false,
      message: `${file} is not a Parquet file that can be read (${(error as Error).message}): download it again, or convert it to .jsonl.`,
    };
  }
  const rows: Row[] = objects.map((o, i) => ({ line: i + 1, values: plain(o) as Record<string, unknown> }));
  return {
    ok: true,
    read: { rows, errors: [], fields: [...new Set(rows.flatMap((r) => Object.keys(r.values)))] },
  };
}

/** A `.json` file: an array of objects, or (as many exports name them) JSON lines. */
function readJsonArray(file: string, text: string): ReadSource {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
    // More than one line that each start an object: JSON lines under a .json name.
    if (lines.length > 1 && lines.every((l) => l.trimStart().startsWith('{')))
      return { ok: true, read: readRows('x.jsonl', text, undefined, undefined) };
    return {
      ok: false,
      message: `${file} is not valid JSON (${(error as Error).message}): a .json dataset is an array of objects, or one object per line.`,
    };
  }
  if (!Array.isArray(value))
    return {
      ok: false,
      message: `${file} holds a JSON ${value === null ? 'null' : typeof value}, not an array of rows: a .json dataset is an array of objects ([{...}, {...}]), or one object per line.`,
    };
  const rows: Row[] = [];
  const errors: ReadRows['errors'] = [];
  value.forEach((item, i) => {
    if (typeof item === 'object' && item !== null && !Array.isArray(item))
      rows.push({ line: i + 1, values: item as Record<string, unknown> });
    else errors.push({ line: i + 1, reason: `item ${i + 1} of the array is not a JSON object` });
  });
  return {
    ok: true,
    read: { rows, errors, fields: [...new Set(rows.flatMap((r) => Object.keys(r.values)))] },
  };
}

/** One dataset file in any format read here. `header` and `answerField` help decide a CSV's header. */
export async function readDatasetFile(
  file: string,
  header: boolean | undefined,
  answerField: string | undefined,
): Promise<ReadSource> {
  const kind = datasetFormat(file);
  if (kind === null) return { ok: false, message: `${file}: a dataset file is ${FORMATS_HELP}.` };
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    return {
      ok: false,
      message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
  if (kind.format === 'parquet') return readParquet(file, bytes);
  if (kind.gzip) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      return {
        ok: false,
        message: `${file} is not a whole gzip file (${(error as Error).message}): download it again, or, if it is not compressed, rename it without .gz.`,
      };
    }
  }
  const text = bytes.toString('utf8');
  if (kind.format === 'json') return readJsonArray(file, text);
  const plainName = file.replace(/\.gz$/i, '');
  return { ok: true, read: readRows(plainName, text, header, answerField) };
}

/** Split names as files name them (Hugging Face's `train`, `validation`, `test`, and the usual aliases). */
export const SPLIT_NAMES: Record<string, Split> = {
  train: 'train',
  training: 'train',
  val: 'val',
  valid: 'val',
  validation: 'val',
  dev: 'val',
  test: 'test',
  testing: 'test',
};

/** `train.jsonl`, `test-00000-of-00001.parquet`, `validation-00001-of-00002-1a2b.parquet` → the split. */
function splitOfFile(name: string): Split | null {
  const m = /^([a-z]+)(?:-\d+-of-\d+(?:-[0-9a-f]+)?)?\.[a-z.]+$/i.exec(name);
  if (m === null || datasetFormat(name) === null) return null;
  return SPLIT_NAMES[m[1]!.toLowerCase()] ?? null;
}

/** The split files under a folder (to three levels, as `data/` or a configuration folder holds them). */
function splitFiles(dir: string): { file: string; split: Split }[] {
  const found: { file: string; split: Split }[] = [];
  const walk = (at: string, depth: number) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(at, entry.name);
      if (entry.isDirectory() && depth < 3) walk(full, depth + 1);
      else if (entry.isFile()) {
        const split = splitOfFile(entry.name);
        if (split !== null) found.push({ file: full, split });
      }
    }
  };
  walk(dir, 0);
  return found;
}

/**
 * A folder of per-split files, as Hugging Face datasets ship them: `train.jsonl`, `validation.jsonl`,
 * `test.jsonl` (or .json, .csv, .tsv, .parquet), or shards such as `data/train-00000-of-00001.parquet`.
 * Each row keeps its split and its file; a shard's rows follow the shard before them.
 */
export async function readSplitFolder(
  dir: string,
  header: boolean | undefined,
  answerField: string | undefined,
): Promise<ReadSource> {
  const files = splitFiles(dir);
  if (files.length === 0)
    return {
      ok: false,
      message: `${dir} holds no split files: a dataset folder has train, validation and/or test files (${FORMATS_HELP}), such as train.jsonl or data/test-00000-of-00001.parquet. For one file, give the file.`,
    };
  const folders = [...new Set(files.map((f) => path.dirname(f.file)))];
  if (folders.length > 1)
    return {
      ok: false,
      message: `${dir} holds split files in ${folders.length} folders (${folders.map((f) => path.relative(dir, f) || '.').join(', ')}), which are different configurations of the data: give one of those folders.`,
    };
  const rows: Row[] = [];
  const errors: ReadRows['errors'] = [];
  const fields = new Set<string>();
  const perSplit = new Map<Split, number>();
  for (const f of files) perSplit.set(f.split, (perSplit.get(f.split) ?? 0) + 1);
  for (const f of files) {
    const read = await readDatasetFile(f.file, header, answerField);
    if (!read.ok) return read;
    const name = path.relative(dir, f.file);
    if (read.read.fatal !== undefined)
      return {
        ok: false,
        message: `${f.file}, line ${read.read.fatal.line}: ${read.read.fatal.reason}. The first row gives the fields, so it must be read whole: fix it.`,
      };
    // Ids by line name the split (or the shard), since every file counts its lines from 1.
    const prefix = perSplit.get(f.split) === 1 ? f.split : path.basename(f.file).replace(/\.[a-z.]+$/i, '');
    for (const row of read.read.rows)
      rows.push({ ...row, split: f.split, file: name, lineId: `${prefix}-${row.line}` });
    for (const e of read.read.errors) errors.push({ line: e.line, reason: `${e.reason} (in ${name})` });
    for (const field of read.read.fields) fields.add(field);
  }
  return { ok: true, read: { rows, errors, fields: [...fields] } };
}

/** A dataset file or a folder of split files, read whole; a problem with the source is a message. */
export async function readDatasetSource(
  where: string,
  header: boolean | undefined,
  answerField: string | undefined,
): Promise<ReadSource> {
  let isDir: boolean;
  try {
    isDir = statSync(where).isDirectory();
  } catch {
    return { ok: false, message: `${where}: no such file or folder.` };
  }
  return isDir ? readSplitFolder(where, header, answerField) : readDatasetFile(where, header, answerField);
}
