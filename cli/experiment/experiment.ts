import { EXPERIMENT_USAGE, parseExperimentArgs } from './experiment-args.ts';

/**
 * `hyperagents experiment ...`. Returns the exit code: 1 when a run failed or is missing. Its arguments and
 * help are read here; the runs, the archive and the tables are loaded only to do the work.
 */
export async function experimentCommand(argv: string[]): Promise<number> {
  const args = parseExperimentArgs(argv);
  if (args.kind === 'help') {
    process.stdout.write(`${EXPERIMENT_USAGE}\n`);
    return 0;
  }
  return (await import('./experiment-run.ts')).runExperiment(args);
}
