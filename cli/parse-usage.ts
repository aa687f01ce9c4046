import type { Argv } from 'yargs';
import { UsageError } from './usage-error.ts';

/**
 * Parses with yargs, turning its complaints (unknown option, missing value) into a UsageError that ends
 * with where to look: `Run <command> --help for the options.`
 */
export async function parseOrExplain<T>(parser: Argv<T>, command: string) {
  try {
    return await parser
      .fail((message: string) => {
        throw new UsageError(message);
      })
      .parseAsync();
  } catch (error) {
    if (error instanceof UsageError) {
      const sentence = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
      throw new UsageError(`${sentence} Run ${command} --help for the options.`);
    }
    throw error;
  }
}
