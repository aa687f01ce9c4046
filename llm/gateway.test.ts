import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Gateway, type GatewayOptions, startGateway } from './gateway.ts';
import { createSimModel } from './sim/sim-model.ts';
import { ChatResponseSchema, GatewayErrorBodySchema, type LedgerRow, ModelsResponseSchema } from './types.ts';

interface Reply {
  status: number;
  body: unknown;
}

/** A plain node:http call over the unix socket (or TCP), as an agent would make it. */
function call(
  target: string,
  method: string,
  path: string,
  opts: { token?: string; body?: string | Buffer } = {},
): Promise<Reply> {
  const where = target.startsWith('unix:')
    ? { socketPath: target.slice('unix:'.length) }
    : { host: '127.0.0.1', port: Number(new URL(target).port) };
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...where,
        method,
        path,
        headers: {
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(opts.body !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(opts.body) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    // The server may answer and close before a huge body is fully sent; the answer still counts.
    req.on('error', (error) => (req.writableFinished ? undefined : reject(error)));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const CHAT = JSON.stringify({
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'hello' },
  ],
});

let dir: string;
let gateway: Gateway | undefined;
let rows: LedgerRow[];

async function start(
  extra: Partial<GatewayOptions> = {},
  sim = createSimModel({ seed: 1, domains: ['arithmetic'] }),
) {
  dir = mkdtempSync(join(tmpdir(), 'gw-'));
  rows = [];
  gateway = await startGateway({
    socketPath: join(dir, 'gateway.sock'),
    providers: (id) => (id === 'sim' ? sim : undefined),
    onCall: (row) => rows.push(row),
    ...extra,
  });
  return gateway;
}

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

function errorOf(reply: Reply) {
  return GatewayErrorBodySchema.parse(reply.body).error;
}

describe('gateway', () => {
  it('serves a chat call with the token identity and writes one ledger row', async () => {
    const gw = await start();
    const token = gw.issueToken({ runId: 'run-a', variantId: 4, role: 'task', model: 'sim' });
    const reply = await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT });
    expect(reply.status).toBe(200);
    const body = ChatResponseSchema.parse(reply.body);
    expect(body.model).toBe('sim');
    expect(body.stopReason).toBe('end');
    expect(body.usage.input).toBeGreaterThan(0);
    expect(rows).toEqual([
      {
        ts: expect.any(String),
        runId: 'run-a',
        variantId: 4,
        role: 'task',
        model: 'sim',
        usage: body.usage,
        costUsd: 0,
        latencyMs: expect.any(Number),
        status: 'ok',
      },
    ]);
    expect(lstatSync(gw.socketPath).mode & 0o777).toBe(0o600);
  });

  it('refuses missing, unknown and revoked tokens with 401', async () => {
    const gw = await start();
    expect(errorOf(await call(gw.url, 'POST', '/v1/chat', { body: CHAT }))).toMatchObject({ type: 'auth' });
    const wrong = await call(gw.url, 'GET', '/v1/models', { token: 'nope' });
    expect(wrong.status).toBe(401);
    const token = gw.issueToken({ runId: 'r', variantId: null, role: 'meta', model: 'sim' });
    gw.revokeToken(token);
    expect((await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT })).status).toBe(401);
    expect(rows).toEqual([]);
  });

  it('answers bad bodies with 400 bad_request naming each problem', async () => {
    const gw = await start();
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const malformed = await call(gw.url, 'POST', '/v1/chat', { token, body: '{"messages": [' });
    expect(malformed.status).toBe(400);
    expect(errorOf(malformed)).toMatchObject({ type: 'bad_request', retryable: false });
    expect(errorOf(malformed).message).toMatch(/not valid JSON/);
    const invalid = await call(gw.url, 'POST', '/v1/chat', {
      token,
      body: JSON.stringify({
        messages: [
          { role: 'user', content: 5 },
          { role: 'tool', content: 'x' },
        ],
        maxTokens: -1,
      }),
    });
    expect(invalid.status).toBe(400);
    const { message } = errorOf(invalid);
    expect(message).toMatch(/messages\.0\.content: .*expected string/);
    expect(message).toMatch(/messages\.1\.toolCallId/);
    expect(message).toMatch(/maxTokens/);
    const route = await call(gw.url, 'GET', '/v1/nothing', { token });
    expect(route.status).toBe(400);
    expect(rows.map((r) => r.status)).toEqual(['bad_request', 'bad_request']);
  });

  it('rejects an unknown model with close matches, and a known model the run does not serve', async () => {
    const gw = await start();
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const reply = await call(gw.url, 'POST', '/v1/chat', {
      token,
      body: JSON.stringify({ ...JSON.parse(CHAT), model: 'sin' }),
    });
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatchObject({ type: 'unknown_model' });
    expect(errorOf(reply).message).toMatch(/Did you mean sim\?/);
    expect(() => gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'openai/gtp-4o' })).toThrow(
      /Unknown model/,
    );
  });

  it('lists the models the token may use, its own first', async () => {
    const gw = await start({ tcp: true });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'meta', model: 'sim' });
    const reply = await call(gw.tcpUrl!, 'GET', '/v1/models', { token });
    expect(reply.status).toBe(200);
    expect(ModelsResponseSchema.parse(reply.body).models[0]).toEqual({
      id: 'sim',
      nativeTools: true,
      contextWindow: 200_000,
      maxOutput: 32_000,
      simulated: true,
    });
  });

  it('refuses calls with 402 once the budget is spent', async () => {
    const sim = createSimModel({ seed: 1, domains: [], pricePerMTok: 100_000 });
    const gw = await start({ budgetUsd: 0.5 }, sim);
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const first = await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT });
    expect(first.status).toBe(200);
    expect(gw.spentUsd()).toBeGreaterThanOrEqual(0.5);
    const second = await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT });
    expect(second.status).toBe(402);
    expect(errorOf(second)).toMatchObject({ type: 'budget_exceeded', retryable: false });
    expect(errorOf(second).message).toMatch(/budget of \$0\.5000 is used up/);
    expect(rows.map((r) => r.status)).toEqual(['ok', 'budget_exceeded']);
    expect(rows[0]!.costUsd).toBe(gw.spentUsd());
  });

  it('answers a body over 20 MB with 413 and keeps serving', async () => {
    const gw = await start();
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const huge = Buffer.alloc(21 * 1024 * 1024, 'a');
    const reply = await call(gw.url, 'POST', '/v1/chat', { token, body: huge });
    expect(reply.status).toBe(413);
    expect(errorOf(reply).type).toBe('context_overflow');
    expect((await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT })).status).toBe(200);
  });

  it('replaces a stale socket file left by a killed process, and refuses a live one', async () => {
    const socketPath = join(mkdtempSync(join(tmpdir(), 'gw-stale-')), 'gateway.sock');
    const script = `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, 'SIGKILL'))`;
    try {
      execFileSync(process.execPath, ['-e', script]);
    } catch {
      // killed on purpose
    }
    expect(lstatSync(socketPath).isSocket()).toBe(true);
    const gw = await start({ socketPath });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    expect((await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT })).status).toBe(200);
    await expect(
      startGateway({ socketPath, providers: () => undefined, onCall: () => undefined }),
    ).rejects.toThrow(/another process is listening/);
    const file = join(dir, 'not-a-socket');
    writeFileSync(file, 'keep me');
    await expect(
      startGateway({ socketPath: file, providers: () => undefined, onCall: () => undefined }),
    ).rejects.toThrow(/is not a socket/);
    await gw.close();
    expect(existsSync(socketPath)).toBe(false);
  });

  it('falls back to a short socket path when the requested one is too long', async () => {
    const deep = join(mkdtempSync(join(tmpdir(), 'gw-long-')), 'x'.repeat(90));
    const gw = await start({ socketPath: join(deep, 'gateway.sock') });
    expect(gw.url).toBe(`unix:${gw.socketPath}`);
    expect(Buffer.byteLength(gw.socketPath)).toBeLessThanOrEqual(100);
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    expect((await call(gw.url, 'GET', '/v1/models', { token })).status).toBe(200);
  });

  it('keeps serving when the ledger callback throws', async () => {
    const gw = await start({
      onCall: () => {
        throw new Error('disk full');
      },
    });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    expect((await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT })).status).toBe(200);
  });
});
