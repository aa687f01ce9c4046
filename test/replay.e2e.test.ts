import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-replay-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const RUN = ['--domains', 'arithmetic', '--generations', '2', '--seed', '3', '--eval-samples', '10'];
const recording = path.join(tmp, 'calls.jsonl');

async function run(out: string, ...extra: string[]): Promise<RunSummary> {
  const result = await runCli('generate-loop', [...RUN, '--out', path.join(tmp, out), '--json', ...extra]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as RunSummary;
}

interface LedgerRow {
  status: string;
  attempts: number;
  retried: string | null;
  replayed: number;
  cost_usd: number;
}

function ledger(summary: RunSummary): LedgerRow[] {
  const db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
  const rows = db.prepare('SELECT status, attempts, retried, replayed, cost_usd FROM llm_calls').all();
  db.close();
  return rows as LedgerRow[];
}

const scores = (s: RunSummary) => s.variants.map((v) => [v.id, v.parent, v.status, v.score, v.scores]);

/** One recorded run serves as the baseline of both the replay and the fault-injection run. */
let recorded: RunSummary;
beforeAll(async () => {
  recorded = await run('recorded', '--record', recording, '--sim-price-per-mtok', '5');
}, 600_000);

describe('generate-loop --record, then --replay in another --out folder', () => {
  let replayed: RunSummary;
  beforeAll(async () => {
    replayed = await run('replayed', '--replay', recording);
  }, 600_000);

  it('gives the same archive scores per variant', () => {
    expect(replayed.runDir).not.toBe(recorded.runDir);
    expect(path.dirname(replayed.runDir)).not.toBe(path.dirname(recorded.runDir));
    expect(recorded.variants.length).toBe(3);
    expect(scores(replayed)).toEqual(scores(recorded));
    expect(replayed.llmCalls).toBe(recorded.llmCalls);
  });

  it('calls no model: every ledger row is replayed, with no provider attempt and no cost', () => {
    const rows = ledger(replayed);
    expect(rows.length).toBe(replayed.llmCalls);
    expect(
      rows.every((r) => r.status === 'ok' && r.replayed === 1 && r.attempts === 0 && r.cost_usd === 0),
    ).toBe(true);
    expect(replayed.costUsd).toBe(0);
    expect(recorded.costUsd).toBeGreaterThan(0);
    expect(ledger(recorded).every((r) => r.replayed === 0 && r.attempts >= 1)).toBe(true);
  });

  it('keeps one JSON line per recorded call, free of the recorded run’s folder', () => {
    const text = readFileSync(recording, 'utf8');
    const lines = text.trimEnd().split('\n');
    expect(lines.length).toBe(recorded.llmCalls);
    for (const line of lines)
      expect(Object.keys(JSON.parse(line) as object)).toEqual(['key', 'request', 'response']);
    expect(text).not.toContain(tmp);
    expect(text).toContain('<RUN_DIR>/worktrees/variant-1');
  });
});

describe('generate-loop --sim-fault-rate', () => {
  let faulty: RunSummary;
  beforeAll(async () => {
    faulty = await run('faulty', '--sim-fault-rate', '0.2', '--sim-retry-ms', '1');
  }, 600_000);

  it('completes with the same scores as without faults: retries hide them', () => {
    expect(scores(faulty)).toEqual(scores(recorded));
  });

  it('records the retries in the ledger: attempts per call and the errors retried', () => {
    const rows = ledger(faulty);
    expect(rows.every((r) => r.status === 'ok')).toBe(true);
    const retried = rows.filter((r) => r.attempts > 1);
    // About one attempt in five fails; far fewer than a tenth of the calls retried would mean no faults.
    expect(retried.length).toBeGreaterThan(rows.length / 10);
    for (const r of retried) {
      const errors = JSON.parse(r.retried ?? '[]') as string[];
      expect(errors).toHaveLength(r.attempts - 1);
      for (const e of errors)
        expect(e).toMatch(/^(rate_limit|provider_error|timeout): sim \(simulated fault\)/);
    }
    expect(rows.filter((r) => r.attempts === 1).every((r) => r.retried === null)).toBe(true);
  });
});
