import path from 'node:path';
import { z } from 'zod';
import { closeMatches } from '../system/close-matches.ts';
import { optionsFromRef, REF_OPTION_KEYS } from './dataset-options.ts';
import { DOMAIN_NAME } from './define-domain.ts';
import { lmevalTaskName } from './lmeval-name.ts';

/**
 * A domain as `--domains` names it: `NAME` (a folder under domains/), `dataset:FILE` (a data file or a folder of split files),
 * or `exercism:DIR` (exercise folders). Any of them may be renamed with `NAME=` in front, e.g.
 * `gsm=dataset:data/gsm8k.jsonl`; otherwise a file or folder gives its own name (its base name in lower
 * case, other characters turned to dashes). A source may take options after its path, `?key=value&...`
 * (`SOURCE_OPTIONS`); `exercism:DIR?tests=visible` adds `-tests-visible` to the name, so every stored
 * score says the tests were visible.
 */
export type DomainRef =
  | { kind: 'named'; name: string }
  | { kind: 'dataset'; name: string; file: string; options?: Record<string, string> }
  | { kind: 'exercism'; name: string; dir: string; tests?: 'visible' }
  | { kind: 'module'; name: string; file: string }
  | { kind: 'lmeval'; name: string; file: string };

/**
 * The `?key=value&key=value` options a source takes after its path, by source kind, with the values each
 * key accepts. A key or value not listed is refused with a message that lists what is.
 */
export const SOURCE_OPTIONS: Record<'exercism' | 'module', Record<string, readonly string[]>> = {
  exercism: { tests: ['hidden', 'visible'] },
  module: {},
};

/** What a domain whose tests are visible gets after its name, so every stored score says so. */
export const TESTS_VISIBLE_SUFFIX = '-tests-visible';

export const DOMAIN_REF_HELP =
  'NAME (a folder under domains/), dataset:FILE (.jsonl, .json, .csv, .tsv, .gz of those, .parquet, or a folder ' +
  'of split files), exercism:DIR (a folder of exercises in the Exercism layout; add ?tests=visible to show the tests ' +
  'in the workspace), module:FILE (a domain module, .ts or .js, anywhere) or lmeval:FILE (an lm-evaluation-harness ' +
  'task YAML over local files), each optionally renamed as NAME=dataset:FILE';

/** A domain name from a file or folder name: "GSM8K test.jsonl" → "gsm8k-test". */
export function nameFromPath(p: string): string {
  const base = path.basename(p.replace(/[/\\]+$/, ''), path.extname(p.replace(/[/\\]+$/, '')));
  const name = base
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '');
  return name === '' ? 'dataset' : name;
}

/** Splits `where?key=value&...` into the path and its options; a malformed or unknown option is a message. */
export function parseSourceOptions(
  kind: 'dataset' | 'exercism' | 'module' | 'lmeval',
  where: string,
): { ok: true; where: string; options: Record<string, string> } | { ok: false; message: string } {
  if (kind === 'dataset') return datasetSourceOptions(where);
  if (kind === 'lmeval') return { ok: true, where, options: {} };
  const at = where.lastIndexOf('?');
  if (at < 0) return { ok: true, where, options: {} };
  const known = SOURCE_OPTIONS[kind];
  const accepted =
    Object.keys(known).length === 0
      ? `${kind}: takes no options`
      : `${kind}: takes ${Object.entries(known)
          .map(([key, values]) => `${key}=${values.join('|')}`)
          .join(', ')}`;
  const options: Record<string, string> = {};
  for (const pair of where.slice(at + 1).split('&')) {
    const [key, value, ...rest] = pair.split('=');
    if (key === undefined || key === '' || value === undefined || value === '' || rest.length > 0)
      return { ok: false, message: `"${pair}" is not an option of the form key=value (${accepted}).` };
    const values = known[key];
    if (values === undefined) return { ok: false, message: `Unknown option "${key}" (${accepted}).` };
    if (!values.includes(value))
      return { ok: false, message: `Option ${key}=${value} is not one of ${key}=${values.join('|')}.` };
    if (key in options) return { ok: false, message: `Option "${key}" is given twice.` };
    options[key] = value;
  }
  return { ok: true, where: where.slice(0, at), options };
}

/**
 * A dataset's `?key=value&...`: after the first "?" (a pattern may hold more), values URL-decoded, keys and
 * values checked as the dataset flags are (dataset-options.ts).
 */
function datasetSourceOptions(
  where: string,
): { ok: true; where: string; options: Record<string, string> } | { ok: false; message: string } {
  const at = where.indexOf('?');
  if (at < 0) return { ok: true, where, options: {} };
  const options: Record<string, string> = {};
  for (const pair of where.slice(at + 1).split('&')) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    let value: string;
    try {
      value = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1));
    } catch {
      return { ok: false, message: `"${pair}": a value with % must be URL-encoded (%25 for %, %26 for &).` };
    }
    if (key === '' || value === '')
      return {
        ok: false,
        message: `"${pair}" is not an option of the form key=value (dataset: takes ${Object.keys(REF_OPTION_KEYS).join(', ')}).`,
      };
    if (key in options) return { ok: false, message: `Option "${key}" is given twice.` };
    options[key] = value;
  }
  const checked = optionsFromRef(options);
  if (!checked.ok) return checked;
  return { ok: true, where: where.slice(0, at), options };
}

/** The option values as a name's suffix: `?metric=numeric&answer-field=answer` → "-numeric-answer". */
function optionsSuffix(options: Readonly<Record<string, string>>): string {
  const slug = Object.values(options)
    .map((v) =>
      v
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, ''),
    )
    .filter(Boolean)
    .join('-')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug === '' ? '' : `-${slug}`;
}

/** Parses one reference. Pure: files are not looked at here. */
export function parseDomainRef(text: string): { ok: true; ref: DomainRef } | { ok: false; message: string } {
  const trimmed = text.trim();
  const alias = /^([^=:]+)=(.*)$/.exec(trimmed);
  const [rename, source] = alias ? [alias[1]!.trim(), alias[2]!.trim()] : [undefined, trimmed];
  if (rename !== undefined && !DOMAIN_NAME.test(rename)) {
    return {
      ok: false,
      message: `"${rename}" cannot name a domain: use lower-case letters, digits and dashes, starting with a letter.`,
    };
  }
  const colon = /^(dataset|exercism|module|lmeval):(.*)$/.exec(source);
  if (colon) {
    const [, kind, whole] = colon as unknown as [
      string,
      'dataset' | 'exercism' | 'module' | 'lmeval',
      string,
    ];
    const withOptions = parseSourceOptions(kind, whole);
    if (!withOptions.ok) return { ok: false, message: `"${text}": ${withOptions.message}` };
    const where = withOptions.where;
    if (where.trim() === '')
      return {
        ok: false,
        message: `"${text}" names no ${kind === 'exercism' ? 'folder' : 'file'} after "${kind}:".`,
      };
    const base = rename ?? nameFromPath(where);
    if (kind === 'module') return { ok: true, ref: { kind, name: base, file: path.resolve(where) } };
    if (kind === 'lmeval') {
      // Named by the task's `task:` (read by its line, not parsed), else by the file.
      const task = rename === undefined ? lmevalTaskName(path.resolve(where)) : null;
      const name = rename ?? (task === null ? base : nameFromPath(`${task}.yaml`));
      return { ok: true, ref: { kind, name, file: path.resolve(where) } };
    }
    if (kind === 'dataset') {
      const options = withOptions.options;
      if (Object.keys(options).length === 0)
        return { ok: true, ref: { kind, name: base, file: path.resolve(where) } };
      // Options are part of the name (unless the user named the domain), so every stored score shows them.
      const name = rename ?? `${base}${optionsSuffix(options)}`;
      return { ok: true, ref: { kind, name, file: path.resolve(where), options } };
    }
    if (withOptions.options.tests !== 'visible')
      return { ok: true, ref: { kind, name: base, dir: path.resolve(where) } };
    const name = base.endsWith(TESTS_VISIBLE_SUFFIX) ? base : `${base}${TESTS_VISIBLE_SUFFIX}`;
    return { ok: true, ref: { kind, name, dir: path.resolve(where), tests: 'visible' } };
  }
  if (/^[a-z]+:/i.test(source)) {
    return {
      ok: false,
      message: `"${text}": the only sources are dataset:FILE, exercism:DIR, module:FILE and lmeval:FILE.`,
    };
  }
  if (rename !== undefined)
    return {
      ok: false,
      message: `"${text}": only dataset:FILE, exercism:DIR, module:FILE and lmeval:FILE can be renamed.`,
    };
  return { ok: true, ref: { kind: 'named', name: source } };
}

/** Parses a comma-separated list; two references with the same name are a mistake to report. */
export function parseDomainRefs(
  texts: readonly string[],
): { ok: true; refs: DomainRef[] } | { ok: false; message: string } {
  const refs: DomainRef[] = [];
  for (const text of texts
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean)) {
    const parsed = parseDomainRef(text);
    if (!parsed.ok) return parsed;
    const clash = refs.find((r) => r.name === parsed.ref.name);
    if (clash !== undefined && JSON.stringify(clash) === JSON.stringify(parsed.ref)) continue;
    if (clash !== undefined) {
      return {
        ok: false,
        message: `Two domains would be named "${parsed.ref.name}": rename one with NAME=, e.g. ${parsed.ref.name}-2=${text}.`,
      };
    }
    refs.push(parsed.ref);
  }
  return { ok: true, refs };
}

/** The reference written out in full (absolute path, explicit name), so a resumed run opens the same source. */
export function formatDomainRef(ref: DomainRef): string {
  switch (ref.kind) {
    case 'named':
      return ref.name;
    case 'dataset':
      return `${ref.name}=dataset:${ref.file}${
        ref.options === undefined
          ? ''
          : `?${Object.entries(ref.options)
              .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
              .join('&')}`
      }`;
    case 'exercism':
      return `${ref.name}=exercism:${ref.dir}${ref.tests === 'visible' ? '?tests=visible' : ''}`;
    case 'module':
      return `${ref.name}=module:${ref.file}`;
    case 'lmeval':
      return `${ref.name}=lmeval:${ref.file}`;
  }
}

export const DomainRefSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('named'), name: z.string() }),
  z.object({
    kind: z.literal('dataset'),
    name: z.string(),
    file: z.string(),
    options: z.record(z.string(), z.string()).optional(),
  }),
  z.object({
    kind: z.literal('exercism'),
    name: z.string(),
    dir: z.string(),
    tests: z.literal('visible').optional(),
  }),
  z.object({ kind: z.literal('module'), name: z.string(), file: z.string() }),
  z.object({ kind: z.literal('lmeval'), name: z.string(), file: z.string() }),
]);

/**
 * A run's domains: stored and given as text (`--domains`, a stored configuration), used as typed references.
 * Decoding parses the list once (a message for a reference the user must fix, marked to be shown after the
 * option's name and a colon); encoding writes each reference out in full.
 */
export const DomainRefList = z.codec(z.array(z.string()), z.array(DomainRefSchema).min(1), {
  decode(texts, ctx) {
    const parsed = parseDomainRefs(texts);
    if (parsed.ok) return parsed.refs;
    ctx.issues.push({ code: 'custom', message: parsed.message, input: texts, params: { form: 'labelled' } });
    return z.NEVER;
  },
  encode: (refs) => refs.map(formatDomainRef),
});

/**
 * The first named domain that is not one of `known` (the folders under domains/), as the message that says
 * what to do; null when every one is known. File and folder references are opened later.
 */
export function unknownDomain(refs: readonly DomainRef[], known: readonly string[]): string | null {
  for (const ref of refs) {
    if (ref.kind !== 'named' || known.includes(ref.name)) continue;
    const near = closeMatches(ref.name, known);
    return (
      `Unknown domain "${ref.name}"${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}. ` +
      `Known domains: ${known.join(', ')}. A new domain is a folder domains/<name>/ with an index.ts; ` +
      'a CSV or JSONL file is dataset:FILE, a folder of exercises exercism:DIR.'
    );
  }
  return null;
}
