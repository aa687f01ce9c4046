import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, openArchive } from '../archive/index.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-ledger-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

describe('the ledger of model calls', () => {
  it('upgrades an archive written before the ledger had attempts, replay and adaptation columns', () => {
    const file = path.join(tmp, 'old.sqlite');
    const old = new Database(file);
    old.exec('CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
    old.exec(MIGRATIONS[0]!.sql);
    old.prepare("INSERT INTO migrations VALUES ('001-initial', '2025-01-01')").run();
    old.exec(`INSERT INTO llm_calls (ts, variant_id, role, model, input_tokens, output_tokens, cache_read_tokens,
      cache_write_tokens, reasoning_tokens, cost_usd, latency_ms, status) VALUES ('t', 1, 'task', 'sim', 1, 1, 0, 0, 0, 0, 5, 'ok')`);
    old.close();

    const archive = openArchive(file);
    const names = archive.db.prepare('SELECT name FROM migrations ORDER BY name').all();
    expect(names).toEqual(MIGRATIONS.map((m) => ({ name: m.name })));
    expect(archive.db.prepare('SELECT attempts, retried, replayed, adapted FROM llm_calls').get()).toEqual({
      attempts: 1,
      retried: null,
      replayed: 0,
      adapted: null,
    });
    archive.close();
  });

  it('stores per call the latency, status, error, attempts, retried errors, replay flag and adaptation notes', () => {
    const archive = openArchive(path.join(tmp, 'new.sqlite'));
    const base = { ts: '2025-01-01T00:00:00Z', variantId: 2, role: 'meta', model: 'openai/o3', usage };
    archive.insertLlmCall({
      ...base,
      costUsd: 0.01,
      latencyMs: 1200,
      status: 'ok',
      attempts: 3,
      retried: ['rate_limit: slow down', 'provider_error: HTTP 529'],
      adapted: ['temperature dropped: openai/o3 does not accept it'],
    });
    archive.insertLlmCall({ ...base, costUsd: 0, latencyMs: 2, status: 'ok', attempts: 0, replayed: true });
    archive.insertLlmCall({
      ...base,
      costUsd: 0,
      latencyMs: 1,
      status: 'budget_exceeded',
      error: "The run's budget is reached",
      attempts: 0,
    });
    const rows = archive.db
      .prepare(
        'SELECT latency_ms, status, error, attempts, retried, replayed, adapted FROM llm_calls ORDER BY id',
      )
      .all();
    expect(rows).toEqual([
      {
        latency_ms: 1200,
        status: 'ok',
        error: null,
        attempts: 3,
        retried: '["rate_limit: slow down","provider_error: HTTP 529"]',
        replayed: 0,
        adapted: '["temperature dropped: openai/o3 does not accept it"]',
      },
      { latency_ms: 2, status: 'ok', error: null, attempts: 0, retried: null, replayed: 1, adapted: null },
      {
        latency_ms: 1,
        status: 'budget_exceeded',
        error: "The run's budget is reached",
        attempts: 0,
        retried: null,
        replayed: 0,
        adapted: null,
      },
    ]);
    archive.close();
  });
});
