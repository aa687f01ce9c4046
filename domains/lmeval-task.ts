import path from 'node:path';
import { isMap, isNode, parseDocument, visit } from 'yaml';
import type { DatasetOptions } from './dataset-options.ts';
import type { Split } from './define-domain.ts';

/**
 * The offline subset of an lm-evaluation-harness task YAML, as what the `dataset:` reader already takes:
 * where the rows are, which of their splits are used, and the dataset options (prompt template, answer
 * field, answer pattern, few-shot). Everything else is refused by name, with what to do instead.
 */
export interface LmevalTask {
  /** The YAML's `task:`, when it names one. */
  task: string | undefined;
  source: LmevalSource;
  options: DatasetOptions;
}

/**
 * Where the rows are: one file (split by id hash, as `dataset:FILE` is), a file per split name, or a folder
 * of split files. `splits` maps the YAML's split names (`test_split: validation`) to the splits used here.
 */
export type LmevalSource =
  | { kind: 'file'; file: string }
  | { kind: 'files'; files: { file: string; split: Split }[] }
  | { kind: 'folder'; dir: string; splits: Record<string, Split> };

type Refused = { ok: false; message: string };

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const BUILDERS = ['json', 'csv', 'parquet'];
const IGNORED = [
  'task',
  'tag',
  'metadata',
  'generation_kwargs',
  'should_decontaminate',
  'doc_to_decontamination_query',
];
const HANDLED = [
  'dataset_path',
  'dataset_name',
  'dataset_kwargs',
  'test_split',
  'validation_split',
  'training_split',
  'output_type',
  'doc_to_text',
  'doc_to_target',
  'metric_list',
  'filter_list',
  'num_fewshot',
  'target_delimiter',
  'fewshot_delimiter',
  'repeats',
];
const PYTHON =
  'runs Python, which is not run here: preprocess the rows into a file with the fields the templates name';
const REFUSED_KEYS: Record<string, string> = {
  include: 'merges another task file: copy its keys into this file',
  group: 'makes a group of tasks: give each task its own YAML file',
  task_alias: 'renames a task in lm-eval tables: leave it out (rename the domain with NAME=lmeval:FILE)',
  process_docs: PYTHON,
  process_results: PYTHON,
  doc_to_choice:
    'lists choices for loglikelihood scoring: use output_type generate_until, or dataset:FILE with --metric choice',
  fewshot_config:
    "chooses few-shot examples in lm-eval's ways: use num_fewshot alone (examples from training_split, in file order)",
  fewshot_split: 'names where few-shot examples come from: here they come from training_split; leave it out',
  description: 'puts text before every prompt: write it at the start of doc_to_text',
  use_prompt: 'takes a promptsource prompt: write the prompt in doc_to_text',
};

/** Reads a task YAML's text; `file` is where it is (relative paths in it are from its folder). Pure. */
export function readLmevalTask(
  text: string,
  file: string,
  exists: (p: string) => boolean,
): { ok: true; task: LmevalTask } | Refused {
  const refuse = (message: string): Refused => ({ ok: false, message: `lmeval:${file}: ${message}` });
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error !== undefined)
    return refuse(`not valid YAML: ${error.message.split('\n')[0]!.replace(/:\s*$/, '')}.`);
  const tagged = customTag(doc);
  if (tagged !== null)
    return refuse(`${tagged} uses a custom YAML tag, which ${PYTHON} (or a {{field}} template).`);
  if (!isMap(doc.contents))
    return refuse('a task file is a YAML map of keys such as task, dataset_path, doc_to_text.');
  const y = doc.toJS() as Record<string, unknown>;
  const unread = unreadKey(y);
  if (unread !== null) return refuse(unread);
  const source = readSource(y, path.dirname(file), exists);
  if (!source.ok) return refuse(source.message);
  if (typeof y.doc_to_text !== 'string')
    return refuse('doc_to_text, the prompt of each row, is missing or not text.');
  const prompt = promptTemplate(y.doc_to_text);
  if (!prompt.ok) return refuse(`doc_to_text: ${prompt.message}`);
  if (typeof y.doc_to_target !== 'string')
    return refuse(
      'doc_to_target, the field with the gold answer ("{{answer}}" or answer), is missing or not text.',
    );
  const target = targetField(y.doc_to_target);
  if (!target.ok) return refuse(`doc_to_target: ${target.message}`);
  const metric = readMetric(y.metric_list);
  if (!metric.ok) return refuse(`metric_list: ${metric.message}`);
  const filter = readFilter(y.filter_list);
  if (!filter.ok) return refuse(`filter_list: ${filter.message}`);
  const fewShot = y.num_fewshot ?? 0;
  if (typeof fewShot !== 'number' || !Number.isInteger(fewShot) || fewShot < 0 || fewShot > 64)
    return refuse(`num_fewshot ${JSON.stringify(fewShot)} is not a whole number from 0 to 64.`);
  const options: DatasetOptions = {
    promptTemplate: prompt.template,
    answerField: target.field,
    metric: 'exact',
    ...(metric.caseSensitive ? { caseSensitive: true } : {}),
    ...(filter.pattern === null ? {} : { answerPattern: filter.pattern }),
    ...(fewShot > 0 ? { fewShot } : {}),
  };
  return {
    ok: true,
    task: { task: typeof y.task === 'string' ? y.task : undefined, source: source.source, options },
  };
}

/** The first node with a custom YAML tag, as `"key: !tag ..."`, or null. */
function customTag(doc: ReturnType<typeof parseDocument>): string | null {
  let tagged: string | null = null;
  visit(doc, (key, node, ancestors) => {
    if (
      tagged !== null ||
      !isNode(node) ||
      node.tag === undefined ||
      node.tag.startsWith('tag:yaml.org,2002:')
    )
      return;
    const pair = [...ancestors].reverse().find((a) => 'key' in (a as object) && 'value' in (a as object));
    const name = pair === undefined ? String(key) : String((pair as { key: unknown }).key);
    tagged = `"${name}: ${node.tag} ..."`;
  });
  return tagged;
}

/** Why a key of the task, or its value, is not read here (log-probability scoring, other delimiters); null. */
function unreadKey(y: Record<string, unknown>): string | null {
  for (const key of Object.keys(y)) {
    if (IGNORED.includes(key) || HANDLED.includes(key)) continue;
    const why = REFUSED_KEYS[key];
    return why === undefined
      ? `"${key}" is not read here (offline, generate_until tasks only): leave it out.`
      : `"${key}" ${why}.`;
  }
  const output = y.output_type ?? 'generate_until';
  if (output !== 'generate_until')
    return `output_type ${String(output)} scores the model's log-probabilities, which agents here do not give: use generate_until (with a regex filter for the answer), or dataset:FILE with --metric choice.`;
  for (const [key, want] of [
    ['target_delimiter', ' '],
    ['fewshot_delimiter', '\n\n'],
    ['repeats', 1],
  ] as const)
    if (y[key] !== undefined && y[key] !== want)
      return `${key} ${JSON.stringify(y[key])} is not read here (only ${JSON.stringify(want)}): leave it out.`;
  return null;
}

/** `{{field}}` and `{{ a.b }}` as the `{field}` placeholders of a prompt template; anything else of Jinja is refused. */
export function promptTemplate(text: string): { ok: true; template: string } | Refused {
  if (FIELD.test(text.trim())) return { ok: true, template: `{${text.trim()}}` };
  const block = /\{%.*?%\}|\{#.*?#\}/s.exec(text);
  if (block !== null)
    return {
      ok: false,
      message: `the Jinja block ${block[0].slice(0, 40)} is not read here: only {{field}} placeholders are; preprocess the rows so a field holds the text.`,
    };
  let out = '';
  let at = 0;
  for (const m of text.matchAll(/\{\{(.*?)\}\}/gs)) {
    const inner = m[1]!.trim();
    if (!FIELD.test(inner)) {
      const what = inner.includes('|') ? `the filter "|${inner.split('|')[1]!.trim()}"` : 'an expression';
      return {
        ok: false,
        message: `{{${m[1]}}} uses ${what}, which is not read here: only {{field}} and {{field.sub}} are; preprocess the rows so a field holds the text.`,
      };
    }
    out += `${escapeBraces(text.slice(at, m.index))}{${inner}}`;
    at = m.index + m[0].length;
  }
  out += escapeBraces(text.slice(at));
  return { ok: true, template: out };
}

const escapeBraces = (s: string) => s.replace(/[{}]/g, (b) => b + b);

function targetField(text: string): { ok: true; field: string } | Refused {
  const m = /^\s*(?:\{\{\s*(.*?)\s*\}\}|(.*?))\s*$/s.exec(text)!;
  const field = m[1] ?? m[2] ?? '';
  if (FIELD.test(field)) return { ok: true, field };
  return {
    ok: false,
    message: `"${text}" is not one field: the gold answer here is one field, "{{answer}}" or answer (preprocess the rows so a field holds it).`,
  };
}

/** The task's splits by the names its file gives them (`test_split: test`, ...); a test split is required. */
function namedSplits(y: Record<string, unknown>): { ok: true; named: Record<string, Split> } | Refused {
  const roles: [string, Split][] = [
    ['test_split', 'test'],
    ['validation_split', 'val'],
    ['training_split', 'train'],
  ];
  const named: Record<string, Split> = {};
  for (const [key, split] of roles) {
    const value = y[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') return { ok: false, message: `${key} is not a split name.` };
    if (value in named)
      return { ok: false, message: `${key} names "${value}", which another split names too.` };
    named[value] = split;
  }
  if (!Object.values(named).includes('test'))
    return {
      ok: false,
      message: 'test_split is missing: name the split whose rows are the tasks (test_split: test).',
    };
  return { ok: true, named };
}

function readSource(
  y: Record<string, unknown>,
  dir: string,
  exists: (p: string) => boolean,
): { ok: true; source: LmevalSource } | Refused {
  const where = y.dataset_path;
  if (typeof where !== 'string' || where === '')
    return {
      ok: false,
      message:
        'dataset_path is missing: name a local file or folder, or json/csv/parquet with dataset_kwargs.data_files.',
    };
  const kwargs = (y.dataset_kwargs ?? {}) as Record<string, unknown>;
  if (typeof kwargs !== 'object' || Array.isArray(kwargs))
    return { ok: false, message: 'dataset_kwargs is not a map.' };
  const other = Object.keys(kwargs).find((k) => k !== 'data_files');
  if (other !== undefined)
    return { ok: false, message: `dataset_kwargs.${other} is not read here: only data_files is.` };
  const splits = namedSplits(y);
  if (!splits.ok) return splits;
  const { named } = splits;
  const dataset = y.dataset_name;
  const local = path.resolve(dir, where);
  if (BUILDERS.includes(where)) {
    const files = kwargs.data_files;
    if (typeof files === 'string')
      return { ok: true, source: { kind: 'file', file: path.resolve(dir, files) } };
    if (typeof files !== 'object' || files === null || Array.isArray(files))
      return {
        ok: false,
        message: `dataset_path ${where} needs dataset_kwargs.data_files: a file, or a map of split name to file.`,
      };
    const out: { file: string; split: Split }[] = [];
    for (const [name, split] of Object.entries(named)) {
      const file = (files as Record<string, unknown>)[name];
      if (typeof file !== 'string')
        return {
          ok: false,
          message: `dataset_kwargs.data_files has no file for split "${name}" (it has ${Object.keys(files).join(', ')}).`,
        };
      out.push({ file: path.resolve(dir, file), split });
    }
    return { ok: true, source: { kind: 'files', files: out } };
  }
  if (kwargs.data_files !== undefined)
    return {
      ok: false,
      message: `dataset_kwargs.data_files goes with dataset_path json, csv or parquet, not ${where}.`,
    };
  if (!exists(local) && /^[\w.-]+(?:\/[\w.-]+)?$/.test(where) && !where.startsWith('.'))
    return {
      ok: false,
      message: `dataset_path ${where} names a Hugging Face Hub dataset, which is not downloaded here: download it (huggingface-cli download --repo-type dataset ${where} --local-dir DIR) and set dataset_path to that folder (./DIR), relative to this file.`,
    };
  if (typeof dataset === 'string') {
    return { ok: true, source: { kind: 'folder', dir: path.join(local, dataset), splits: named } };
  }
  if (dataset !== undefined && dataset !== null) return { ok: false, message: 'dataset_name is not text.' };
  return {
    ok: true,
    source: /\.[a-z]+(\.gz)?$/i.test(where)
      ? { kind: 'file', file: local }
      : { kind: 'folder', dir: local, splits: named },
  };
}

/**
 * The one `exact_match` metric and its options. As in lm-eval, case counts unless `ignore_case: true`; spacing
 * at the ends and between words is ignored here.
 */
function readMetric(list: unknown): { ok: true; caseSensitive: boolean } | Refused {
  if (list === undefined || list === null) return { ok: true, caseSensitive: true };
  if (!Array.isArray(list) || list.length !== 1)
    return { ok: false, message: 'give one metric, exact_match (others are not computed here).' };
  const m = list[0] as Record<string, unknown>;
  if (m?.metric !== 'exact_match')
    return {
      ok: false,
      message: `metric ${JSON.stringify(m?.metric)} is not computed here: use exact_match.`,
    };
  for (const key of Object.keys(m)) {
    const value = m[key];
    if (key === 'metric') continue;
    if (key === 'aggregation' && value === 'mean') continue;
    if (key === 'higher_is_better' && value === true) continue;
    if (key === 'ignore_case' && typeof value === 'boolean') continue;
    if (key === 'ignore_punctuation' && value === false) continue;
    const hint =
      key === 'ignore_case'
        ? 'it is true or false'
        : key === 'ignore_punctuation'
          ? 'punctuation is compared here: set ignore_punctuation: false, and take the answer out with a regex filter'
          : key === 'regexes_to_ignore'
            ? 'take the answer out with a regex filter instead'
            : 'leave it out';
    return { ok: false, message: `${key}: ${JSON.stringify(value)} is not read here: ${hint}.` };
  }
  return { ok: true, caseSensitive: m.ignore_case !== true };
}

/** One filter pipeline: `regex` then `take_first` is the answer pattern; `take_first` alone is none. */
function readFilter(list: unknown): { ok: true; pattern: string | null } | Refused {
  if (list === undefined || list === null) return { ok: true, pattern: null };
  if (!Array.isArray(list) || list.length !== 1)
    return {
      ok: false,
      message: 'give one filter pipeline (a regex filter, then take_first): keep the one to grade by.',
    };
  const steps = (list[0] as Record<string, unknown>)?.filter;
  if (!Array.isArray(steps)) return { ok: false, message: 'the pipeline has no filter list.' };
  const fns = steps.map((s) => String((s as Record<string, unknown>)?.function));
  if (fns.join(',') === 'take_first') return { ok: true, pattern: null };
  if (fns.join(',') !== 'regex,take_first')
    return {
      ok: false,
      message: `the filters ${fns.join(', ')} are not read here: only regex followed by take_first is.`,
    };
  const regex = steps[0] as Record<string, unknown>;
  const given = regex.regex_pattern ?? '#### (\\-?[0-9\\.\\,]+)';
  if (typeof given !== 'string') return { ok: false, message: 'regex_pattern is not text.' };
  let source = given.replace(/\(\?P</g, '(?<');
  let groups: number;
  try {
    groups = new RegExp(`${source}|`).exec('')!.length - 1;
  } catch (error) {
    return {
      ok: false,
      message: `regex_pattern ${source} is not a regular expression here: ${(error as Error).message}.`,
    };
  }
  if (groups === 0) source = `(${source})`;
  else if (groups > 1)
    return {
      ok: false,
      message: `regex_pattern ${source} has ${groups} groups: keep one around the answer.`,
    };
  const select = regex.group_select ?? 0;
  if (select === 0) return { ok: true, pattern: source };
  if (select === -1) return { ok: true, pattern: `[\\s\\S]*(?:${source})` };
  return {
    ok: false,
    message: `group_select ${JSON.stringify(select)} is not read here: use 0 (the first match) or -1 (the last).`,
  };
}
