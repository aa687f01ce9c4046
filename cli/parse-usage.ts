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
  const numbers = (parser as unknown as { getOptions(): { number: string[] } }).getOptions().number;
  const blank = blankNumberOption(argv, numbers);
  if (blank !== null && !argv.includes('--help') && !argv.includes('-h')) {
    throw explain(`--${blank} was given an empty value: give a number`);
  }
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
}
