import type { z } from 'zod';

/**
 * How a setting bears on one task's result:
 * - `{ task: NAME }`: it changes what a task's answer or grade can be (a limit the TaskAgent runs under, what
 *   the grader accepts). It is the field NAME of `TaskSettings`, which goes whole with every task to the
 *   evaluator, the queue and the TaskAgent, and whose hash is part of the result cache's key.
 * - `'keyed'`: it changes results, and the cache keys it in its own column (the task model, the seed; the
 *   domains' tasks are keyed by their content).
 * - `'none'`: it decides which tasks run, how many, when, or what is done with the results, never what one
 *   task's result is.
 */
export type SettingResult = { task: string } | 'keyed' | 'none';

/**
 * One run setting, declared once: the command-line option, where its value lives in the run configuration,
 * the schema that checks it (and gives a run stored before the setting existed its value), its default for a
 * new run, its help, whether a resumed run may change it, and whether it changes a task's result. The
 * command-line options, the configuration schema, the resume check, `TaskSettings`, the help and
 * docs/options.md are all made from the table of these (settings.ts).
 */
export interface Setting {
  /** The long option, without dashes. */
  option: string;
  /** Where the value lives in the run configuration: `taskTimeoutSec`, or one level down, `limits.memoryMb`. */
  field: string;
  schema: z.ZodType;
  /** How the option reads on the command line; `array` options may be repeated. */
  type: 'number' | 'string' | 'boolean';
  array?: true;
  /** A new run's value when the option is not given; absent: none (the configuration holds null). */
  default?: number | string | boolean;
  describe: string;
  /** `'keep'`: a resumed run keeps its stored value, and a different one is refused; `'may-change'`: taken. */
  resume: 'keep' | 'may-change';
  result: SettingResult;
  /**
   * The configuration value from the option's value (absent on the command line: `undefined`) and the whole
   * parsed command line; by default the value itself, `null` when absent. Throws a UsageError for text it
   * cannot read.
   */
  read?: (value: never, parsed: Readonly<Record<string, unknown>>) => unknown;
}

/** The settings whose field is at the top of the configuration (no dot). */
type TopFields<T extends readonly Setting[]> = {
  [S in T[number] as S['field'] extends `${string}.${string}` ? never : S['field']]: S['schema'];
};

/** The settings whose field is in the group `G` (`limits.memoryMb` is `memoryMb` of `limits`). */
type GroupFields<T extends readonly Setting[], G extends string> = {
  [S in T[number] as S['field'] extends `${G}.${infer K}` ? K : never]: S['schema'];
};

/** The fields of `TaskSettings`: each setting that changes a task's result, by its task name. */
export type TaskFields<T extends readonly Setting[]> = {
  [S in T[number] as S['result'] extends { task: infer K extends string } ? K : never]: z.output<S['schema']>;
};

/** The zod shape of the top-level fields of `table`. */
export function topFields<const T extends readonly Setting[]>(table: T): TopFields<T> {
  const shape = table.filter((s) => !s.field.includes('.')).map((s) => [s.field, s.schema]);
  return Object.fromEntries(shape) as TopFields<T>;
}

/** The zod shape of the fields of `table` in `group`. */
export function groupFields<const T extends readonly Setting[], const G extends string>(
  table: T,
  group: G,
): GroupFields<T, G> {
  const prefix = `${group}.`;
  const shape = table
    .filter((s) => s.field.startsWith(prefix))
    .map((s) => [s.field.slice(prefix.length), s.schema]);
  return Object.fromEntries(shape) as GroupFields<T, G>;
}

/** The value at a setting's field of a configuration. */
export function fieldValue(config: unknown, field: string): unknown {
  let value = config;
  for (const key of field.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[key];
  return value;
}

/** The settings of `table` that change a task's result, from a configuration: `TaskSettings`. */
export function taskFields<const T extends readonly Setting[]>(table: T, config: unknown): TaskFields<T> {
  const fields: [string, unknown][] = [];
  for (const setting of table) {
    if (typeof setting.result === 'object')
      fields.push([setting.result.task, fieldValue(config, setting.field)]);
  }
  return Object.fromEntries(fields) as TaskFields<T>;
}

/** An option's text that does not read as its setting; the message names the option and what to give. */
export class OptionTextError extends Error {}
