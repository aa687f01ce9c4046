import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { datasetDomain } from './dataset.ts';
import { datasetFormat, FORMATS_HELP, readDatasetSource } from './dataset-files.ts';
import { type DatasetOptions, mergeOptions, optionsFromRef, readSidecar } from './dataset-options.ts';
import type { Domain } from './define-domain.ts';
import { DOMAINS_DIR, listDomainNames, loadDomain } from './discover.ts';
import { exercismDomain } from './exercism/exercism-domain.ts';
import { readExercises } from './exercism/read.ts';
import { openLmevalDomain } from './lmeval-domain.ts';
import { openModuleDomain } from './module-domain.ts';
import type { DomainRef } from './reference.ts';

export type OpenedDomain = { ok: true; domain: Domain } | { ok: false; message: string };

/** Where the domain's tasks are graded: `gradedElsewhere`, on queue workers (their toolchains, not this machine's). */
export interface DomainReading {
  gradedElsewhere?: boolean;
}

/**
 * Opens what a reference names. A mistake the user can fix (a missing file, an unknown name, a field
 * that is not there) is a message; a shipped domain that fails to load is a bug and throws.
 */
export async function openDomain(
  ref: DomainRef,
  flags: DatasetOptions = {},
  dir = DOMAINS_DIR,
  reading: DomainReading = {},
): Promise<OpenedDomain> {
  switch (ref.kind) {
    case 'named': {
      const known = listDomainNames(dir);
      if (!known.includes(ref.name)) {
        return {
          ok: false,
          message:
            `Unknown domain "${ref.name}". Known domains: ${known.join(', ')}. A new domain is a folder domains/<name>/ ` +
            'with an index.ts; a CSV or JSONL file is dataset:FILE, a folder of exercises exercism:DIR.',
        };
      }
      return { ok: true, domain: await loadDomain(ref.name, dir) };
    }
    case 'dataset': {
      if (!existsSync(ref.file))
        return { ok: false, message: `dataset:${ref.file}: no such file or folder.` };
      const isDir = statSync(ref.file).isDirectory();
      if (isDir && looksLikeExercises(ref.file))
        return {
          ok: false,
          message: `dataset:${ref.file} is a folder of exercises: name it exercism:${ref.file}.`,
        };
      if (!isDir && datasetFormat(ref.file) === null)
        return {
          ok: false,
          message: `dataset:${ref.file}: a dataset is a ${FORMATS_HELP} file, or a folder of split files.`,
        };
      const sidecar = readSidecar(ref.file);
      if (!sidecar.ok) return sidecar;
      // Options in the reference replace the command line's dataset flags for this domain.
      const own = ref.options === undefined ? null : optionsFromRef(ref.options);
      if (own !== null && !own.ok) return { ok: false, message: `dataset:${ref.file}: ${own.message}` };
      const options = mergeOptions(sidecar.options, own === null ? flags : own.options);
      const read = await readDatasetSource(ref.file, options.header, options.answerField);
      if (!read.ok) return { ok: false, message: `dataset:${read.message}` };
      const opened = datasetDomain(ref.file, ref.name, options, read.read);
      return opened.ok ? { ok: true, domain: opened.domain as Domain } : opened;
    }
    case 'exercism': {
      if (!existsSync(ref.dir) || !statSync(ref.dir).isDirectory())
        return { ok: false, message: `exercism:${ref.dir}: no such folder.` };
      const testsVisible = ref.tests === 'visible';
      const set = readExercises(ref.dir, {
        testsVisible,
        ...(reading.gradedElsewhere === true ? { gradedElsewhere: true } : {}),
      });
      if (set.tasks.length === 0) {
        return {
          ok: false,
          message:
            `exercism:${ref.dir} holds no exercise it can grade: each exercise is a folder with .meta/config.json, ` +
            `.docs/instructions.md, the tests and the example solution${set.skipped[0] ? ` (${set.skipped[0].reason})` : ''}.`,
        };
      }
      return { ok: true, domain: exercismDomain(set, { name: ref.name, testsVisible }) as Domain };
    }
    case 'module':
      return openModuleDomain(ref.file, ref.name);
    case 'lmeval': {
      const opened = await openLmevalDomain(ref.file, ref.name);
      return opened.ok ? { ok: true, domain: opened.domain as Domain } : opened;
    }
  }
}

/** A folder whose subfolders (or itself) hold `.meta/config.json`: exercises, not a dataset. */
function looksLikeExercises(dir: string): boolean {
  if (existsSync(path.join(dir, '.meta', 'config.json'))) return true;
  return readdirSync(dir, { withFileTypes: true }).some(
    (e) => e.isDirectory() && existsSync(path.join(dir, e.name, '.meta', 'config.json')),
  );
}
