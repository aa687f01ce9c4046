import { statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createGatewayModel,
  type GatewayConfig,
  gatewayFromEnv,
  listModels,
} from '../core/gateway-client.ts';
import type { Message, ModelInfo } from '../core/messages.ts';
import { loadTools } from '../core/tool.ts';
import { chooseProtocol, parseMetaArgs, runMetaAgent } from './meta-agent.ts';

/**
 * MetaAgent entry: edits the agents under --repo with bash and editor tools, then exits 0 whatever the
 * loop's outcome. Exit 1 only for startup errors (bad arguments, no gateway). `--check` loads and exits 0.
 */
const log = (message: string) => process.stderr.write(`[meta-agent] ${message}\n`);
const fail = (message: string): never => {
  log(message);
  process.exit(1);
};

const parsed = parseMetaArgs(process.argv.slice(2));
if (!parsed.ok) fail(parsed.message);
else if (parsed.args.check) process.exit(0);
const args = parsed.ok
  ? { ...parsed.args, repo: resolve(parsed.args.repo), evals: resolve(parsed.args.evals) }
  : fail('');
for (const [flag, dir] of [
  ['--repo', args.repo],
  ['--evals', args.evals],
] as const) {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) fail(`${flag} ${dir} is not a directory`);
}

let gateway: GatewayConfig;
try {
  gateway = gatewayFromEnv();
} catch (error) {
  gateway = fail(error instanceof Error ? error.message : String(error));
}
const models = await listModels(gateway);
if (!models.ok) log(`could not list models (${models.error.message}); using the text tool protocol`);
const modelList: ModelInfo[] = models.ok ? models.models : [];
const protocol = chooseProtocol(process.env.HYPERAGENTS_TOOL_PROTOCOL, modelList);
const tools = await loadTools(
  fileURLToPath(new URL('../tools/', import.meta.url)),
  { root: args.repo },
  { onWarning: log },
);
log(
  `tools: ${tools.map((t) => t.name).join(', ')}; protocol: ${protocol}; model: ${modelList[0]?.id ?? 'unknown'}`,
);

const outcome = await runMetaAgent({
  args,
  prompt: await readFile(new URL('./prompt.md', import.meta.url), 'utf8'),
  model: createGatewayModel(gateway),
  tools,
  protocol,
  ...(modelList[0] ? { modelInfo: modelList[0] } : {}),
  onMessage: (message: Message) => {
    const calls =
      message.role === 'assistant' ? (message.toolCalls ?? []).map((c) => ` [calls ${c.name}]`).join('') : '';
    log(`${message.role}: ${message.content.slice(0, 300).replace(/\s+/g, ' ')}${calls}`);
  },
});
await Promise.all(tools.map((t) => t.close?.()));
log(`finished: ${outcome.status} after ${outcome.toolCalls} tool calls, $${outcome.costUsd.toFixed(4)}`);
if (outcome.error) log(`model error: ${outcome.error.type}: ${outcome.error.message}`);

const transcriptPath = process.env.HYPERAGENTS_TRANSCRIPT;
if (transcriptPath) {
  const { messages, ...summary } = outcome;
  await writeFile(transcriptPath, `${JSON.stringify({ ...summary, messages }, null, 2)}\n`);
}
process.exit(0);
