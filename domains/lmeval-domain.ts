import { existsSync, readFileSync, statSync } from 'node:fs';
import { datasetDomain, type Opened } from './dataset.ts';
import { readDatasetFile, readSplitFolder, SPLIT_NAMES } from './dataset-files.ts';
import type { ReadRows, Row } from './dataset-rows.ts';
import type { Split } from './define-domain.ts';
import { type LmevalSource, readLmevalTask } from './lmeval-task.ts';

type Refused = { ok: false; message: string };

/** The domain an lm-eval task YAML describes, read as `dataset:` reads its rows; a mistake is a message. */
export async function openLmevalDomain(file: string, name: string): Promise<Opened> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      message: `lmeval:${file}: ${code === 'ENOENT' ? 'no such file' : `cannot read it (${code})`}.`,
    };
  }
  const read = readLmevalTask(text, file, existsSync);
  if (!read.ok) return read;
  const { source, options } = read.task;
  const rows = await readSource(source, options.answerField);
  if (!rows.ok) return { ok: false, message: `lmeval:${file}: ${rows.message}` };
  const opened = datasetDomain(sourcePath(source), name, options, rows.read);
  return opened.ok ? opened : { ok: false, message: `lmeval:${file}: ${opened.message}` };
}

function sourcePath(source: LmevalSource): string {
  return source.kind === 'file' ? source.file : source.kind === 'folder' ? source.dir : source.files[0]!.file;
}

/** The rows of the splits the task names, each in the split it plays here (test_split → test, ...). */
async function readSource(
  source: LmevalSource,
  answerField: string | undefined,
): Promise<{ ok: true; read: ReadRows } | Refused> {
  switch (source.kind) {
    case 'file':
      if (!existsSync(source.file)) return { ok: false, message: `${source.file}: no such file.` };
      return readDatasetFile(source.file, undefined, answerField);
    case 'files': {
      const read: ReadRows = { rows: [], errors: [], fields: [] };
      for (const { file, split } of source.files) {
        if (!existsSync(file)) return { ok: false, message: `${file}: no such file.` };
        const one = await readDatasetFile(file, undefined, answerField);
        if (!one.ok) return one;
        if (one.read.fatal !== undefined)
          return { ok: false, message: `${file}, line ${one.read.fatal.line}: ${one.read.fatal.reason}.` };
        for (const row of one.read.rows) read.rows.push({ ...row, split, lineId: `${split}-${row.line}` });
        read.errors.push(...one.read.errors);
        read.fields = [...new Set([...read.fields, ...one.read.fields])];
      }
      return { ok: true, read };
    }
    case 'folder': {
      if (!existsSync(source.dir) || !statSync(source.dir).isDirectory())
        return { ok: false, message: `${source.dir}: no such folder.` };
      // The folder's files name their splits (train.jsonl, data/validation-*.parquet); the YAML says which is which here.
      const played = new Map<Split, Split>();
      for (const [name, role] of Object.entries(source.splits)) {
        const fileSplit = SPLIT_NAMES[name.toLowerCase()];
        if (fileSplit === undefined)
          return {
            ok: false,
            message: `split "${name}" is not train, validation or test, the splits a folder's files name: use dataset_path json with dataset_kwargs.data_files.`,
          };
        played.set(fileSplit, role);
      }
      const all = await readSplitFolder(source.dir, undefined, answerField);
      if (!all.ok) return all;
      const rows: Row[] = [];
      for (const row of all.read.rows) {
        const role = row.split === undefined ? undefined : played.get(row.split);
        if (role !== undefined) rows.push({ ...row, split: role });
      }
      return { ok: true, read: { ...all.read, rows } };
    }
  }
}
