import type { z } from 'zod';
import { UsageError } from '../shared/usage-error.ts';

/** A value as a message quotes it: `not 0`, `not "abc"`, `not something that is not a number`. */
function quoted(value: unknown): string {
  if (typeof value === 'number')
    return Number.isNaN(value) ? 'something that is not a number' : String(value);
  if (value === undefined) return 'nothing';
  return JSON.stringify(value);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = (value as Record<PropertyKey, unknown> | null | undefined)?.[key];
  return value;
}

/**
 * The run configuration's first complaint as the user meets it: the option that set the value, the schema's
 * message (what the value must be, and why) and the value given, e.g. `--task-timeout must be a whole number
 * of seconds from 1 to 2147483 (…), not 1000000000.` A rule the schema states as a whole sentence follows the
 * option's name as it is (`form: 'sentence'`, with `{other}` the option of the other field it names), and a
 * reference it could not read follows the option's name and a colon (`form: 'labelled'`).
 */
export function configUsageError(
  issue: z.core.$ZodIssue,
  input: unknown,
  optionOf: (path: readonly PropertyKey[]) => string,
): UsageError {
  const option = optionOf(issue.path);
  const params = issue.code === 'custom' ? (issue.params ?? {}) : {};
  if (params.form === 'labelled') return new UsageError(`${option}: ${issue.message}`);
  if (params.form === 'sentence') {
    const other = Array.isArray(params.other) ? optionOf(params.other as PropertyKey[]) : '';
    return new UsageError(`${option} ${issue.message.replace('{other}', other)}`);
  }
  return new UsageError(`${option} ${issue.message}, not ${quoted(valueAt(input, issue.path))}.`);
}

/** Checks one option's value against the field of the run configuration it sets; the value, or a UsageError. */
export function checkOption<T>(option: string, field: z.ZodType<T>, value: unknown): T {
  const checked = field.safeParse(value);
  if (!checked.success) throw configUsageError(checked.error.issues[0]!, value, () => option);
  return checked.data;
}
