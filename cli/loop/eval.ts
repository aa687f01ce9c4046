import { asksFor } from '../shared/help-first.ts';
import { builder } from './eval-args.ts';

/**
 * `hyperagents eval RUN:VARIANT --domains d [--split test]`. Its help is answered from its options alone;
 * the archive, the harness and the domains are loaded only to evaluate.
 */
export async function evalCommand(argv: string[]): Promise<number> {
  if (asksFor(argv, 'help')) {
    process.stdout.write(`${await builder([]).getHelp()}\n`);
    return 0;
  }
  return (await import('./eval-run.ts')).runEval(argv);
}
