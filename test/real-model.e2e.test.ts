import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { errorReply, textReply } from '../llm/testing/fake-openai.ts';
import { type FakeServer, startFakeServer } from '../llm/testing/fake-server.ts';
import { type CliResult, runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-real-model-'));
const KEY = 'sk-test-e2e-0000';

/** The dated id the fake server says served each call, as OpenAI names the model behind an alias. */
const SERVED = 'gpt-4o-mini-2024-07-18';

/** OpenAI's wire format on loopback: the MetaAgent changes nothing, the TaskAgent always answers 0. */
function reply(body: unknown) {
  const text = JSON.stringify(body);
  return text.includes('meta agent')
    ? textReply('I read the results and changed nothing.', { model: SERVED })
    : textReply('<json>{"response": 0}</json>', { model: SERVED });
}

describe('generate-loop with a real provider (OpenAI wire format, served on loopback)', () => {
  let server: FakeServer;
  let result: CliResult;
  let summary: RunSummary;

  beforeAll(async () => {
    server = await startFakeServer({ fallback: (req) => reply(req.body) });
    // The first call is rate limited once; the layer's retries must absorb it.
    server.enqueue(errorReply('rate_limit', { retryAfterSeconds: 0, model: 'gpt-4o-mini' }));
    result = await runCli(
      'generate-loop',
      [
        ...['--domains', 'arithmetic', '--model', 'openai/gpt-4o-mini', '--generations', '1'],
        ...['--eval-samples', '3', '--eval-workers', '2', '--sandbox', 'none', '--out', tmp, '--json'],
      ],
      { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` },
    );
    expect(result.code, result.stderr).toBe(0);
    summary = JSON.parse(result.stdout) as RunSummary;
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('runs the loop on the model, without the simulation banner', () => {
    expect(summary).toMatchObject({ model: 'openai/gpt-4o-mini', simulated: false });
    expect(result.stderr).not.toMatch(/SIMULATED/);
    expect(summary.variants[0]).toMatchObject({ status: 'evaluated', score: 0 });
    expect(summary.variants[1]).toMatchObject({ status: 'rejected' });
  });

  it('sends the key and the model’s wire name to the provider, and keeps the key out of every prompt', () => {
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(chats.length).toBe(summary.llmCalls + 1);
    for (const r of chats) {
      expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
      expect((r.body as { model: string }).model).toBe('gpt-4o-mini');
      expect(JSON.stringify(r.body)).not.toContain(KEY);
    }
  });

  it('prices every call from the registry and records the retry in the ledger', () => {
    const db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
    const rows = db
      .prepare('SELECT model, reported_model, status, cost_usd, attempts, retried FROM llm_calls ORDER BY id')
      .all() as {
      model: string;
      reported_model: string | null;
      status: string;
      cost_usd: number;
      attempts: number;
      retried: string | null;
    }[];
    db.close();
    expect(rows.length).toBe(summary.llmCalls);
    for (const r of rows)
      expect(r).toMatchObject({ model: 'openai/gpt-4o-mini', reported_model: SERVED, status: 'ok' });
    expect(rows.every((r) => r.cost_usd > 0)).toBe(true);
    expect(summary.costUsd).toBeGreaterThan(0);
    const retried = rows.filter((r) => r.attempts > 1);
    expect(retried).toHaveLength(1);
    expect(retried[0]!.attempts).toBe(2);
    expect(retried[0]!.retried).toMatch(/^\["rate_limit: /);
  });

  it('bundles the run with the model id the provider reported beside the one it asked for', async () => {
    const file = path.join(tmp, 'bundle.tar.gz');
    const made = await runCli('hyperagents', ['archive', 'bundle', summary.runId, '-o', file, '--runs', tmp]);
    expect(made.code, made.stderr).toBe(0);
    const unpacked = path.join(tmp, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', file, '-C', unpacked]);
    const manifest = JSON.parse(readFileSync(path.join(unpacked, 'manifest.json'), 'utf8'));
    const calls = summary.llmCalls;
    expect(manifest.models).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          model: 'openai/gpt-4o-mini',
          reported: [{ model: SERVED, calls: expect.any(Number) }],
        }),
      ]),
    );
    const verified = await runCli('hyperagents', ['archive', 'verify', file]);
    expect(verified.stdout).toMatch(
      new RegExp(`Models: .*openai/gpt-4o-mini: \\d+ calls, served by ${SERVED} \\(\\d+\\)`),
    );
    const reported = manifest.models.flatMap((m: { reported: { calls: number }[] }) => m.reported);
    expect(reported.reduce((n: number, r: { calls: number }) => n + r.calls, 0)).toBe(calls);
  });
});
