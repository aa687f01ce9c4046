import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGatewayModel } from '../agents/index.ts';
import { type Gateway, type GatewayLedgerRow, type GatewayOptions, startGateway } from './gateway.ts';
import type { ModelProvider } from './provider.ts';
import { createNormalizer, createRecordWriter, loadReplayBook, runPlaceholders } from './recorder.ts';
import type { ModelRecord } from './registry.ts';
import { withRetries } from './retry.ts';
import { createSimModel } from './sim/sim-model.ts';
import { ChatResponseSchema, GatewayErrorBodySchema, ModelsResponseSchema } from './types.ts';

interface Reply {
  status: number;
  body: unknown;
}

/** A plain node:http call over the unix socket (or TCP), as an agent would make it. */
function call(
  target: string,
  method: string,
  path: string,
  opts: { token?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
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
          ...opts.headers,
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
let rows: GatewayLedgerRow[];
let warnings: string[];

async function start(
  extra: Partial<GatewayOptions> = {},
  sim = createSimModel({ seed: 1, domains: ['arithmetic'] }),
) {
  dir = mkdtempSync(join(tmpdir(), 'gw-'));
  rows = [];
  warnings = [];
  gateway = await startGateway({
    socketPath: join(dir, 'gateway.sock'),
    providers: (id) => (id === 'sim' ? sim : undefined),
    onCall: (row) => rows.push(row),
    onWarning: (message) => warnings.push(message),
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
        reportedModel: 'sim',
        usage: body.usage,
        costUsd: 0,
        latencyMs: expect.any(Number),
        status: 'ok',
        attempts: 1,
        replayed: false,
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
      startGateway({
        socketPath,
        providers: () => undefined,
        onCall: () => undefined,
        onWarning: () => undefined,
      }),
    ).rejects.toThrow(/another process is listening/);
    const file = join(dir, 'not-a-socket');
    writeFileSync(file, 'keep me');
    await expect(
      startGateway({
        socketPath: file,
        providers: () => undefined,
        onCall: () => undefined,
        onWarning: () => undefined,
      }),
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

  it('cancels the provider call when the agent gives up on it (wall time), and logs it', async () => {
    const gw = await start({}, createSimModel({ seed: 1, domains: ['arithmetic'], latencyMs: 60_000 }));
    const token = gw.issueToken({ runId: 'run-a', variantId: 1, role: 'meta', model: 'sim' });
    const model = createGatewayModel({ url: gw.url, token });
    const controller = new AbortController();
    const pending = model({ messages: [{ role: 'user', content: 'hello' }] }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    expect(result).toMatchObject({ ok: false, error: { message: 'the model call was cancelled' } });
    await vi.waitFor(() => expect(rows).toHaveLength(1));
    expect(rows[0]?.status).not.toBe('ok');
  });

  it('keeps serving when the ledger callback throws, and tells its warning sink', async () => {
    const gw = await start({
      onCall: () => {
        throw new Error('disk full');
      },
    });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    expect((await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT })).status).toBe(200);
    expect(warnings).toEqual(['ledger callback failed: disk full']);
  });
});

const chatWith = (extra: Record<string, unknown>, system = 'You are terse.') =>
  JSON.stringify({
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: 'hello' },
    ],
    ...extra,
  });

const OK_USAGE = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

/** A provider at the model boundary whose calls wait until the test lets them finish. */
function heldProvider(costUsd: number) {
  const waiting: (() => void)[] = [];
  let calls = 0;
  const provider: ModelProvider = {
    async complete() {
      calls++;
      await new Promise<void>((resolve) => waiting.push(resolve));
      return {
        ok: true,
        response: { message: { content: 'done' }, stopReason: 'end', usage: OK_USAGE, costUsd },
      };
    },
  };
  return {
    provider,
    calls: () => calls,
    held: () => waiting.length,
    release: () => {
      for (const resume of waiting.splice(0)) resume();
    },
  };
}

/** The sim's registry record at a nominal price in $ per million tokens. */
function pricedSim(pricePerMTok: number): ModelRecord {
  return createSimModel({ seed: 1, domains: [], pricePerMTok }).model;
}

describe('gateway budget', () => {
  it('refuses a call whose input alone would take the spend over the budget, and every call after it', async () => {
    const sim = createSimModel({ seed: 1, domains: [], pricePerMTok: 1000 });
    const gw = await start({ budgetUsd: 0.5, records: (id) => (id === 'sim' ? sim.model : undefined) }, sim);
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    // Up to 8192 output tokens at $1000 per million could cost $8, but only the input is known in advance:
    // the call runs, and the run may end at most one call's output over the budget.
    const small = await call(gw.url, 'POST', '/v1/chat', { token, body: chatWith({}) });
    expect(small.status).toBe(200);
    expect(gw.budgetReached()).toBe(false);
    // 4 MB of input is about a million tokens: $1000 before any output.
    const long = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(4_000_000) }] });
    const big = await call(gw.url, 'POST', '/v1/chat', { token, body: long });
    expect(big.status).toBe(402);
    expect(errorOf(big)).toMatchObject({ type: 'budget_exceeded', retryable: false });
    expect(errorOf(big).message).toMatch(
      /budget of \$0\.5000 \(--budget-usd\) is reached: \$0\.0\d+ spent, no call in flight, and this call's input alone costs about \$1000\.\d+ \(about 1000\d+ tokens at sim's prices\)\. The run stops here/,
    );
    expect(gw.budgetReached()).toBe(true);
    const after = await call(gw.url, 'POST', '/v1/chat', { token, body: chatWith({ maxTokens: 100 }) });
    expect(after.status).toBe(402);
    expect(errorOf(after).message).toMatch(/is reached \(\$0\.0\d+ spent\) and the run is stopping/);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['ok', 1],
      ['budget_exceeded', 0],
      ['budget_exceeded', 0],
    ]);
    expect(rows[0]!.costUsd).toBeGreaterThan(0);
    expect(rows[0]!.costUsd).toBe(gw.spentUsd());
  });

  it('lets a call that does not fit beside calls in flight wait for them, instead of ending the run', async () => {
    const slow = heldProvider(0.01);
    const record = pricedSim(1000);
    // Each call may cost about $1.04 (1000 output tokens + its input) and holds that while it runs: with
    // $2 two calls start, and a third waits, because $2.08 is held and its input would go over.
    const gw = await start({ budgetUsd: 2, records: () => record, providers: () => slow.provider });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const body = chatWith({ maxTokens: 1000 });
    const first = call(gw.url, 'POST', '/v1/chat', { token, body });
    const second = call(gw.url, 'POST', '/v1/chat', { token, body });
    await vi.waitFor(() => expect(slow.held()).toBe(2));
    const third = call(gw.url, 'POST', '/v1/chat', { token, body });
    // The third reached the gateway and waits: no provider call, no answer, and the budget is not reached.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slow.calls()).toBe(2);
    expect(rows).toEqual([]);
    expect(gw.budgetReached()).toBe(false);
    // They cost $0.01 each: once they settle, the third fits and runs.
    slow.release();
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    await vi.waitFor(() => expect(slow.held()).toBe(1));
    slow.release();
    expect((await third).status).toBe(200);
    expect(rows.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(gw.spentUsd()).toBeCloseTo(0.03, 10);
    expect(gw.budgetReached()).toBe(false);
  });

  it('refuses a waiting call only once nothing is in flight and it still does not fit', async () => {
    const pricey = heldProvider(1.5);
    const record = pricedSim(1000);
    const gw = await start({ budgetUsd: 2, records: () => record, providers: () => pricey.provider });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const body = chatWith({ maxTokens: 1000 });
    const first = call(gw.url, 'POST', '/v1/chat', { token, body });
    const second = call(gw.url, 'POST', '/v1/chat', { token, body });
    await vi.waitFor(() => expect(pricey.held()).toBe(2));
    const third = call(gw.url, 'POST', '/v1/chat', { token, body });
    await new Promise((resolve) => setTimeout(resolve, 100));
    pricey.release();
    // $3 spent and nothing in flight: the third call's input no longer fits, so it is refused.
    const refused = await third;
    expect(refused.status).toBe(402);
    expect(errorOf(refused).message).toMatch(
      /budget of \$2\.0000 \(--budget-usd\) is reached: \$3\.0000 spent, no call in flight, and this call's input alone costs about \$0\.0\d+/,
    );
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    expect(gw.budgetReached()).toBe(true);
    expect(gw.budgetStop()).toMatchObject({ spentUsd: 3, heldUsd: 0, model: 'sim' });
    expect(pricey.calls()).toBe(2);
  });

  it('forgets a call whose agent went away while it waited, without calling the model', async () => {
    const slow = heldProvider(0.01);
    const record = pricedSim(1000);
    const gw = await start({ budgetUsd: 1, records: () => record, providers: () => slow.provider });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const first = call(gw.url, 'POST', '/v1/chat', { token, body: chatWith({ maxTokens: 1000 }) });
    await vi.waitFor(() => expect(slow.held()).toBe(1));
    // The agent's own client, given up on the call after 100 ms (a killed agent closes it the same way).
    const model = createGatewayModel({ url: gw.url, token, timeoutMs: 100 });
    const gone = await model({ messages: [{ role: 'user', content: 'hello' }], maxTokens: 1000 });
    expect(gone).toMatchObject({ ok: false, error: { type: 'timeout' } });
    await vi.waitFor(() => expect(rows).toHaveLength(1));
    expect(rows[0]).toMatchObject({ status: 'internal', attempts: 0, costUsd: 0 });
    expect(rows[0]!.error).toMatch(/went away while the call waited for calls in flight to settle/);
    slow.release();
    expect((await first).status).toBe(200);
    expect(slow.calls()).toBe(1);
    expect(gw.budgetReached()).toBe(false);
  });

  it('counts the spend without refusing anything when the run has no budget', async () => {
    const sim = createSimModel({ seed: 1, domains: [], pricePerMTok: 1_000_000 });
    const gw = await start({ records: () => sim.model }, sim);
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    for (let i = 0; i < 3; i++)
      expect((await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT })).status).toBe(200);
    expect(gw.spentUsd()).toBeGreaterThan(3);
    expect(gw.budgetReached()).toBe(false);
  });
});

describe('gateway stopping with the run', () => {
  it('ends calls being retried or waiting for the budget, and refuses later ones at once', async () => {
    let attempts = 0;
    const limited: ModelProvider = {
      async complete() {
        attempts++;
        return {
          ok: false,
          error: { type: 'rate_limit', message: 'slow down', retryable: true, retryAfterMs: 60_000 },
        };
      },
    };
    const record = pricedSim(1000);
    const gw = await start({
      budgetUsd: 1,
      records: () => record,
      providers: () => withRetries(limited),
    });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const body = chatWith({ maxTokens: 1000 });
    // The first call waits a minute before its retry; the second waits for the budget the first holds.
    const retrying = call(gw.url, 'POST', '/v1/chat', { token, body });
    await vi.waitFor(() => expect(attempts).toBe(1));
    const waiting = call(gw.url, 'POST', '/v1/chat', { token, body });
    await new Promise((resolve) => setTimeout(resolve, 100));
    gw.stopCalls('the run is stopping (interrupted)');
    const [first, second] = await Promise.all([retrying, waiting]);
    expect(first.status).toBeGreaterThanOrEqual(400);
    expect(errorOf(first).message).toMatch(/cancelled while waiting to retry/);
    expect(second.status).toBe(500);
    expect(errorOf(second).message).toBe('the run is stopping (interrupted)');
    const later = await call(gw.url, 'POST', '/v1/chat', { token, body });
    expect(errorOf(later)).toMatchObject({ type: 'internal', message: 'the run is stopping (interrupted)' });
    expect(attempts).toBe(1);
    expect(gw.budgetReached()).toBe(false);
  });
});

describe('gateway ledger details', () => {
  it('counts the attempts of a call its provider retried, and what was retried', async () => {
    let failures = 2;
    const flaky: ModelProvider = {
      async complete() {
        if (failures-- > 0)
          return {
            ok: false,
            error: { type: 'rate_limit', message: 'slow down', retryable: true, retryAfterMs: 0 },
          };
        return { ok: true, response: { message: { content: 'ok' }, stopReason: 'end', usage: OK_USAGE } };
      },
    };
    const gw = await start({
      providers: () => withRetries(flaky, { policy: { baseMs: 0 } }),
    });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'meta', model: 'sim' });
    expect((await call(gw.url, 'POST', '/v1/chat', { token, body: CHAT })).status).toBe(200);
    expect(rows[0]).toMatchObject({
      status: 'ok',
      attempts: 3,
      replayed: false,
      retried: ['rate_limit: slow down', 'rate_limit: slow down'],
    });
  });

  it('reports what adaptation changed, in the reply and the ledger', async () => {
    const gw = await start();
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const reply = await call(gw.url, 'POST', '/v1/chat', { token, body: chatWith({ maxTokens: 50_000 }) });
    const note = "maxTokens clamped from 50000 to 32000, sim's output limit";
    expect(ChatResponseSchema.parse(reply.body).adapted).toEqual([note]);
    expect(rows[0]!.adapted).toEqual([note]);
  });

  it('records the task a TaskAgent names for a call, and records a call naming none or a garbled one without', async () => {
    const gw = await start();
    const token = gw.issueToken({ runId: 'r', variantId: 2, role: 'task', model: 'sim' });
    const model = (domain: string, id: string) =>
      createGatewayModel({ url: gw.url, token, task: { domain, id } });
    const ask = { messages: [{ role: 'user' as const, content: 'What is 2+2?' }] };
    const replies = await Promise.all([
      model('arithmetic', 'train/7 ü')(ask),
      model('numbers', 'val-3')(ask),
    ]);
    expect(replies.map((r) => r.ok)).toEqual([true, true]);
    const named = (headers: Record<string, string>) =>
      call(gw.url, 'POST', '/v1/chat', { token, body: CHAT, headers });
    await named({});
    await named({ 'x-hyperagents-task': 'val-3' });
    await named({ 'x-hyperagents-task': '%E0%A4%A', 'x-hyperagents-task-domain': 'numbers' });
    await named({ 'x-hyperagents-task': 'x'.repeat(300), 'x-hyperagents-task-domain': 'numbers' });
    expect(rows.every((r) => r.status === 'ok')).toBe(true);
    expect(rows.map((r) => r.task)).toEqual([
      ...(rows[0]!.task?.domain === 'arithmetic'
        ? [
            { domain: 'arithmetic', id: 'train/7 ü' },
            { domain: 'numbers', id: 'val-3' },
          ]
        : [
            { domain: 'numbers', id: 'val-3' },
            { domain: 'arithmetic', id: 'train/7 ü' },
          ]),
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('gateway models per token', () => {
  const echo: ModelRecord = {
    ...pricedSim(0),
    id: 'local/echo',
    provider: 'local',
    nativeTools: false,
    simulated: false,
    contextWindow: 8000,
    maxOutput: 1000,
  };

  it('lists each token its own model first, then the other models the run serves, and nothing else', async () => {
    const sim = createSimModel({ seed: 1, domains: [] });
    const gw = await start({
      models: ['sim', 'local/echo'],
      records: (id) => (id === 'local/echo' ? echo : undefined),
      providers: (id) => (id === 'sim' || id === 'local/echo' ? sim : undefined),
    });
    const list = async (model: string) => {
      const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model });
      const reply = await call(gw.url, 'GET', '/v1/models', { token });
      return ModelsResponseSchema.parse(reply.body).models.map((m) => [m.id, m.nativeTools, m.simulated]);
    };
    expect(await list('sim')).toEqual([
      ['sim', true, true],
      ['local/echo', false, false],
    ]);
    expect(await list('local/echo')).toEqual([
      ['local/echo', false, false],
      ['sim', true, true],
    ]);
  });

  it('refuses a registry model the run does not serve, naming the ones it does', async () => {
    const gw = await start({ models: ['sim'] });
    const token = gw.issueToken({ runId: 'r', variantId: 1, role: 'task', model: 'sim' });
    const listed = await call(gw.url, 'GET', '/v1/models', { token });
    expect(ModelsResponseSchema.parse(listed.body).models.map((m) => m.id)).toEqual(['sim']);
    const reply = await call(gw.url, 'POST', '/v1/chat', {
      token,
      body: chatWith({ model: 'openai/gpt-4o' }),
    });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).message).toBe(
      'model "openai/gpt-4o" is not available in this run; use one of: sim',
    );
  });
});

describe('gateway record and replay', () => {
  /** A model that answers with the paths it was shown, as a real MetaAgent's model would. */
  const echoSystem: ModelProvider = {
    async complete(req) {
      const system = req.messages[0]?.content ?? '';
      return {
        ok: true,
        response: {
          message: { content: `I will edit ${system}` },
          stopReason: 'end',
          usage: OK_USAGE,
          reportedModel: 'echo-2026-01-01',
        },
      };
    },
  };

  it('replays a recorded run in another run folder without calling any model', async () => {
    const base = mkdtempSync(join(tmpdir(), 'gw-rec-'));
    const file = join(base, 'calls.jsonl');
    const [runA, runB] = [join(base, 'out-a', 'run-1'), join(base, 'out-b', 'run-2')];
    const normalizerOf = (runDir: string, runId: string) =>
      createNormalizer(runPlaceholders({ runDir, runId, projectRoot: '/project' }));
    const worktree = (runDir: string) => chatWith({}, `${runDir}/worktrees/variant-1/agents/task/prompt.md`);

    const recorder = await start({
      providers: () => echoSystem,
      record: createRecordWriter(file),
      normalizer: normalizerOf(runA, 'run-1'),
    });
    const meta = recorder.issueToken({ runId: 'run-1', variantId: 1, role: 'meta', model: 'sim' });
    const recorded = await call(recorder.url, 'POST', '/v1/chat', { token: meta, body: worktree(runA) });
    expect(ChatResponseSchema.parse(recorded.body).message.content).toBe(
      `I will edit ${runA}/worktrees/variant-1/agents/task/prompt.md`,
    );
    await recorder.close();
    const line = JSON.parse(readFileSync(file, 'utf8')) as {
      key: string;
      request: unknown;
      response: { message: { content: string }; reportedModel: string };
    };
    expect(line.response.message.content).toBe(
      'I will edit <RUN_DIR>/worktrees/variant-1/agents/task/prompt.md',
    );
    expect(line.response.reportedModel).toBe('echo-2026-01-01');

    let providerCalls = 0;
    const replayer = await start({
      providers: () => {
        providerCalls++;
        return undefined;
      },
      models: ['sim'],
      replay: loadReplayBook(file),
      normalizer: normalizerOf(runB, 'run-2'),
      budgetUsd: 0.000001,
    });
    const token = replayer.issueToken({ runId: 'run-2', variantId: 1, role: 'meta', model: 'sim' });
    const replayed = await call(replayer.url, 'POST', '/v1/chat', { token, body: worktree(runB) });
    expect(replayed.status).toBe(200);
    expect(ChatResponseSchema.parse(replayed.body)).toMatchObject({
      message: { content: `I will edit ${runB}/worktrees/variant-1/agents/task/prompt.md` },
      costUsd: 0,
    });
    // The replayed call names the model that served the recorded one.
    expect(rows).toEqual([
      expect.objectContaining({
        status: 'ok',
        replayed: true,
        attempts: 0,
        costUsd: 0,
        reportedModel: 'echo-2026-01-01',
      }),
    ]);

    const asTask = replayer.issueToken({ runId: 'run-2', variantId: 1, role: 'task', model: 'sim' });
    const miss = await call(replayer.url, 'POST', '/v1/chat', { token: asTask, body: worktree(runB) });
    expect(miss.status).toBe(502);
    expect(errorOf(miss)).toMatchObject({ type: 'provider_error', retryable: false });
    expect(errorOf(miss).message).toContain(`no recorded response for this task request in ${file}`);
    expect(replayer.replayMisses()).toBe(1);
    expect(providerCalls).toBe(0);
    expect(replayer.spentUsd()).toBe(0);
    rmSync(base, { recursive: true, force: true });
  });
});
