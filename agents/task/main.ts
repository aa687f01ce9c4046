import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGatewayModel, gatewayFromEnv, listModels } from '../core/gateway-client.ts';
import type { ToolProtocol } from '../core/loop.ts';
import type { ModelFn } from '../core/messages.ts';
import { createBashTool } from '../tools/bash.ts';
import { createEditorTool } from '../tools/editor.ts';
import { chooseProtocol, handleRequestLine } from './task-agent.ts';

/**
 * TaskAgent worker: JSON-lines requests on stdin, exactly one JSON-lines response per request on stdout.
 * Each request is handled as it arrives (the harness sends a worker up to `--tasks-per-worker` at once) and
 * answered when it finishes, so responses may come in another order than the requests; the id tells them
 * apart. stdout carries only those lines; logs go to stderr. `--check` loads everything and exits 0.
 * A request with `workspace` is worked on in that folder with a fresh bash and editor confined to it. The
 * tools are imported here, not discovered from agents/tools/ at run time: the harness runs the TaskAgent
 * as one bundle, which holds only what is imported (to give it another tool, import it here).
 */
if (process.argv.includes('--check')) process.exit(0);

const log = (message: string) => process.stderr.write(`[task-agent] ${message}\n`);

/** The gateway's model, its calls naming `task` when given (so the harness counts them in that task's cost). */
function gatewayModel(task?: { id: string; domain: string }): ModelFn {
  try {
    return createGatewayModel({ ...gatewayFromEnv(), ...(task === undefined ? {} : { task }) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(message);
    return async () => ({ ok: false, error: { type: 'internal', message, retryable: false } });
  }
}

/** Asked of the gateway once, when the first workspace task comes (JSON tasks need no protocol). */
let protocol: Promise<ToolProtocol> | undefined;
function toolProtocol(): Promise<ToolProtocol> {
  protocol ??= (async () => {
    const models = await Promise.resolve()
      .then(() => listModels(gatewayFromEnv()))
      .catch(() => undefined);
    const chosen = chooseProtocol(process.env.HYPERAGENTS_TOOL_PROTOCOL, models?.ok ? models.models : []);
    log(`workspace tasks use the ${chosen} tool protocol`);
    return chosen;
  })();
  return protocol;
}

const config = {
  model: gatewayModel(),
  modelFor: (task: { id: string; domain: string }) => gatewayModel(task),
  prompt: readFileSync(new URL('./prompt.md', import.meta.url), 'utf8'),
  workspacePrompt: readFileSync(new URL('./workspace-prompt.md', import.meta.url), 'utf8'),
  tools: async (root: string) => [createBashTool({ cwd: root }), createEditorTool({ root })],
  protocol: toolProtocol,
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
