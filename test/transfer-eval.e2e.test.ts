import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-transfer-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const base = ['--domains', 'arithmetic', '--model', 'sim', '--seed', '2', '--eval-samples', '4', '--json'];

describe('transfer, evaluation of a stored variant, and a variant choosing parents', () => {
  let source: RunSummary;

  beforeAll(async () => {
    const result = await runCli('generate-loop', [
      ...base,
      '--generations',
      '1',
      '--edit-select-parent',
      '--out',
      tmp,
      '--run-id',
      'source',
    ]);
    expect(result.code, result.stderr).toBe(0);
    source = JSON.parse(result.stdout) as RunSummary;
  }, 900_000);

  it("--edit-select-parent: the parent is chosen by the newest candidate's agents/select-parent.ts", () => {
    const db = new Database(path.join(source.runDir, 'archive.sqlite'), { readonly: true });
    const row = db.prepare('SELECT parent_id, selection_reason FROM variants WHERE id = 1').get() as {
      parent_id: number;
      selection_reason: string;
    };
    db.close();
    expect(row).toEqual({ parent_id: 0, selection_reason: 'select-parent.ts of variant 0' });
  });

  it('hyperagents eval RUN:VARIANT --split test writes the test score into that run, and only there', async () => {
    const result = await runCli('hyperagents', [
      'eval',
      `source:0`,
      '--domains',
      'arithmetic',
      '--split',
      'test',
      '--eval-samples',
      '3',
      '--out',
      tmp,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as { scores: { arithmetic: number } };
    const db = new Database(path.join(source.runDir, 'archive.sqlite'), { readonly: true });
    const test = db
      .prepare("SELECT score, n_tasks FROM evaluations WHERE variant_id = 0 AND split = 'test'")
      .get() as { score: number; n_tasks: number };
    const selection = db.prepare('SELECT selection_score FROM variants WHERE id = 0').get() as {
      selection_score: number;
    };
    db.close();
    expect(test).toEqual({ score: printed.scores.arithmetic, n_tasks: 3 });
    expect(selection.selection_score).toBe(source.variants[0]!.score);
  }, 600_000);

  it('hyperagents eval takes a dataset:FILE domain, as generate-loop does, and stores its test score', async () => {
    const rows = ['id,question,answer,split'];
    for (let i = 1; i <= 6; i++)
      rows.push(`q${i},What is ${i} + ${i}?,${2 * i},${i <= 4 ? 'test' : 'train'}`);
    writeFileSync(path.join(tmp, 'sums.csv'), `${rows.join('\n')}\n`);
    writeFileSync(path.join(tmp, 'sums.domain.json'), JSON.stringify({ splitField: 'split' }));
    const result = await runCli('hyperagents', [
      'eval',
      'source:0',
      '--domains',
      `plus=dataset:${path.join(tmp, 'sums.csv')}`,
      '--split',
      'test',
      '--out',
      tmp,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as { scores: { plus: number } };
    const db = new Database(path.join(source.runDir, 'archive.sqlite'), { readonly: true });
    const row = db
      .prepare(
        "SELECT score, n_tasks FROM evaluations WHERE variant_id = 0 AND domain = 'plus' AND split = 'test'",
      )
      .get() as { score: number; n_tasks: number };
    const tasks = db
      .prepare("SELECT COUNT(*) AS n FROM task_results WHERE variant_id = 0 AND domain = 'plus'")
      .get() as { n: number };
    db.close();
    expect(row).toEqual({ score: printed.scores.plus, n_tasks: 4 });
    expect(tasks.n).toBe(4);

    const bad = await runCli('hyperagents', ['eval', 'source:0', '--domains', 'ftp:x', '--out', tmp]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--domains: "ftp:x": the only sources are dataset:FILE, exercism:DIR, module:FILE and lmeval:FILE.',
    );
    const missing = await runCli('hyperagents', [
      'eval',
      'source:0',
      '--domains',
      `dataset:${path.join(tmp, 'nope.csv')}`,
      '--out',
      tmp,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.csv');
  }, 600_000);

  it('hyperagents eval names a variant without code and a missing run, exit code 2', async () => {
    const missing = await runCli('hyperagents', [
      'eval',
      'source:7',
      '--domains',
      'arithmetic',
      '--out',
      tmp,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Variant 7 of .* has no code to evaluate/);
    const noRun = await runCli('hyperagents', ['eval', 'nope:1', '--domains', 'arithmetic', '--out', tmp]);
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toContain('no run there');
  });

  it("--from RUN:VARIANT starts a new run whose variant 0 is that variant's code", async () => {
    const result = await runCli('generate-loop', [
      ...base,
      '--generations',
      '0',
      '--from',
      `${source.runDir}:1`,
      '--out',
      tmp,
      '--run-id',
      'transferred',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as RunSummary;
    const tree = (gitDir: string, rev: string): string =>
      execFileSync('git', ['--git-dir', gitDir, 'rev-parse', `${rev}:agents`], { encoding: 'utf8' }).trim();
    expect(tree(path.join(run.runDir, 'variants.git'), run.variants[0]!.commit!)).toBe(
      tree(path.join(source.runDir, 'variants.git'), source.variants[1]!.commit!),
    );
  }, 600_000);

  it('--resume refuses another seed, naming it, and --from with a bad reference', async () => {
    const seed = await runCli('generate-loop', ['--resume', source.runDir, '--seed', '9']);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain('--seed differs from the run being resumed');
    const bad = await runCli('generate-loop', [...base, '--from', 'source', '--out', tmp]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from takes RUN:VARIANT');
  });
});
