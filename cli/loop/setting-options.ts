import type { Options } from 'yargs';
import { fieldValue, OptionTextError, SETTINGS, type Setting, SHORTHANDS } from '../../harness/run/index.ts';
import { modelOptionHelp } from '../models/default-model.ts';
import { UsageError } from '../shared/usage-error.ts';

/** A setting's command-line option, as yargs reads it: the value is checked by the configuration's schema. */
function optionOfSetting(setting: Setting): Options {
  return {
    type: setting.type,
    requiresArg: setting.type !== 'boolean',
    ...(setting.array ? { array: true } : {}),
    ...(setting.default === undefined ? {} : { default: setting.default }),
    describe: setting.describe,
  };
}

/** The options of every run setting (harness/run/settings.ts), and the shorthands that set several. */
export function settingOptions(table: readonly Setting[] = SETTINGS): Record<string, Options> {
  const options: Record<string, Options> = {};
  for (const [name] of Object.entries(SHORTHANDS))
    options[name] = { type: 'string', requiresArg: true, describe: shorthandHelp(name) };
  for (const setting of table) options[setting.option] = optionOfSetting(setting);
  return options;
}

/** A shorthand's help; `--model`'s names an example and the order the default is chosen in. */
export function shorthandHelp(name: string): string {
  return name === 'model' ? modelOptionHelp() : SHORTHANDS[name as keyof typeof SHORTHANDS].describe;
}

/** `--eval-workers` for `evalWorkers`, `--memory-mb` for `limits.memoryMb`: the longest known prefix. */
export function optionOf(path: readonly PropertyKey[]): string {
  for (let n = path.length; n > 0; n--) {
    const field = path.slice(0, n).join('.');
    const setting = SETTINGS.find((s) => s.field === field);
    if (setting !== undefined) return `--${setting.option}`;
  }
  return path.join('.');
}

/**
 * The run configuration as the command line gives it, unchecked: each setting's option read into its field
 * (`limits.memoryMb` into `limits`), `--model` defaulted to `defaultModel`.
 */
export function settingsFromLine(
  parsed: Readonly<Record<string, unknown>>,
  defaultModel: string,
): Record<string, unknown> {
  const line = { ...parsed, model: parsed.model ?? defaultModel };
  const config: Record<string, Record<string, unknown> | unknown> = {};
  for (const setting of SETTINGS as readonly Setting[]) {
    const value = readOption(setting, line);
    const [group, key] = setting.field.split('.') as [string, string | undefined];
    if (key === undefined) config[group] = value;
    else config[group] = { ...(config[group] as Record<string, unknown> | undefined), [key]: value };
  }
  return config;
}

function readOption(setting: Setting, line: Readonly<Record<string, unknown>>): unknown {
  const value = line[setting.option];
  if (setting.read === undefined) return value ?? null;
  try {
    return setting.read(value as never, line);
  } catch (error) {
    if (error instanceof OptionTextError) throw new UsageError(error.message);
    throw error;
  }
}

/** The settings an option sets: its own, or a shorthand's (`--model` sets the model of both roles). */
export function settingsOfOption(option: string): Setting[] {
  const shorthand = SHORTHANDS[option as keyof typeof SHORTHANDS];
  const names: readonly string[] = shorthand === undefined ? [option] : shorthand.sets;
  return (SETTINGS as readonly Setting[]).filter((s) => names.includes(s.option));
}

export { fieldValue };
