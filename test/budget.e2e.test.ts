import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { DEFAULT_MAX_TOKENS } from '../llm/index.ts';
import { readArchive, startCli } from './kill-points.ts';
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
    expect(summary.stopped).toMatch(
      /^budget reached: \$\d+\.\d{4} of \$3\.0000 spent, nothing held by calls in flight, and the next call's input alone costs about \$\d+\.\d{4}$/,
    );
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

describe('a small budget with many calls in flight and faults (8 evaluation workers, 30 % of attempts failing)', () => {
  const out = path.join(tmp, 'in-flight');
  const LIMIT = 0.05;
  let result: CliResult;
  let summary: RunSummary;
  let db: Database.Database;

  beforeAll(async () => {
    // Every task call may cost up to $0.025 (8192 output tokens at $3/M), half the budget: two such calls
    // in flight hold all of it, while each costs about $0.0004. Calls wait for each other instead of ending
    // the run.
    result = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--sim-price-per-mtok', '3'],
      ...['--budget-usd', String(LIMIT), '--sim-fault-rate', '0.3', '--eval-workers', '8'],
      ...['--out', out, '--json'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    summary = JSON.parse(result.stdout) as RunSummary;
    db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
  }, 600_000);
  afterAll(() => db?.close());

  it('scores variant 0 on every task, with no call refused for money held by calls in flight', () => {
    expect(summary.variants[0]).toMatchObject({ status: 'evaluated', validParent: true });
    expect(summary.variants[0]!.score).toBeGreaterThan(0);
    const v0 = db
      .prepare(
        "SELECT COUNT(*) AS n, SUM(outcome = 'error') AS errors FROM task_results WHERE variant_id = 0",
      )
      .get() as { n: number; errors: number };
    expect(v0.n).toBeGreaterThan(0);
    expect(v0.errors).toBe(0);
    const refusals = db
      .prepare("SELECT error FROM llm_calls WHERE status = 'budget_exceeded' ORDER BY id")
      .all() as { error: string }[];
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]!.error).toMatch(/no call in flight/);
    expect(refusals.some((r) => /held by calls in flight/.test(r.error))).toBe(false);
  });

  it('spends at least 80 % of the budget before it stops, and the stop line is true when printed', () => {
    const spent = (db.prepare('SELECT SUM(cost_usd) AS spent FROM llm_calls').get() as { spent: number })
      .spent;
    expect(spent).toBeGreaterThanOrEqual(0.8 * LIMIT);
    expect(summary.costUsd).toBeCloseTo(spent, 10);
    const stopped =
      /^budget reached: \$(\d+\.\d{4}) of \$0\.0500 spent, nothing held by calls in flight, and the next call's input alone costs about \$(\d+\.\d{4})$/.exec(
        summary.stopped ?? '',
      );
    expect(stopped, String(summary.stopped)).not.toBeNull();
    expect(Number(stopped![1])).toBeCloseTo(spent, 4);
    // Reached indeed: what was spent and what the next call needed do not fit the budget together.
    const event = db.prepare("SELECT data FROM events WHERE type = 'budget_reached'").get() as {
      data: string;
    };
    const reached = JSON.parse(event.data) as { spentUsd: number; heldUsd: number; nextCallUsd: number };
    expect(reached.heldUsd).toBe(0);
    expect(reached.spentUsd + reached.nextCallUsd).toBeGreaterThan(LIMIT);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toContain(`generate-loop: ${summary.stopped}.`);
  });
});

describe('Ctrl-C while calls wait for the budget', () => {
  const out = path.join(tmp, 'interrupted');
  const runDir = path.join(out, 'waiting');
  const args = [
    ...['--domains', 'arithmetic', '--model', 'sim', '--sim-price-per-mtok', '3', '--budget-usd', '0.05'],
    ...['--sim-fault-rate', '0.3', '--eval-workers', '8', '--sim-latency-ms', '50'],
  ];
  let interrupted: CliResult;

  beforeAll(async () => {
    const run = startCli([...args, '--out', out, '--run-id', 'waiting']);
    // Eight workers ask at once and at most two calls fit: most of them are waiting when Ctrl-C comes.
    const calls = (): number =>
      readArchive(
        runDir,
        (db) => (db.prepare('SELECT COUNT(*) AS n FROM llm_calls').get() as { n: number }).n,
      ) ?? 0;
    await vi.waitFor(() => expect(calls()).toBeGreaterThanOrEqual(10), { timeout: 120_000, interval: 100 });
    run.child.kill('SIGINT');
    interrupted = await run.done;
  }, 180_000);

  it('stops the run cleanly as interrupted, not as a budget stop, and leaves no agent running', () => {
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(interrupted.stderr).toContain('generate-loop: interrupted; finished work is kept');
    expect(interrupted.stderr).not.toMatch(/budget reached/);
    expect(processesIn(runDir)).toEqual([]);
    const db = new Database(path.join(runDir, 'archive.sqlite'), { readonly: true });
    try {
      // Calls were waiting when Ctrl-C came: they ended without calling the model, and the ledger says why.
      const abandoned = db
        .prepare(
          "SELECT COUNT(*) AS n FROM llm_calls WHERE attempts = 0 AND error LIKE 'the run is stopping (interrupted)%'",
        )
        .get() as { n: number };
      expect(abandoned.n).toBeGreaterThan(0);
      expect(
        db.prepare("SELECT COUNT(*) AS n FROM llm_calls WHERE status = 'budget_exceeded'").get(),
      ).toEqual({
        n: 0,
      });
      expect(db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'budget_reached'").get()).toEqual({
        n: 0,
      });
    } finally {
      db.close();
    }
  });

  it('resumes to score variant 0 within what is left of the budget', async () => {
    const resumed = await runCli('generate-loop', ['--resume', runDir, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout) as RunSummary;
    expect(summary.variants[0]).toMatchObject({ status: 'evaluated' });
    expect(summary.stopped).toMatch(/^budget reached: \$0\.0[45]\d\d of \$0\.0500 spent, nothing held/);
  }, 300_000);
});
