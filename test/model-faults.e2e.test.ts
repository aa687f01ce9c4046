import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { errorReply, textReply } from '../llm/testing/fake-openai.ts';
import { type FakeServer, startFakeServer } from '../llm/testing/fake-server.ts';
import { type CliResult, PROJECT_ROOT, runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-fault-progress-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('progress of a run whose model fails 60 % of its attempts', () => {
  let result: CliResult;
  let summary: RunSummary;
  let ledger: { variant: number; faults: number; retries: number; most: number }[];

  beforeAll(async () => {
    result = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--sim-fault-rate', '0.6', '--sim-retry-ms', '10'],
      ...['--generations', '1', '--eval-samples', '10', '--out', tmp, '--json'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    summary = JSON.parse(result.stdout) as RunSummary;
    const db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
    ledger = db
      .prepare(
        `SELECT variant_id AS variant, SUM(attempts - (status = 'ok')) AS faults, SUM(attempts - 1) AS retries,
           MAX(attempts) AS most
         FROM llm_calls WHERE attempts > 0 GROUP BY variant_id ORDER BY variant_id`,
      )
      .all() as typeof ledger;
    db.close();
  }, 300_000);

  it('shows, for each generation, how many attempts failed and were retried, as the ledger counts them', () => {
    expect(ledger.map((v) => v.variant)).toEqual([0, 1]);
    for (const v of ledger) {
      expect(v.most).toBeGreaterThan(1);
      const line = result.stderr.split('\n').find((l) => l.startsWith(`generation ${v.variant}/1: `));
      expect(line, result.stderr).toBeDefined();
      expect(line).toMatch(new RegExp(` \\| ${v.faults} model faults, ${v.retries} retries$`));
    }
    expect(summary.variants[0]).toMatchObject({ status: 'evaluated' });
  });
});

describe('progress of a run whose provider fails every attempt for over 30 s', () => {
  const MODEL = 'gpt-4o-mini';
  let server: FakeServer;
  let result: CliResult;

  beforeAll(async () => {
    // OpenAI's wire format on loopback: rate limited (retry after 2 s) for the first 33 s, then answering.
    let firstRequest: number | null = null;
    server = await startFakeServer({
      fallback: () => {
        firstRequest ??= Date.now();
        return Date.now() - firstRequest < 33_000
          ? errorReply('rate_limit', { retryAfterSeconds: 2, model: MODEL })
          : textReply('<json>{"response": 0}</json>');
      },
    });
    result = await runCli(
      'generate-loop',
      [
        ...['--domains', 'arithmetic', '--model', `openai/${MODEL}`, '--generations', '0'],
        ...['--eval-samples', '2', '--eval-workers', '1', '--sandbox', 'none', '--out', tmp],
      ],
      { OPENAI_API_KEY: 'sk-test-e2e-0000', OPENAI_BASE_URL: `${server.url}/v1` },
    );
  }, 300_000);
  afterAll(async () => {
    await server?.close();
  });

  it('says the model has been failing and is being retried, then that it answers again', () => {
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n');
    const failing = lines.findIndex((l) =>
      /^openai\/gpt-4o-mini: failing for \d+ s \(429 rate limited\), retrying$/.test(l),
    );
    const answering = lines.findIndex((l) =>
      /^openai\/gpt-4o-mini: answering again after \d+ s of failures$/.test(l),
    );
    expect(failing, result.stderr).toBeGreaterThanOrEqual(0);
    expect(answering, result.stderr).toBeGreaterThan(failing);
    const seconds = (line: string): number => Number(/ (\d+) s /.exec(line)![1]);
    expect(seconds(lines[failing]!)).toBeGreaterThanOrEqual(30);
    expect(seconds(lines[answering]!)).toBeGreaterThanOrEqual(33);
    expect(lines.filter((l) => l.includes(': failing for '))).toHaveLength(1);
  });
});

describe('Ctrl-C while the model is being retried', () => {
  let server: FakeServer;
  let exit: { code: number | null; stderr: string; afterSignalMs: number; requestsAfterExit: number };

  beforeAll(async () => {
    // Rate limited for good: every call is retried every 2 s until its 600 s are up.
    server = await startFakeServer({
      fallback: () => errorReply('rate_limit', { retryAfterSeconds: 2, model: 'gpt-4o-mini' }),
    });
    const out = path.join(tmp, 'interrupted');
    const child = spawn(
      process.execPath,
      [
        path.join(PROJECT_ROOT, 'bin', 'generate-loop.mjs'),
        ...['--domains', 'arithmetic', '--model', 'openai/gpt-4o-mini', '--eval-samples', '4'],
        ...['--eval-workers', '2', '--out', out],
      ],
      {
        env: { ...process.env, OPENAI_API_KEY: 'sk-test-e2e-0000', OPENAI_BASE_URL: `${server.url}/v1` },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Both workers' calls have failed and wait to be retried.
    await vi.waitFor(() => expect(server.requests.length).toBeGreaterThanOrEqual(4), {
      timeout: 120_000,
      interval: 100,
    });
    const signalled = Date.now();
    child.kill('SIGINT');
    const code = await closed;
    const afterSignalMs = Date.now() - signalled;
    const seen = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    exit = { code, stderr, afterSignalMs, requestsAfterExit: server.requests.length - seen };
  }, 300_000);
  afterAll(async () => {
    await server?.close();
  });

  it('stops the run at once, instead of retrying until the task timeout', () => {
    expect(exit.code, exit.stderr).toBe(130);
    expect(exit.stderr).toContain('generate-loop: interrupted; finished work is kept');
    // The task timeout is 300 s and each call would be retried for 600 s: the run must not wait for either.
    expect(exit.afterSignalMs).toBeLessThan(60_000);
    expect(exit.requestsAfterExit).toBe(0);
  });
});
