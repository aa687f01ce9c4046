import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGatewayModel, gatewayFromEnv } from '../core/gateway-client.ts';
import type { ModelFn } from '../core/messages.ts';
import { handleRequestLine } from './task-agent.ts';

/**
 * TaskAgent worker: JSON-lines requests on stdin, exactly one JSON-lines response per request on stdout.
 * Each request is handled as it arrives (the harness sends a worker up to `--tasks-per-worker` at once) and
 * answered when it finishes, so responses may come in another order than the requests; the id tells them
 * apart. stdout carries only those lines; logs go to stderr. `--check` loads everything and exits 0.
 */
if (process.argv.includes('--check')) process.exit(0);

const log = (message: string) => process.stderr.write(`[task-agent] ${message}\n`);

function gatewayModel(): ModelFn {
  try {
    return createGatewayModel(gatewayFromEnv());
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(message);
    return async () => ({ ok: false, error: { type: 'internal', message, retryable: false } });
  }
}

const config = {
  model: gatewayModel(),
  prompt: readFileSync(new URL('./prompt.md', import.meta.url), 'utf8'),
};
process.stdout.on('error', () => process.exit(0));

for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
  if (line.trim() === '') continue;
  void answer(line);
}

async function answer(line: string): Promise<void> {
  const started = Date.now();
  const response = await handleRequestLine(line, config);
  process.stdout.write(`${JSON.stringify(response)}\n`);
  log(
    `${response.id}: ${response.error ? `error: ${response.error}` : 'answered'} in ${Date.now() - started} ms`,
  );
}
