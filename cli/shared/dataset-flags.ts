import type { Argv } from 'yargs';
import type { DomainRef } from '../../domains/index.ts';
import {
  type DatasetOptions,
  METRICS,
  type Metric,
  parseTolerance,
  REF_OPTION_KEYS,
} from '../../domains/index.ts';
import { UsageError } from './usage-error.ts';

/** The flags that map a dataset:FILE's fields, shared by generate-loop and `hyperagents domains test`. */
export function withDatasetFlags<T>(parser: Argv<T>) {
  return parser
    .option('input-fields', {
      type: 'string',
      requiresArg: true,
      describe:
        'dataset:FILE fields shown to the agent, comma-separated (default: every field but id, answer, split, the answer lists, and any field that holds the answer)',
    })
    .option('answer-field', {
      type: 'string',
      requiresArg: true,
      describe: 'dataset:FILE field with the gold answer (default: answer)',
    })
    .option('id-field', {
      type: 'string',
      requiresArg: true,
      describe: 'dataset:FILE field with a task id (default: id, else the line number)',
    })
    .option('split-field', {
      type: 'string',
      requiresArg: true,
      describe:
        'dataset:FILE field saying train, val or test (default: split, else a stable hash of the id, 60/20/20)',
    })
    .option('metric', {
      type: 'string',
      requiresArg: true,
      describe: `dataset:FILE grading: ${METRICS.join(' | ')} (default: exact)`,
    })
    .option('choices', {
      type: 'string',
      requiresArg: true,
      describe:
        "dataset:FILE labels of a choice metric, comma-separated, e.g. A,B,C,D, where rows have no choices of their own (a row's own choices give their labels)",
    })
    .option('tolerance', {
      type: 'string',
      requiresArg: true,
      describe:
        'dataset:FILE numeric tolerance: a number is absolute (0.01), a percentage relative (1%) (default: exact for whole-number gold, else 1e-4%)',
    })
    .option('correct-field', {
      type: 'string',
      requiresArg: true,
      describe: 'dataset:FILE field with more correct answers (a list, or text separated by ";")',
    })
    .option('incorrect-field', {
      type: 'string',
      requiresArg: true,
      describe:
        'dataset:FILE field with incorrect answers (a list, or text separated by ";"): graded against by --metric truthful, and tried as wrong answers',
    })
    .option('prompt-template', {
      type: 'string',
      requiresArg: true,
      describe:
        'dataset:FILE prompt for each task, or a file holding it, with {field} placeholders, e.g. "Question: {question}\\nAnswer:"',
    })
    .option('few-shot', {
      type: 'string',
      requiresArg: true,
      describe:
        'dataset:FILE solved examples from the train split put before each prompt (needs --prompt-template; never the task itself, never val or test rows)',
    })
    .option('case-sensitive', {
      type: 'boolean',
      describe: 'dataset:FILE exact metric compares letter case too (default: case is ignored)',
    })
    .option('answer-pattern', {
      type: 'string',
      requiresArg: true,
      describe:
        'dataset:FILE regular expression with one group that takes the answer out of the answer field, e.g. "#### (.+)$"',
    });
}

export interface DatasetFlagValues {
  'input-fields'?: string | undefined;
  'answer-field'?: string | undefined;
  'id-field'?: string | undefined;
  'split-field'?: string | undefined;
  metric?: string | undefined;
  choices?: string | undefined;
  'answer-pattern'?: string | undefined;
  tolerance?: string | undefined;
  'case-sensitive'?: boolean | undefined;
  'correct-field'?: string | undefined;
  'incorrect-field'?: string | undefined;
  'prompt-template'?: string | undefined;
  'few-shot'?: string | undefined;
}

const list = (value: string): string[] =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** The flags as dataset options; a bad metric or pattern is a UsageError. Sidecar values fill the rest. */
export function datasetFlags(parsed: DatasetFlagValues): DatasetOptions {
  const out: DatasetOptions = {};
  if (parsed['input-fields'] !== undefined) out.inputFields = list(parsed['input-fields']);
  if (parsed['answer-field'] !== undefined) out.answerField = parsed['answer-field'];
  if (parsed['id-field'] !== undefined) out.idField = parsed['id-field'];
  if (parsed['split-field'] !== undefined) out.splitField = parsed['split-field'];
  if (parsed['correct-field'] !== undefined) out.correctField = parsed['correct-field'];
  if (parsed['incorrect-field'] !== undefined) out.incorrectField = parsed['incorrect-field'];
  if (parsed.tolerance !== undefined) {
    if (parseTolerance(parsed.tolerance) === null)
      throw new UsageError(
        `--tolerance is a number (absolute, e.g. 0.01) or a percentage (relative, e.g. 1%), not "${parsed.tolerance}".`,
      );
    out.tolerance = parsed.tolerance;
  }
  if (parsed.metric !== undefined) {
    if (!(METRICS as readonly string[]).includes(parsed.metric)) {
      throw new UsageError(`--metric must be one of ${METRICS.join(', ')}, not "${parsed.metric}".`);
    }
    out.metric = parsed.metric as Metric;
  }
  if (parsed.choices !== undefined) {
    const labels = list(parsed.choices);
    if (labels.length < 2)
      throw new UsageError(
        `--choices needs at least two labels, comma-separated (e.g. A,B,C,D), not "${parsed.choices}".`,
      );
    out.choices = labels;
  }
  if (parsed['case-sensitive'] !== undefined) out.caseSensitive = parsed['case-sensitive'];
  if (parsed['prompt-template'] !== undefined) out.promptTemplate = parsed['prompt-template'];
  if (parsed['few-shot'] !== undefined) {
    if (!/^\d+$/.test(parsed['few-shot']) || Number(parsed['few-shot']) > 64)
      throw new UsageError(`--few-shot is a number of examples from 0 to 64, not "${parsed['few-shot']}".`);
    out.fewShot = Number(parsed['few-shot']);
  }
  if (parsed['answer-pattern'] !== undefined) {
    try {
      new RegExp(parsed['answer-pattern']);
    } catch (error) {
      throw new UsageError(`--answer-pattern is not a regular expression: ${(error as Error).message}.`);
    }
    out.answerPattern = parsed['answer-pattern'];
  }
  return out;
}

/**
 * What to say when dataset flags were given but no domain would read them: they apply to `dataset:FILE`
 * references without options of their own, since `dataset:FILE?key=value` and `lmeval:FILE` carry theirs.
 * Null when every flag is read (or none was given).
 */
export function unreadDatasetFlags(refs: readonly DomainRef[], flags: DatasetOptions): string | null {
  const given = Object.entries(REF_OPTION_KEYS)
    .filter(([, option]) => flags[option] !== undefined)
    .map(([flag]) => `--${flag}`);
  if (given.length === 0 || refs.some((r) => r.kind === 'dataset' && r.options === undefined)) return null;
  const what = `${given.join(', ')} ${given.length === 1 ? 'applies' : 'apply'} to dataset:FILE domains`;
  const instead = refs.some((r) => r.kind === 'lmeval')
    ? 'An lmeval:FILE task takes its fields, metric and filters from its YAML: change them there.'
    : refs.some((r) => r.kind === 'dataset')
      ? 'A dataset:FILE?key=value reference takes its options from the reference: add them there.'
      : `Leave ${given.length === 1 ? 'it' : 'them'} out, or name a dataset:FILE.`;
  return `${what}, and no domain here reads ${given.length === 1 ? 'it' : 'them'}. ${instead}`;
}
