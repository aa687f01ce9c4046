import path from 'node:path';
import { controlSecretFile } from '../../archive/index.ts';
import { shellWord } from '../shared/self-command.ts';

/** The address `hyperagents serve` answers on by default. */
const SERVE_URL = 'http://127.0.0.1:8080';

/**
 * How to steer a run that just started, printed by generate-loop: from the terminal with `hyperagents control`,
 * or from its page, whose buttons take the run's secret in the address (or the token `serve` prints).
 */
export function steerLines(runId: string, runDir: string, secret: string): string[] {
  const id = shellWord(runId);
  return [
    `Steer this run with: hyperagents control ${id} pause | resume | stop-after | budget USD | note TEXT`,
    `or from its page: start hyperagents serve --runs ${shellWord(path.dirname(runDir))} and open once ` +
      `${SERVE_URL}/runs/${encodeURIComponent(runId)}#secret=${secret} (the page's buttons need this run's ` +
      `secret, kept in ${shellWord(controlSecretFile(runDir))}; with another --port, change the address).`,
  ];
}
