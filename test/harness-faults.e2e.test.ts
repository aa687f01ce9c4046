import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { readArchive, startCli, waitFor } from './kill-points.ts';
import { type CliResult, PROJECT_ROOT, runCli } from './run-cli.ts';

/**
 * Faults of the harness's own making, as a user meets them: a Ctrl-C in the middle of an evaluation, a
 * variant repository deleted before a resume, a transfer from a run whose repository is gone, and a sandbox
 * that lets no task answer. None of them may leave a score the harness did not get from an agent and a grader.
 */

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-faults-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const base = ['--domains', 'arithmetic', '--model', 'sim', '--seed', '2', '--eval-samples', '4', '--json'];

const noTrace = (text: string): void => expect(text).not.toMatch(/\n\s+at .*:\d+:\d+/);

/** `hyperagents` as a child process, so that a test can interrupt it. */
function startHyperagents(args: string[]): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

const count = (runDir: string, sql: string): number =>
  readArchive(runDir, (db) => (db.prepare(sql).get() as { n: number }).n) ?? 0;

/**
 * A folder's files (recursively) with a hash of each, to show that a refused command wrote nothing. SQLite's
 * empty `-wal` and `-shm` files beside an archive come and go with any reader, and are left out.
 */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || /-(wal|shm)$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, file)] = createHash('sha256').update(readFileSync(file)).digest('hex');
  }
  return files;
}

describe('faults of the harness leave no score it did not get from an agent and a grader', () => {
  let source: RunSummary;

  beforeAll(async () => {
    const result = await runCli('generate-loop', [
      ...base,
      '--generations',
      '1',
      '--sim-latency-ms',
      '200',
      '--out',
      tmp,
      '--run-id',
      'source',
    ]);
    expect(result.code, result.stderr).toBe(0);
    source = JSON.parse(result.stdout) as RunSummary;
  }, 600_000);

  it('Ctrl-C during hyperagents eval stores no score for the split; running it again gives the full score', async () => {
    // In a folder of its own: the result cache beside the runs must not answer the interrupted evaluation.
    const copy = path.join(tmp, 'eval-baseline', 'source');
    cpSync(source.runDir, copy, { recursive: true });
    const args = (runDir: string) => [
      'eval',
      `${runDir}:1`,
      '--domains',
      'arithmetic',
      '--split',
      'test',
      '--eval-samples',
      '30',
      '--eval-workers',
      '1',
      '--json',
    ];
    const whole = await runCli('hyperagents', args(copy));
    expect(whole.code, whole.stderr).toBe(0);
    const expected = JSON.parse(whole.stdout) as { scores: { arithmetic: number } };

    const testResults = `SELECT COUNT(*) AS n FROM task_results WHERE variant_id = 1 AND split = 'test'`;
    const run = startHyperagents(args(source.runDir));
    for (;;) {
      if (count(source.runDir, testResults) >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toBe('');
    expect(stopped.stderr).toMatch(/interrupted; no score is stored for variant 1's test split/);
    noTrace(stopped.stderr);
    const kept = count(source.runDir, testResults);
    expect(kept).toBeGreaterThanOrEqual(2);
    expect(kept).toBeLessThan(30);
    expect(count(source.runDir, `SELECT COUNT(*) AS n FROM evaluations WHERE split = 'test'`)).toBe(0);
    expect(count(source.runDir, 'SELECT COUNT(*) AS n FROM task_results WHERE error IS NOT NULL')).toBe(0);

    const again = await runCli('hyperagents', args(source.runDir));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ scores: expected.scores });
    const row = readArchive(source.runDir, (db) =>
      db.prepare(`SELECT n_tasks, n_total FROM evaluations WHERE variant_id = 1 AND split = 'test'`).get(),
    );
    expect(row).toEqual({ n_tasks: 30, n_total: 30 });
  }, 600_000);

  it("Ctrl-C during variant 0's evaluation prints no score for it and stores no evaluation", async () => {
    const out = path.join(tmp, 'interrupted');
    const runDir = path.join(out, 'run');
    const run = startCli([
      ...base,
      ...['--generations', '1', '--sim-latency-ms', '400', '--eval-workers', '1'],
      ...['--out', out, '--run-id', 'run'],
    ]);
    expect(await waitFor(runDir, run, { variant: 0, step: 'full' })).toBe(true);
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).not.toMatch(/variant 0: full|arithmetic=/);
    const summary = JSON.parse(stopped.stdout) as RunSummary;
    expect(summary.variants[0]).toMatchObject({ id: 0, status: 'pending', score: null });
    expect(count(runDir, 'SELECT COUNT(*) AS n FROM evaluations')).toBe(0);
    expect(count(runDir, "SELECT COUNT(*) AS n FROM variants WHERE id = 0 AND step = 'full'")).toBe(1);
  }, 300_000);

  it('--resume of a run whose variants.git was deleted is refused, naming it, and writes nothing', async () => {
    const copy = path.join(tmp, 'no-repo');
    cpSync(source.runDir, copy, { recursive: true });
    rmSync(path.join(copy, 'variants.git'), { recursive: true });
    const before = snapshot(copy);
    const result = await runCli('generate-loop', ['--resume', copy, '--generations', '3']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the variant repository ${path.join(copy, 'variants.git')} is missing`);
    expect(result.stderr).toMatch(/put it back .* or start a new run/);
    noTrace(result.stderr);
    expect(snapshot(copy)).toEqual(before);
    expect(existsSync(path.join(copy, 'variants.git'))).toBe(false);
  });

  it('--from a run whose variants.git was deleted is refused, naming it, before any run folder is made', async () => {
    const copy = path.join(tmp, 'no-repo-source');
    cpSync(source.runDir, copy, { recursive: true });
    rmSync(path.join(copy, 'variants.git'), { recursive: true });
    const out = path.join(tmp, 'from-out');
    const result = await runCli('generate-loop', [
      ...base,
      '--from',
      `${copy}:1`,
      '--out',
      out,
      '--run-id',
      't',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--from ${copy}:1: the variant repository ${path.join(copy, 'variants.git')}`,
    );
    noTrace(result.stderr);
    expect(existsSync(path.join(out, 't'))).toBe(false);
  });

  it('a variant 0 whose every task the limits stop fails with the cause, and the run says what to change', async () => {
    const out = path.join(tmp, 'no-answers');
    // Each simulated call takes 2.5 s, and a task may take 1 s: no task ever answers.
    const result = await runCli('generate-loop', [
      ...base,
      '--generations',
      '2',
      '--sim-latency-ms',
      '2500',
      '--task-timeout',
      '1',
      '--out',
      out,
      '--run-id',
      'run',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /generate-loop: variant 0, the initial agent, has no score: not evaluated: every one of its 8 tasks failed before answering: no reply within 1 s \(after one retry\) \(8 tasks\)/,
    );
    expect(result.stderr).toMatch(/Start a new run with more room: --memory-mb .*--task-timeout \(1 s\)/);
    expect(result.stderr).not.toMatch(/--resume|variant 0: evaluated|0\.000/);
    noTrace(result.stderr);
    const db = new Database(path.join(out, 'run', 'archive.sqlite'), { readonly: true });
    const variants = db.prepare('SELECT id, status, failure_cause FROM variants').all();
    const evaluations = db.prepare('SELECT COUNT(*) AS n FROM evaluations').get() as { n: number };
    db.close();
    expect(variants).toEqual([{ id: 0, status: 'failed', failure_cause: 'infrastructure' }]);
    expect(evaluations.n).toBe(0);
  }, 300_000);
});
