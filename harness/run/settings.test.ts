import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskSettingsHash } from '../evaluation/index.ts';
import { defaultTaskSettings, type RunConfig, RunConfigSchema, taskSettingsOf } from './run-config.ts';
import { fieldValue, type Setting } from './setting.ts';
import { SETTINGS } from './settings.ts';

const table = SETTINGS as readonly Setting[];

/** A configuration as a new run with every default would have it. */
function defaults(): RunConfig {
  const input: Record<string, Record<string, unknown> | unknown> = { dataset: {}, from: null };
  for (const s of table) {
    const [group, key] = s.field.split('.') as [string, string | undefined];
    const value = s.default ?? (s.field === 'domains' ? ['arithmetic'] : s.type === 'string' ? null : null);
    if (key === undefined) input[group] = value;
    else input[group] = { ...(input[group] as object), [key]: value };
  }
  return RunConfigSchema.parse({
    ...input,
    metaModel: 'sim',
    taskModel: 'sim',
    sim: { ...(input.sim as object), faults: [] },
  });
}

/** Another valid value for a setting: a number one up (or down, at a maximum), the other boolean or choice. */
function another(setting: Setting, value: unknown): unknown {
  if (typeof value === 'number') {
    const up = value + 1;
    return setting.schema.safeParse(up).success ? up : value - 1;
  }
  if (typeof value === 'boolean') return !value;
  const choices = ['auto', 'none', 'bwrap', 'default', 'inert', 'sequential'].filter((c) => c !== value);
  return choices.find((c) => setting.schema.safeParse(c).success);
}

function withValue(config: RunConfig, field: string, value: unknown): RunConfig {
  const [group, key] = field.split('.') as [keyof RunConfig, string | undefined];
  if (key === undefined) return { ...config, [group]: value };
  return { ...config, [group]: { ...(config[group] as object), [key]: value } };
}

describe('the table of run settings', () => {
  it('names each option and each field once', () => {
    expect(new Set(table.map((s) => s.option)).size).toBe(table.length);
    expect(new Set(table.map((s) => s.field)).size).toBe(table.length);
  });

  it('gives each default a value its own schema accepts', () => {
    for (const s of table.filter((s) => s.default !== undefined))
      expect(s.schema.safeParse(s.default).success, s.option).toBe(true);
  });

  it('makes the configuration schema: every field of a parsed configuration is a setting, or dataset and from', () => {
    const config = defaults();
    const fields = Object.entries(config).flatMap(([k, v]) =>
      ['limits', 'workspace', 'sim'].includes(k) ? Object.keys(v as object).map((n) => `${k}.${n}`) : [k],
    );
    expect(fields.sort()).toEqual([...table.map((s) => s.field), 'dataset', 'from'].sort());
  });

  it.each(table.filter((s) => typeof s.result === 'object').map((s) => [s.option, s] as const))(
    'puts --%s, which changes a task result, in TaskSettings and in the cache key',
    (_option, setting) => {
      const config = defaults();
      const before = taskSettingsOf(config);
      const value = another(setting, fieldValue(config, setting.field));
      expect(value, setting.option).not.toBeUndefined();
      const after = taskSettingsOf(withValue(config, setting.field, value));
      expect(taskSettingsHash(after)).not.toBe(taskSettingsHash(before));
    },
  );

  it.each(table.filter((s) => typeof s.result !== 'object').map((s) => [s.option, s] as const))(
    'leaves --%s, which changes no task result by itself, out of the cache key',
    (_option, setting) => {
      const config = defaults();
      const value = another(setting, fieldValue(config, setting.field));
      if (value === undefined) return;
      expect(taskSettingsOf(withValue(config, setting.field, value))).toEqual(taskSettingsOf(config));
    },
  );

  it('gives a new run with no options the defaults of the table as its task settings', () => {
    expect(taskSettingsOf(defaults())).toEqual(defaultTaskSettings());
  });

  it('keeps the code that runs tasks off the run configuration: task settings reach it whole', () => {
    // The evaluation gets the task settings from its caller; were it to read a setting off the run's
    // configuration, a setting could change results without being in the cache key.
    const root = path.resolve(import.meta.dirname, '..', '..');
    const files = [
      'evaluate.ts',
      'evaluate-task.ts',
      'task-workers.ts',
      'grading.ts',
      'task-settings.ts',
      'grade-context.ts',
    ];
    for (const file of files) {
      const text = readFileSync(path.join(root, 'harness', 'evaluation', file), 'utf8');
      expect(text, file).not.toMatch(/\bconfig\.(?!ts\b)\w/);
    }
  });
});
