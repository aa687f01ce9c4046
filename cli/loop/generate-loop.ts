import { HARNESS_VERSION } from '../../harness/run/index.ts';
import { asksFor } from '../shared/help-first.ts';
import { QUEUE_HELP } from '../shared/queue-flags.ts';
import { loopHelp } from './loop-args.ts';

/**
 * generate-loop. Its help and version are answered here, from the options' table alone; the run (the
 * archive, the harness, the queue's client) is loaded only for a run.
 */
export async function main(argv: string[]): Promise<number> {
  if (asksFor(argv, 'version')) {
    process.stdout.write(`${HARNESS_VERSION}\n`);
    return 0;
  }
  if (asksFor(argv, 'help')) {
    process.stdout.write(`${await loopHelp()}\n\n${QUEUE_HELP}\n`);
    return 0;
  }
  return (await import('./generate-loop-run.ts')).runLoop(argv);
}
