import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelInfo, ModelRequest } from '../core/messages.ts';

/**
 * A tiny gateway for tests: real HTTP on a unix socket, speaking the gateway wire protocol. `answer`
 * decides each chat reply from the request; the reply's usage, cost and timing are filled in.
 */
export type FakeChatAnswer =
  | {
      content: string;
      toolCalls?: { id: string; name: string; input: unknown }[];
      stopReason?: 'end' | 'tool_use' | 'length';
    }
  | { status: number; error: { type: string; message: string; retryable: boolean } };

export type FakeGateway = {
  url: string;
  token: string;
  requests: ModelRequest[];
  env: Record<string, string>;
  close(): Promise<void>;
};

export async function startFakeGateway(options: {
  answer: (request: ModelRequest, index: number) => FakeChatAnswer | Promise<FakeChatAnswer>;
  models?: ModelInfo[];
  token?: string;
}): Promise<FakeGateway> {
  const token = options.token ?? 'test-token';
  const dir = await mkdtemp(join(tmpdir(), 'fake-gateway-'));
  const socketPath = join(dir, 'gateway.sock');
  const requests: ModelRequest[] = [];
  const models = options.models ?? [
    { id: 'sim', nativeTools: false, contextWindow: 128_000, maxOutput: 4096, simulated: true },
  ];
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) {
      send(401, { error: { type: 'auth', message: 'bad token', retryable: false } });
      return;
    }
    if (req.method === 'GET' && req.url === '/v1/models') {
      send(200, { models });
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat') {
      send(400, { error: { type: 'bad_request', message: `no route ${req.url}`, retryable: false } });
      return;
    }
    const request = JSON.parse(await readBody(req)) as ModelRequest;
    requests.push(request);
    const answer = await options.answer(request, requests.length - 1);
    if ('error' in answer) {
      send(answer.status, { error: answer.error });
      return;
    }
    send(200, {
      message: answer.toolCalls
        ? { content: answer.content, toolCalls: answer.toolCalls }
        : { content: answer.content },
      stopReason: answer.stopReason ?? (answer.toolCalls?.length ? 'tool_use' : 'end'),
      usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      costUsd: 0.001,
      model: models[0]?.id ?? 'sim',
      latencyMs: 1,
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const url = `unix:${socketPath}`;
  return {
    url,
    token,
    requests,
    env: { HYPERAGENTS_LLM_URL: url, HYPERAGENTS_LLM_TOKEN: token },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
