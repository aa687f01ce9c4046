import type { Argv } from 'yargs';
import { UsageError } from './usage-error.ts';

/** Help text wraps at 80 columns (fewer on a narrower terminal), the same for every command. */
export function helpWidth(): number {
  return Math.min(80, process.stdout.columns || 80);
}

/** A number option given an empty value (`--n ''`, `--n=`), which yargs would read as 0; null when none is. */
export function blankNumberOption(argv: readonly string[], numberOptions: readonly string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (!word.startsWith('--')) continue;
    const eq = word.indexOf('=');
    const name = word.slice(2, eq < 0 ? undefined : eq);
    if (!numberOptions.includes(name)) continue;
    const value = eq < 0 ? argv[i + 1] : word.slice(eq + 1);
    if (value !== undefined && value.trim() === '') return name;
  }
  return null;
}

/**
 * Parses `argv` with yargs, turning its complaints (unknown option, missing value) into a UsageError that
 * ends with where to look: `Run <command> --help for the options.` A number option given an empty value is
 * refused too (yargs would read it as 0). Help wraps at helpWidth().
 */
export async function parseOrExplain<T>(parser: Argv<T>, command: string, argv: readonly string[]) {
  const explain = (message: string): UsageError => {
    const sentence = /[.!?]$/.test(message) ? message : `${message}.`;
    return new UsageError(`${sentence} Run ${command} --help for the options.`);
  };
  const options = (parser as unknown as { getOptions(): { number: string[]; array: string[] } }).getOptions();
  const blank = blankNumberOption(argv, options.number);
  if (blank !== null && !argv.includes('--help') && !argv.includes('-h')) {
    throw explain(`--${blank} was given an empty value: give a number`);
  }
  const parse = async () => {
    try {
      return await parser
        .wrap(helpWidth())
        .fail((message: string) => {
          throw new UsageError(message);
        })
        .parseAsync();
    } catch (error) {
      if (error instanceof UsageError) throw explain(error.message);
      throw error;
    }
  };
  const parsed = await parse();
  const repeated = repeatedOption(parsed as Record<string, unknown>, options.array);
  if (repeated !== null) {
    throw explain(
      `--${repeated.name} was given ${repeated.values.length} times (${repeated.values.join(', ')}): give it once`,
    );
  }
  return parsed;
}

/**
 * An option given more than once that takes one value (yargs gathers the values into an array, which the
 * command would then misread); null when there is none. Options declared as arrays may repeat.
 */
export function repeatedOption(
  parsed: Record<string, unknown>,
  arrays: readonly string[],
): { name: string; values: string[] } | null {
  for (const [name, value] of Object.entries(parsed)) {
    if (name === '_' || name === '$0' || !Array.isArray(value) || arrays.includes(name)) continue;
    // yargs keeps each dashed option under its camelCase name too: report the name the user typed.
    if (/[A-Z]/.test(name) && `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` in parsed) continue;
    return { name, values: value.map(String) };
  }
  return null;
}
