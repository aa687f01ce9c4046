import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-batch-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The task model of these runs: one line here to run the flow against another provider's batch endpoint. */
const TASK_MODEL = ['--model', 'sim'];
const RUN = [
  ...['--domains', 'arithmetic', '--generations', '0', '--seed', '5', '--eval-samples', '6'],
  ...['--eval-workers', '2', '--sim-price-per-mtok', '50', '--batch-poll', '1', '--json'],
  ...TASK_MODEL,
];

interface Run {
  stderr: string;
  results: { task_id: string; score: number; prediction: string | null; cost_usd: number }[];
  calls: { batch: number; cost_usd: number; status: string }[];
  batches: { state: string; provider_state: string; requests: number; done: number; failed: number }[];
}

/** A run in its own folder (no cached result reused), and what its archive holds. */
async function run(name: string, extra: string[]): Promise<Run> {
  const result = await runCli('generate-loop', [...RUN, ...extra, '--out', path.join(tmp, name)]);
  expect(result.code, result.stderr).toBe(0);
  const summary = JSON.parse(result.stdout) as RunSummary;
  const db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
  try {
    return {
      stderr: result.stderr,
      results: db
        .prepare('SELECT task_id, score, prediction, cost_usd FROM task_results ORDER BY task_id')
        .all() as Run['results'],
      calls: db
        .prepare("SELECT batch, cost_usd, status FROM llm_calls WHERE role = 'task' ORDER BY id")
        .all() as Run['calls'],
      batches: db
        .prepare('SELECT state, provider_state, requests, done, failed FROM batches ORDER BY id')
        .all() as Run['batches'],
    };
  } finally {
    db.close();
  }
}

const sum = (xs: readonly { cost_usd: number }[]): number => xs.reduce((s, x) => s + x.cost_usd, 0);
const answers = (r: Run) =>
  r.results.map(({ task_id, score, prediction }) => ({ task_id, score, prediction }));

describe('generate-loop --batch on the simulated batch endpoint', () => {
  let plain: Run;
  beforeAll(async () => {
    plain = await run('plain', []);
  }, 600_000);

  it('gives the same per-task results as without it, every evaluation call inside one batch, at half the cost', async () => {
    const batched = await run('batched', ['--batch']);
    expect(answers(batched)).toEqual(answers(plain));
    expect(batched.calls.length).toBe(plain.calls.length);
    expect(batched.calls.every((c) => c.batch === 1)).toBe(true);
    expect(sum(batched.calls)).toBeCloseTo(sum(plain.calls) / 2, 10);
    for (const [i, r] of batched.results.entries())
      expect(r.cost_usd).toBeCloseTo(plain.results[i]!.cost_usd / 2, 10);
    // One task call each: one round, one batch holding all twelve.
    expect(batched.batches).toEqual([
      { state: 'ended', provider_state: 'ended', requests: 12, done: 12, failed: 0 },
    ]);
    expect(batched.stderr).toContain("the MetaAgent's calls and workspace tasks are not batched");
  }, 600_000);

  it('asks the requests of an expired batch as ordinary calls, and the run finishes with the same results', async () => {
    const expired = await run('expired', ['--batch', '--sim-batch', 'expire']);
    expect(answers(expired)).toEqual(answers(plain));
    expect(expired.batches).toEqual([
      { state: 'ended', provider_state: 'expired', requests: 12, done: 0, failed: 12 },
    ]);
    expect(expired.calls.every((c) => c.batch === 0 && c.status === 'ok')).toBe(true);
    expect(sum(expired.calls)).toBeCloseTo(sum(plain.calls), 10);
    expect(expired.stderr).toMatch(
      /12 of 12 requests were not answered by batch \S+ \(12 expired\): they are asked as ordinary calls/,
    );
  }, 600_000);

  it('asks only the requests a batch errored on as ordinary calls', async () => {
    const partial = await run('partial', ['--batch', '--sim-batch', 'errors=0.4']);
    expect(answers(partial)).toEqual(answers(plain));
    const [batch] = partial.batches;
    expect(batch?.failed).toBeGreaterThan(0);
    expect(batch?.done).toBeGreaterThan(0);
    expect(partial.calls.filter((c) => c.batch === 0).length).toBe(batch?.failed);
    expect(partial.calls.filter((c) => c.batch === 1).length).toBe(batch?.done);
    expect(partial.stderr).toContain(`${batch?.failed} of 12 requests were not answered`);
  }, 600_000);

  it('is refused, with what to do, for options that need it or a run that cannot use it', async () => {
    const alone = await runCli('generate-loop', [
      ...RUN,
      '--sim-batch',
      'expire',
      '--out',
      path.join(tmp, 'refused'),
    ]);
    expect(alone.code).not.toBe(0);
    expect(alone.stderr).toContain('give --batch and --task-model sim too');
    expect(alone.stderr).not.toMatch(/\n\s+at /);
  }, 600_000);
});
