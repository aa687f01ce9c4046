import yargs from 'yargs';
import { ALL_SPLITS, DOMAIN_REF_HELP } from '../../domains/index.ts';
import { helpWidth } from '../shared/parse-usage.ts';
import { RUNS_OPTION } from '../shared/run-ref.ts';

export const EVAL_USAGE = `hyperagents eval <run>:<variant> --domains <name[,name...]> [--split test]
    [options]

Evaluates one stored variant of a run (its TaskAgent, at its commit) on a split
of each domain, with the run's task model and seed, and writes the results into
that run's archive. The test split is never shown to agents; this is how to
measure it. The variant's selection score is not changed.`;

/** The options of `hyperagents eval`, as yargs reads them. */
export function builder(argv: string[]) {
  return yargs(argv)
    .scriptName('hyperagents eval')
    .usage(EVAL_USAGE)
    .option('domains', {
      type: 'string',
      requiresArg: true,
      array: true,
      describe: `domains, comma-separated: ${DOMAIN_REF_HELP}`,
    })
    .option('split', { type: 'string', requiresArg: true, default: 'test', describe: ALL_SPLITS.join(' | ') })
    .option('runs', RUNS_OPTION)
    .option('eval-samples', {
      type: 'number',
      requiresArg: true,
      describe: 'tasks per domain at most (default: all)',
    })
    .option('eval-workers', {
      type: 'number',
      requiresArg: true,
      default: 8,
      describe: 'TaskAgent processes',
    })
    .option('json', { type: 'boolean', default: false, describe: 'print the scores as one JSON object' })
    .help(false)
    .version(false)
    .option('help', { type: 'boolean', alias: 'h', describe: 'show this help' })
    .strictOptions()
    .exitProcess(false)
    .wrap(helpWidth());
}
