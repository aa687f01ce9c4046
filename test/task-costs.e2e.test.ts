import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-task-costs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface TaskCost {
  task_id: string;
  cost_usd: number;
  reused: number;
}

interface TaskCall {
  task_domain: string | null;
  task_id: string | null;
  cost_usd: number;
  ts: string;
  latency_ms: number;
}

describe('task results on the simulated model with a nominal price', () => {
  let summary: RunSummary;
  let db: Database.Database;

  beforeAll(async () => {
    // One TaskAgent process runs two tasks at once, each call taking a while: their calls overlap in time.
    const result = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--generations', '0', '--seed', '5', '--eval-samples', '6'],
      ...['--eval-workers', '2', '--tasks-per-worker', '2', '--sim-latency-ms', '300'],
      ...['--sim-price-per-mtok', '50', '--out', tmp, '--json'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    summary = JSON.parse(result.stdout) as RunSummary;
    db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
  }, 600_000);
  afterAll(() => db?.close());

  const taskResults = (): TaskCost[] =>
    db
      .prepare('SELECT task_id, cost_usd, reused FROM task_results WHERE variant_id = 0 ORDER BY task_id')
      .all() as TaskCost[];
  const taskCalls = (): TaskCall[] =>
    db
      .prepare(
        "SELECT task_domain, task_id, cost_usd, ts, latency_ms FROM llm_calls WHERE variant_id = 0 AND role = 'task' ORDER BY id",
      )
      .all() as TaskCall[];

  it('stores a nonzero cost for every task, and the costs add up to the TaskAgent spend of the evaluation', () => {
    const results = taskResults();
    expect(results.length).toBeGreaterThan(2);
    for (const r of results) {
      expect(r.reused).toBe(0);
      expect(r.cost_usd).toBeGreaterThan(0);
    }
    const stored = results.reduce((sum, r) => sum + r.cost_usd, 0);
    const spent = taskCalls().reduce((sum, c) => sum + c.cost_usd, 0);
    expect(stored).toBeCloseTo(spent, 10);
    const tokens = (sql: string) => Object.values(db.prepare(sql).get() as Record<string, number>);
    expect(
      tokens('SELECT SUM(input_tokens), SUM(output_tokens) FROM task_results WHERE variant_id = 0'),
    ).toEqual(
      tokens(
        "SELECT SUM(input_tokens), SUM(output_tokens) FROM llm_calls WHERE variant_id = 0 AND role = 'task'",
      ),
    );
    expect(tokens('SELECT MIN(input_tokens) FROM task_results WHERE variant_id = 0')[0]).toBeGreaterThan(0);
  });

  it('gives each of two tasks that ran at once in one worker the cost of its own calls', () => {
    const calls = taskCalls();
    const results = new Map(taskResults().map((r) => [r.task_id, r.cost_usd]));
    for (const call of calls) {
      expect(call.task_domain).toBe('arithmetic');
      expect(results.has(call.task_id ?? '')).toBe(true);
    }
    const start = (c: TaskCall) => Date.parse(c.ts);
    const overlapping = calls.flatMap((a, i) =>
      calls
        .slice(i + 1)
        .filter((b) => b.task_id !== a.task_id && start(b) < start(a) + a.latency_ms)
        .map((b) => [a, b] as const),
    );
    expect(overlapping.length).toBeGreaterThan(0);
    for (const [a, b] of overlapping) {
      for (const task of [a.task_id!, b.task_id!]) {
        const own = calls.filter((c) => c.task_id === task).reduce((sum, c) => sum + c.cost_usd, 0);
        expect(results.get(task)).toBeCloseTo(own, 10);
      }
    }
  });

  it('shows each task’s cost in `hyperagents archive tasks`', async () => {
    const shown = await runCli('hyperagents', [
      ...['archive', 'tasks', `${path.basename(summary.runDir)}:0`, '--runs', tmp],
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    const first = taskResults()[0]!;
    const row = shown.stdout.split('\n').find((line) => line.includes(` ${first.task_id} `));
    expect(row).toContain(`$${first.cost_usd.toFixed(4)}`);
    expect(shown.stdout).not.toMatch(/\$0\.0000/);
  });
});
