import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, startCli, waitFor } from './kill-points.ts';
import { runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-control-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const control = (...words: string[]) => runCli('hyperagents', ['control', ...words, '--runs', tmp]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const variants = (runDir: string) =>
  readArchive(runDir, (db: Database.Database) =>
    db.prepare('SELECT id, step FROM variants ORDER BY id').all(),
  ) as { id: number; step: string }[];
const ended = (v: { step: string }) => v.step === 'done' || v.step === 'failed';
const events = (runDir: string, type: string) =>
  readArchive(runDir, (db: Database.Database) =>
    db.prepare('SELECT data FROM events WHERE type = ? ORDER BY id').all(type),
  ) as { data: string }[];

async function until(what: () => boolean, timeoutMs = 240_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(100);
  }
}

describe('hyperagents control on a running sim run', () => {
  it('pauses, takes a note and a budget, resumes, and stops after the generations under way', async () => {
    const runDir = path.join(tmp, 'steered');
    const run = startCli([
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '30', '--seed', '4'],
      ...['--eval-samples', '6', '--out', tmp, '--run-id', 'steered', '--quiet'],
    ]);
    expect(await waitFor(runDir, run, { variant: 1, step: 'selected' })).toBe(true);

    const paused = await control('steered', 'pause');
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toContain('run steered: paused');
    // What was under way ends; nothing new starts while paused.
    await until(() => variants(runDir).every(ended));
    const atPause = variants(runDir).length;
    await sleep(3000);
    expect(variants(runDir).length).toBe(atPause);

    const note = await control('steered', 'note', 'try', 'smaller edits');
    expect(note.code, note.stderr).toBe(0);
    const bad = await control('steered', 'budget', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('budget takes an amount of US dollars, 0 or more');
    expect((await control('steered', 'budget', '100')).code).toBe(0);
    const unknown = await control('steered', 'halt');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      '"halt" is not a control; use one of pause, resume, stop-after, budget, note',
    );

    expect((await control('steered', 'resume')).code).toBe(0);
    await until(() => variants(runDir).length > atPause);
    const stop = await control(runDir, 'stop-after');
    expect(stop.code, stop.stderr).toBe(0);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('stopped when asked (stop-after)');
    expect(result.stderr).toContain('--resume');
    const all = variants(runDir);
    expect(all.length).toBeLessThan(31);
    expect(all.every(ended)).toBe(true);
    expect(events(runDir, 'stopped_after')).toHaveLength(1);
    const actions = events(runDir, 'control').map((e) => JSON.parse(e.data));
    expect(actions).toEqual([
      { action: 'pause' },
      { action: 'note', value: 'try smaller edits' },
      { action: 'budget', value: 100 },
      { action: 'resume' },
      { action: 'stop-after' },
    ]);
    const status = readArchive(runDir, (db: Database.Database) =>
      db.prepare('SELECT status FROM runs').get(),
    );
    expect(status).toEqual({ status: 'stopped' });

    const late = await control('steered', 'pause');
    expect(late.code).toBe(2);
    expect(late.stderr).toContain('run steered is not running');
    expect(late.stderr).toContain('--resume');
  }, 600_000);

  it('stops a run as at its budget when the budget is lowered below what it spent', async () => {
    const runDir = path.join(tmp, 'lowered');
    const run = startCli([
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '30', '--seed', '3'],
      ...['--eval-samples', '6', '--sim-price-per-mtok', '100', '--budget-usd', '500'],
      ...['--out', tmp, '--run-id', 'lowered', '--quiet'],
    ]);
    expect(await waitFor(runDir, run, { variant: 1, step: 'selected' })).toBe(true);
    const lowered = await control('lowered', 'budget', '0.01');
    expect(lowered.code, lowered.stderr).toBe(0);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/budget reached: \$\d+\.\d{4} of \$0\.0100 spent/);
    expect(variants(runDir).length).toBeLessThan(5);
    expect(events(runDir, 'budget_reached')).toHaveLength(1);
  }, 600_000);
});
