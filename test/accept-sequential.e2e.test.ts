import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { promptEdit } from './prompt-edit.ts';
import { runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-accept-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Variant 1 asks for answers without working (much worse on arithmetic); variant 2, from variant 0 (the best),
 * asks for careful working (much better).
 */
const SCRIPT = {
  meta: [
    promptEdit('Answer immediately without working and round the final answer.', 'Asked for quick answers.'),
    promptEdit(
      'Think step by step, write down every intermediate quantity and double-check the arithmetic.',
      'Asked for careful working.',
    ),
  ],
};

async function loop(accept: 'full' | 'sequential'): Promise<{ summary: RunSummary; runDir: string }> {
  const script = path.join(tmp, 'script.json');
  writeFileSync(script, JSON.stringify(SCRIPT));
  const out = path.join(tmp, accept);
  const result = await runCli('generate-loop', [
    ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '2'],
    ...['--parent-selection', 'best', '--accept', accept, '--out', out, '--run-id', 'r', '--json', '--quiet'],
  ]);
  expect(result.code, result.stderr).toBe(0);
  return { summary: JSON.parse(result.stdout) as RunSummary, runDir: path.join(out, 'r') };
}

const taskCalls = (runDir: string, variant: number): number => {
  const db = new Database(path.join(runDir, 'archive.sqlite'), { readonly: true });
  try {
    const row = db
      .prepare(`SELECT COUNT(*) AS n FROM llm_calls WHERE role = 'task' AND variant_id = ?`)
      .get(variant) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
};

describe('generate-loop --accept sequential', () => {
  let sequential: Awaited<ReturnType<typeof loop>>;
  let full: Awaited<ReturnType<typeof loop>>;

  beforeAll(async () => {
    [sequential, full] = await Promise.all([loop('sequential'), loop('full')]);
  }, 300_000);

  const variant = (run: { summary: RunSummary }, id: number) =>
    run.summary.variants.find((v) => v.id === id)!;

  it('stops a child shown worse than its parent early, and its score is an estimate from the tasks used', () => {
    const worse = variant(sequential, 1).acceptance!;
    expect(worse).toMatchObject({ decision: 'worse', parentId: 0, of: 80 });
    expect(worse.tasks).toBeLessThan(80);
    expect(worse.futility).toBeGreaterThanOrEqual(1 / 0.2);
    expect(taskCalls(sequential.runDir, 1)).toBeLessThan(taskCalls(full.runDir, 1));
    expect(variant(sequential, 1).score).not.toBeNull();
  });

  it('decides a clearly better child better, and stops there too: the answer is known', () => {
    const better = variant(sequential, 2).acceptance!;
    expect(better).toMatchObject({ decision: 'better', parentId: 0, of: 80 });
    expect(better.evidence).toBeGreaterThanOrEqual(1 / 0.05);
    expect(better.tasks).toBeLessThan(80);
    expect(taskCalls(sequential.runDir, 2)).toBeLessThan(taskCalls(full.runDir, 2));
    // Its selection split (val) is run to the end, so the score that ranks it is the same as under full.
    expect(variant(sequential, 2).score).toBe(variant(full, 2).score);
  });

  it('evaluates variant 0, which has no parent, in full, and decides nothing under --accept full', () => {
    expect(variant(sequential, 0).acceptance).toBeNull();
    expect(variant(sequential, 0).score).toBe(variant(full, 0).score);
    expect(full.summary.variants.every((v) => v.acceptance === null)).toBe(true);
  });

  it('shows the decisions in archive list and archive show, with the estimate marked', async () => {
    const list = await runCli('hyperagents', ['archive', 'list', sequential.runDir]);
    expect(list.code, list.stderr).toBe(0);
    const row = (id: number) => list.stdout.split('\n').find((l) => l.startsWith(`${id} `))!;
    expect(row(1)).toMatch(/~0\.\d{3}.*worse \d+\/80/);
    expect(row(2)).toMatch(/^2 +0 +evaluated +0\.\d{3} .*better \d+\/80/);
    expect(list.stdout).toContain('~: an estimate from those tasks');
    const show = await runCli('hyperagents', ['archive', 'show', `${sequential.runDir}:1`]);
    expect(show.stdout).toMatch(/acceptance: worse than variant 0, stopped early/);
    const json = await runCli('hyperagents', ['archive', 'show', `${sequential.runDir}:1`, '--json']);
    expect(JSON.parse(json.stdout).variant.acceptance).toMatchObject({ decision: 'worse', of: 80 });
  });
});
