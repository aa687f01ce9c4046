import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../queue/testing/redis-server.ts';
import { runCli } from '../run-cli.ts';
import { workerSet } from './workers.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-task-costs-queue-'));
let redis: TestRedis;
const workers = workerSet(() => redis.url);

beforeAll(async () => {
  redis = await startRedis();
}, 600_000);

afterAll(async () => {
  await workers.stopAll();
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('task costs of a run through queue workers', () => {
  it("cost each task what its TaskAgent's calls to the coordinator's gateway cost, adding up to the TaskAgent spend", async () => {
    await workers.restart(2);
    const out = path.join(tmp, 'queued');
    const run = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--seed', '2', '--generations', '0'],
      ...['--eval-samples', '4', '--eval-workers', '2', '--sim-price-per-mtok', '50'],
      ...['--out', out, '--run-id', 'run', '--queue', redis.url, '--json'],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const db = new Database(path.join(out, 'run', 'archive.sqlite'), { readonly: true });
    try {
      const results = db.prepare('SELECT task_id, cost_usd FROM task_results WHERE variant_id = 0').all() as {
        task_id: string;
        cost_usd: number;
      }[];
      expect(results.length).toBeGreaterThan(2);
      const own = db.prepare(
        "SELECT COALESCE(SUM(cost_usd), 0) AS cost FROM llm_calls WHERE variant_id = 0 AND role = 'task' AND task_domain = 'arithmetic' AND task_id = ?",
      );
      for (const r of results) {
        expect(r.cost_usd).toBeGreaterThan(0);
        expect(r.cost_usd).toBeCloseTo((own.get(r.task_id) as { cost: number }).cost, 10);
      }
      const spent = db
        .prepare("SELECT SUM(cost_usd) AS cost FROM llm_calls WHERE variant_id = 0 AND role = 'task'")
        .get() as { cost: number };
      expect(results.reduce((sum, r) => sum + r.cost_usd, 0)).toBeCloseTo(spent.cost, 10);
    } finally {
      db.close();
    }
  });
});
