import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import yargs from 'yargs';
import type { ModelProvider } from '../../llm/index.ts';
import {
  ChatResponseSchema,
  connectModel,
  createSimModel,
  GatewayErrorBodySchema,
  loadEnv,
  MAX_TIMER_MS,
  type Message,
  registeredProviders,
  resolveModel,
  startGateway,
} from '../../llm/index.ts';
import { printGatewayWarning } from '../shared/errors.ts';
import { helpWidth, parseOrExplain } from '../shared/parse-usage.ts';
import { UsageError } from '../shared/usage-error.ts';

/** `hyperagents chat --help`'s text; the variables and servers it names are the registered providers'. */
export function chatUsage(): string {
  const providers = registeredProviders();
  const keys = providers.flatMap((p) => p.keyVariables.slice(0, 1));
  const baseUrls = providers.map((p) => p.baseUrlVariable);
  const servers = providers.flatMap((p) =>
    p.anyModel ? [`Any model on ${p.anyModel.server}: --model ${p.name}/<name> --base-url URL.`] : [],
  );
  const variables = [
    `Keys: ${keys.join(', ')}.`,
    `Base URLs: ${baseUrls.join(', ')}, or --base-url.`,
    ...servers,
  ];
  return `hyperagents chat --model <id> [options] "prompt"

Sends one prompt to a model through the same layer runs use (key and base URL
from the environment or .env, parameter adaptation, retries, pricing), and
prints the reply. Use it to check a key or an endpoint. Exit code: 0 on a reply,
1 when the provider failed (the message names the cause), 2 on bad usage.

${variables.map((paragraph) => wrapWords(paragraph, 80)).join('\n')}`;
}

/** `text` in lines of at most `width` characters, broken between words. Pure. */
function wrapWords(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}

export interface ChatConfig {
  model: string;
  prompt: string;
  system?: string;
  temperature?: number;
  maxTokens?: number;
  baseUrl?: string;
  budgetUsd?: number;
  timeoutSec: number;
  retrySec: number;
  json: boolean;
}

function builder(argv: string[]) {
  return yargs(argv)
    .scriptName('hyperagents chat')
    .usage(chatUsage())
    .option('model', { type: 'string', requiresArg: true, describe: 'model id (see hyperagents models)' })
    .option('system', { type: 'string', requiresArg: true, describe: 'system prompt' })
    .option('temperature', { type: 'number', requiresArg: true, describe: 'sampling temperature, 0..2' })
    .option('max-tokens', { type: 'number', requiresArg: true, describe: 'cap on output tokens' })
    .option('base-url', {
      type: 'string',
      requiresArg: true,
      describe: "the provider's API root, e.g. http://127.0.0.1:11434/v1 for ollama",
    })
    .option('budget-usd', {
      type: 'number',
      requiresArg: true,
      describe: 'refuse the call if it could cost more than this',
    })
    .option('timeout-seconds', { type: 'number', default: 120, describe: 'per attempt' })
    .option('retry-seconds', {
      type: 'number',
      default: 60,
      describe: 'keep retrying rate limits, overloads and network errors for this long',
    })
    .option('json', {
      type: 'boolean',
      default: false,
      describe: "print the gateway's normalized response (with usage and costUsd) as JSON",
    })
    .strictOptions()
    .help()
    .version(false)
    .wrap(helpWidth());
}

/** Parses `hyperagents chat` arguments; 'help' when help was printed. Throws UsageError on bad input. */
export async function parseChatArgs(
  argv: string[],
  stdinText?: () => Promise<string>,
): Promise<ChatConfig | 'help'> {
  const parsed = await parseOrExplain(builder(argv), 'hyperagents chat', argv);
  if (parsed.help === true) return 'help';
  const model = parsed.model;
  if (model === undefined)
    throw new UsageError(
      '--model is required, e.g. --model sim to try the command offline (list them with hyperagents models).',
    );
  let prompt = parsed._.map(String).join(' ').trim();
  if ((prompt === '' || prompt === '-') && stdinText) prompt = (await stdinText()).trim();
  if (prompt === '')
    throw new UsageError(
      'Give the prompt as an argument, e.g. hyperagents chat --model sim "Say hello", or pipe it in.',
    );
  const positive = (name: string, value: number | undefined, integer = false): number | undefined => {
    if (value === undefined) return undefined;
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
      throw new UsageError(
        `--${name} must be a positive ${integer ? 'whole number' : 'number'}, not ${value}.`,
      );
    return value;
  };
  const temperature = parsed.temperature;
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2))
    throw new UsageError(`--temperature must be between 0 and 2, not ${temperature}.`);
  const baseUrl = parsed['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\/\S+$/.test(baseUrl))
    throw new UsageError(
      `--base-url must be an http(s) URL such as http://127.0.0.1:8080/v1, not "${baseUrl}".`,
    );
  const maxTokens = positive('max-tokens', parsed['max-tokens'], true);
  const budgetUsd = positive('budget-usd', parsed['budget-usd']);
  const timeoutSec = parsed['timeout-seconds'];
  const longest = Math.floor(MAX_TIMER_MS / 1000);
  if (!(timeoutSec > 0 && timeoutSec <= longest))
    throw new UsageError(
      `--timeout-seconds must be above 0 and at most ${longest} (about 24 days: the longest a timer can ` +
        `wait), not ${timeoutSec}.`,
    );
  const retrySec = parsed['retry-seconds'];
  if (!(retrySec >= 0 && Number.isFinite(retrySec)))
    throw new UsageError(`--retry-seconds must be 0 (no retries) or more, not ${retrySec}.`);
  return {
    model,
    prompt,
    ...(parsed.system === undefined ? {} : { system: parsed.system }),
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(budgetUsd === undefined ? {} : { budgetUsd }),
    timeoutSec,
    retrySec,
    json: parsed.json,
  };
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `hyperagents chat`: one request through an in-process gateway, exactly as an agent would send it. */
export async function chat(argv: string[]): Promise<number> {
  const config = await parseChatArgs(argv, readStdin);
  if (config === 'help') return 0;
  const resolved = resolveModel(config.model);
  if (!resolved.ok) throw new UsageError(`${resolved.error.message} List them with: hyperagents models.`);
  const model = resolved.model;
  let provider: ModelProvider;
  if (model.simulated) {
    provider = createSimModel({ seed: 0, domains: [] });
  } else {
    const connected = connectModel(model, loadEnv(), {
      ...(config.baseUrl === undefined ? {} : { baseUrl: config.baseUrl }),
      timeoutMs: config.timeoutSec * 1000,
      retry: {
        policy: { totalMs: config.retrySec * 1000 },
        onRetry: ({ attempt, waitMs, error }) => {
          if (!config.json)
            process.stderr.write(
              `retrying in ${(waitMs / 1000).toFixed(1)} s after attempt ${attempt}: ${error.message}\n`,
            );
        },
      },
    });
    if (!connected.ok) throw new UsageError(connected.message);
    provider = connected.provider;
  }

  const dir = await mkdtemp(path.join(tmpdir(), 'hyperagents-chat-'));
  const gateway = await startGateway({
    socketPath: path.join(dir, 'gateway.sock'),
    providers: (id) => (id === model.id ? provider : undefined),
    onCall: () => {},
    onWarning: printGatewayWarning,
    ...(config.budgetUsd === undefined ? {} : { budgetUsd: config.budgetUsd }),
  });
  try {
    const token = gateway.issueToken({ runId: 'chat', variantId: null, role: 'task', model: model.id });
    const messages: Message[] = [
      ...(config.system === undefined ? [] : [{ role: 'system' as const, content: config.system }]),
      { role: 'user', content: config.prompt },
    ];
    const body = {
      model: model.id,
      messages,
      ...(config.temperature === undefined ? {} : { temperature: config.temperature }),
      ...(config.maxTokens === undefined ? {} : { maxTokens: config.maxTokens }),
    };
    const answer = await post(gateway.socketPath, token, body);
    return report(answer, config);
  } finally {
    await gateway.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function report(answer: { status: number; text: string }, config: ChatConfig): number {
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    process.stderr.write(
      `hyperagents chat: the gateway sent an unreadable answer (HTTP ${answer.status}).\n`,
    );
    return 1;
  }
  const ok = ChatResponseSchema.safeParse(json);
  if (answer.status === 200 && ok.success) {
    const r = ok.data;
    if (config.json) {
      process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
      return 0;
    }
    process.stdout.write(`${r.message.content}\n`);
    for (const note of r.adapted ?? []) process.stderr.write(`note: ${note}\n`);
    const u = r.usage;
    const cached =
      u.cacheRead + u.cacheWrite > 0 ? `, cache ${u.cacheRead} read / ${u.cacheWrite} written` : '';
    process.stderr.write(
      `${r.model}: ${u.input} input + ${u.output} output tokens${cached}, $${r.costUsd.toFixed(6)}, ${r.latencyMs} ms${r.stopReason === 'length' ? ' (cut off at the token limit)' : ''}\n`,
    );
    return 0;
  }
  const error = GatewayErrorBodySchema.safeParse(json);
  if (config.json) process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  const message = error.success ? error.data.error.message : answer.text.slice(0, 500);
  const type = error.success ? error.data.error.type : 'internal';
  process.stderr.write(`hyperagents chat: ${CAUSE[type] ?? 'the call failed'}: ${message}\n`);
  return type === 'unknown_model' ? 2 : 1;
}

const CAUSE: Partial<Record<string, string>> = {
  auth: 'bad or missing API key',
  context_overflow: 'context too long',
  budget_exceeded: 'budget',
  unreachable: 'provider unreachable',
  rate_limit: 'rate limited (still, after retrying)',
  timeout: 'timed out',
  provider_error: 'provider error',
  bad_request: 'request rejected',
};

function post(socketPath: string, token: string, body: unknown): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method: 'POST',
        path: '/v1/chat',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    // A long prompt may still be flushing when the answer is in and the gateway closes: that late EPIPE on
    // the socket (no longer the request's) is no failure, and unhandled it would end the process.
    req.on('socket', (socket) => socket.on('error', () => undefined));
    req.end(payload);
  });
}
