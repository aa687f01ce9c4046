import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { METRICS, parseTolerance } from './metrics.ts';

/**
 * How a dataset's fields map to tasks. From flags, or from a sidecar `<stem>.domain.json` beside the
 * file; a flag wins over the sidecar. Without a header row, fields are named by column number: "1", "2"...
 */
export const DatasetOptions = z
  .object({
    inputFields: z.array(z.string().min(1)).min(1).optional(),
    answerField: z.string().min(1).optional(),
    idField: z.string().min(1).optional(),
    splitField: z.string().min(1).optional(),
    metric: z.enum(METRICS).optional(),
    choices: z.array(z.string().min(1)).min(2).optional(),
    answerPattern: z.string().min(1).optional(),
    /** The numeric metric's tolerance: a number is absolute, "1%" relative. Default: exact for integer gold. */
    tolerance: z
      .union([z.number().nonnegative(), z.string()])
      .refine(
        (t) => parseTolerance(t) !== null,
        'a number (absolute) or a percentage such as "1%" (relative)',
      )
      .optional(),
    /** Fields with the lists of correct and incorrect answers (JSON lists, or text separated by ";"). */
    correctField: z.string().min(1).optional(),
    incorrectField: z.string().min(1).optional(),
    /** The exact metric compares letter case too (lm-eval's exact_match does). Default: case ignored. */
    caseSensitive: z.boolean().optional(),
    /** Whether a CSV's first row names the fields; default: judged by its shape against the rows below. */
    header: z.boolean().optional(),
    /** A prompt for each task: the template's text, or a file holding it, with `{field}` placeholders. */
    promptTemplate: z.string().min(1).optional(),
    /** How many solved train-split examples go before each task's prompt (with a prompt template). */
    fewShot: z.number().int().min(0).max(64).optional(),
    description: z.string().min(1).optional(),
    stagedSamples: z.number().int().min(1).optional(),
  })
  .strict();
export type DatasetOptions = z.infer<typeof DatasetOptions>;

export function sidecarPath(file: string): string {
  const ext = path.extname(file);
  return path.join(path.dirname(file), `${path.basename(file, ext)}.domain.json`);
}

/** The sidecar's options, or none; a sidecar that is not valid is an error with a message for the user. */
export function readSidecar(
  file: string,
): { ok: true; options: DatasetOptions } | { ok: false; message: string } {
  const sidecar = sidecarPath(file);
  if (!existsSync(sidecar)) return { ok: true, options: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(sidecar, 'utf8'));
  } catch (error) {
    return { ok: false, message: `${sidecar} is not valid JSON: ${(error as Error).message}` };
  }
  const parsed = DatasetOptions.safeParse(raw);
  if (parsed.success) return { ok: true, options: parsed.data };
  const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ');
  return { ok: false, message: `${sidecar} has options this version does not accept (${why})` };
}

/** Flags over sidecar, field by field. */
export function mergeOptions(sidecar: DatasetOptions, flags: DatasetOptions): DatasetOptions {
  const out: DatasetOptions = { ...sidecar };
  for (const [key, value] of Object.entries(flags))
    if (value !== undefined) Object.assign(out, { [key]: value });
  return out;
}

/**
 * The options a `dataset:FILE?key=value&...` reference takes, as the command line's dataset flags name
 * them, and the option each sets. Values are URL-decoded (`%26` for "&"); lists are comma-separated.
 */
export const REF_OPTION_KEYS = {
  'input-fields': 'inputFields',
  'answer-field': 'answerField',
  'id-field': 'idField',
  'split-field': 'splitField',
  metric: 'metric',
  choices: 'choices',
  tolerance: 'tolerance',
  'correct-field': 'correctField',
  'incorrect-field': 'incorrectField',
  'answer-pattern': 'answerPattern',
  header: 'header',
  'case-sensitive': 'caseSensitive',
  'prompt-template': 'promptTemplate',
  'few-shot': 'fewShot',
} as const satisfies Record<string, keyof DatasetOptions>;

const LIST_KEYS = new Set(['input-fields', 'choices']);

/** A reference's options as dataset options; a key not accepted or a value not valid is a message. */
export function optionsFromRef(
  pairs: Readonly<Record<string, string>>,
): { ok: true; options: DatasetOptions } | { ok: false; message: string } {
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(pairs)) {
    const name = REF_OPTION_KEYS[key as keyof typeof REF_OPTION_KEYS];
    if (name === undefined)
      return {
        ok: false,
        message: `Unknown option "${key}" (dataset: takes ${Object.keys(REF_OPTION_KEYS).join(', ')}).`,
      };
    raw[name] = LIST_KEYS.has(key)
      ? value
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean)
      : key === 'header' || key === 'case-sensitive'
        ? value === 'true'
          ? true
          : value === 'false'
            ? false
            : value
        : key === 'few-shot' && /^\d+$/.test(value)
          ? Number(value)
          : value;
  }
  const parsed = DatasetOptions.safeParse(raw);
  if (parsed.success) return { ok: true, options: parsed.data };
  const issue = parsed.error.issues[0]!;
  const key =
    Object.entries(REF_OPTION_KEYS).find(([, n]) => n === issue.path[0])?.[0] ?? String(issue.path[0]);
  return { ok: false, message: `Option ${key}=${pairs[key] ?? ''} is not valid: ${issue.message}.` };
}
