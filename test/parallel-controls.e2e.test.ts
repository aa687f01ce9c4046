import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, startCli } from './kill-points.ts';
import { runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-parallel-controls-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const control = (...words: string[]) => runCli('hyperagents', ['control', ...words, '--runs', tmp]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A run of 40 generations, 3 at once, slow enough per call that generations overlap, at a nominal price. */
const parallelRun = (id: string, ...extra: string[]) =>
  startCli([
    ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '40', '--parallel', '3', '--seed', '4'],
    ...['--eval-samples', '6', '--sim-latency-ms', '150', '--sim-price-per-mtok', '100'],
    ...['--out', tmp, '--run-id', id, '--quiet', ...extra],
  ]);

const variants = (runDir: string) =>
  (readArchive(runDir, (db: Database.Database) =>
    db.prepare('SELECT id, step FROM variants WHERE id > 0 ORDER BY id').all(),
  ) ?? []) as { id: number; step: string }[];
const ended = (v: { step: string }) => v.step === 'done' || v.step === 'failed';
const inFlight = (runDir: string) => variants(runDir).filter((v) => !ended(v)).length;
const spent = (runDir: string) =>
  (
    readArchive(runDir, (db: Database.Database) =>
      db.prepare('SELECT SUM(cost_usd) AS usd FROM llm_calls').get(),
    ) as {
      usd: number;
    }
  ).usd;
const events = (runDir: string, type: string) =>
  (
    (readArchive(runDir, (db: Database.Database) =>
      db.prepare('SELECT data FROM events WHERE type = ? ORDER BY id').all(type),
    ) ?? []) as { data: string }[]
  ).map((e) => JSON.parse(e.data) as Record<string, unknown>);

async function until(what: () => boolean, timeoutMs = 300_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(100);
  }
}

describe('controls on a --parallel 3 run', () => {
  it('pause holds new generations across a SIGKILL and --resume; a lowered budget stops the spend there', async () => {
    const runDir = path.join(tmp, 'paused');
    let run = parallelRun('paused');
    await until(() => inFlight(runDir) >= 2);
    expect((await control('paused', 'pause')).code).toBe(0);
    // Killed while generations are under way: the resumed process finishes them and starts none.
    await sleep(500);
    run.child.kill('SIGKILL');
    await run.done;
    const atKill = variants(runDir).length;
    expect(inFlight(runDir)).toBeGreaterThan(0);
    run = startCli(['--resume', 'paused', '--out', tmp, '--quiet']);
    await until(() => events(runDir, 'resumed').length === 1);
    expect(events(runDir, 'resumed')[0]!.carried).toMatchObject({ paused: true });
    await until(() => inFlight(runDir) === 0);
    await sleep(3000);
    expect(variants(runDir).length).toBe(atKill);

    // A budget a little above the spend, then resume: the run spends up to it and stops there.
    const budget = spent(runDir) + 0.5;
    expect((await control('paused', 'budget', budget.toFixed(4))).code).toBe(0);
    expect((await control('paused', 'resume')).code).toBe(0);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/budget reached: \$\d+\.\d{4} of \$\d+\.\d{4} spent/);
    expect(variants(runDir).length).toBeGreaterThan(atKill);
    expect(variants(runDir).length).toBeLessThan(41);
    expect(variants(runDir).every(ended)).toBe(true);
    // At most one reply over: far less than one more generation's evaluation.
    expect(spent(runDir)).toBeLessThan(budget + 0.05);
    expect(events(runDir, 'budget_reached')).toHaveLength(1);
  }, 600_000);

  it('stop-after lets the generations under way finish and starts none', async () => {
    const runDir = path.join(tmp, 'stopped');
    const run = parallelRun('stopped');
    await until(() => inFlight(runDir) >= 2);
    expect((await control('stopped', 'stop-after')).code).toBe(0);
    await sleep(300);
    const atStop = variants(runDir);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('stopped when asked (stop-after)');
    const after = variants(runDir);
    expect(after.map((v) => v.id)).toEqual(atStop.map((v) => v.id));
    expect(after.every(ended)).toBe(true);
    // Those under way ran to their own end: none was cut short by the stop.
    const reasons = readArchive(runDir, (db: Database.Database) =>
      db.prepare("SELECT failure_reason FROM variants WHERE step = 'failed'").all(),
    ) as { failure_reason: string | null }[];
    for (const r of reasons) expect(r.failure_reason ?? '').not.toMatch(/interrupt|stopp/i);
  }, 600_000);
});
