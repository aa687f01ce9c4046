import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { readArchive, startCli } from './kill-points.ts';
import { until } from './processes.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-batch-resume-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const RUN = [
  ...['--domains', 'arithmetic', '--generations', '0', '--seed', '7', '--eval-samples', '6'],
  ...['--eval-workers', '2', '--model', 'sim', '--sim-price-per-mtok', '50', '--batch-poll', '1'],
  // Pending for 6 polls (about 7 s): long enough to be killed while pending.
  ...['--batch', '--sim-batch', 'polls=6', '--json'],
];

const read = (runDir: string, sql: string) => {
  const db = new Database(path.join(runDir, 'archive.sqlite'), { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};

describe('a --batch run killed with SIGKILL while its batch is pending, then resumed', () => {
  it('collects that batch instead of submitting another, charges each request once, and ends with the same results', async () => {
    const whole = startCli([...RUN, '--out', path.join(tmp, 'whole'), '--run-id', 'run']);
    expect((await whole.done).code).toBe(0);
    const killedDir = path.join(tmp, 'killed', 'run');
    const first = startCli([...RUN, '--out', path.join(tmp, 'killed'), '--run-id', 'run']);
    await until('a submitted batch', () =>
      // `get()` is undefined while no batch is submitted: waited for as null.
      readArchive(
        killedDir,
        (db) =>
          db
            .prepare("SELECT 1 FROM batches WHERE provider_batch_id IS NOT NULL AND state = 'pending'")
            .get() ?? null,
      ),
    );
    first.child.kill('SIGKILL');
    await first.done;
    const resumed = await startCli(['--resume', killedDir, '--json']).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout) as RunSummary;
    const results = (dir: string) =>
      read(dir, 'SELECT task_id, score, prediction, cost_usd FROM task_results ORDER BY task_id');
    expect(results(summary.runDir)).toEqual(results(path.join(tmp, 'whole', 'run')));
    expect(read(killedDir, 'SELECT state, requests FROM batches')).toEqual([
      { state: 'ended', requests: 12 },
    ]);
    // Every request charged once, through the batch.
    expect(
      read(killedDir, "SELECT COUNT(*) AS n, SUM(batch) AS b FROM llm_calls WHERE role = 'task'"),
    ).toEqual([{ n: 12, b: 12 }]);
  }, 600_000);
});
