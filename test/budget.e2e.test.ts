import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run.ts';
import { DEFAULT_MAX_TOKENS } from '../llm/adapt.ts';
import { type CliResult, runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-budget-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BUDGET = 3;
const PRICE_PER_MTOK = 100;

/** Processes whose working folder is inside `dir` (Linux /proc); agent processes run in worktrees there. */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`).startsWith(dir)) found.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

describe('generate-loop --budget-usd on the simulated model with a nominal price', () => {
  let result: CliResult;
  let summary: RunSummary;
  let db: Database.Database;

  beforeAll(async () => {
    result = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--generations', '5', '--seed', '3', '--eval-samples', '10'],
      ...['--eval-workers', '4', '--sim-price-per-mtok', String(PRICE_PER_MTOK)],
      ...['--budget-usd', String(BUDGET), '--out', tmp, '--json'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    summary = JSON.parse(result.stdout) as RunSummary;
    db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
  }, 600_000);
  afterAll(() => db?.close());

  it('stops cleanly with exit code 0 and says how much of the budget was spent', () => {
    expect(summary.stopped).toMatch(/^budget reached: \$\d+\.\d{4} of \$3\.0000 spent$/);
    const lastLine = result.stderr.trimEnd().split('\n').at(-1);
    expect(lastLine).toContain(`generate-loop: ${summary.stopped}. The run stopped cleanly`);
    expect(summary.variants.length).toBeLessThan(6);
    const run = db.prepare('SELECT status FROM runs').get() as { status: string };
    expect(run.status).toBe('stopped');
    expect(db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'budget_reached'").get()).toEqual({
      n: 1,
    });
  });

  it('never spends more than the budget plus one call’s maximum cost, by the ledger', () => {
    const ledger = db
      .prepare('SELECT SUM(cost_usd) AS spent, MAX(input_tokens) AS biggest FROM llm_calls')
      .get() as { spent: number; biggest: number };
    // The largest input seen, with generous room for the estimate's JSON overhead, plus the full output cap.
    const oneCallMax = ((2 * ledger.biggest + DEFAULT_MAX_TOKENS) * PRICE_PER_MTOK) / 1_000_000;
    expect(ledger.spent).toBeGreaterThan(0);
    expect(ledger.spent).toBeLessThanOrEqual(BUDGET + oneCallMax);
    expect(summary.costUsd).toBeCloseTo(ledger.spent, 10);
    const refused = db
      .prepare("SELECT attempts, error FROM llm_calls WHERE status = 'budget_exceeded' ORDER BY id LIMIT 1")
      .get() as { attempts: number; error: string };
    expect(refused.attempts).toBe(0);
    expect(refused.error).toMatch(/budget of \$3\.0000 \(--budget-usd\) is reached/);
  });

  it('records the generation the budget cut short as failed, not scored, with its failed tasks as errors', () => {
    const cut = summary.variants.at(-1)!;
    expect(cut).toMatchObject({ status: 'failed', score: null, validParent: false });
    expect(cut.failureReason).toMatch(/^stopped by the budget during .*--budget-usd was reached/);
    const cutEvaluations = db
      .prepare("SELECT COUNT(*) AS n FROM evaluations WHERE variant_id = ? AND stage = 'full'")
      .get(cut.id);
    expect(cutEvaluations).toEqual({ n: 0 });
    const wrongForBudget = db
      .prepare("SELECT COUNT(*) AS n FROM task_results WHERE error LIKE '%budget%' AND outcome != 'error'")
      .get();
    expect(wrongForBudget).toEqual({ n: 0 });
    for (const v of summary.variants.slice(0, -1)) expect(v.status).not.toBe('failed');
    expect(summary.variants.find((v) => v.id === cut.parent)?.validParent).toBe(true);
  });

  it('leaves no agent process running', () => {
    expect(processesIn(summary.runDir)).toEqual([]);
  });
});
