import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { runCli } from './run-cli.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'regressions-'));
afterAll(() => rmSync(runs, { recursive: true, force: true }));
const archive = (...args: string[]) => runCli('hyperagents', ['archive', ...args, '--runs', runs]);

interface Reported {
  variant: number;
  parent: number;
  regressed: string[];
  fixed: string[];
  rebroken: string[];
  shared: number;
  parentOnly: number;
}

/** Each variant's tasks, read from the archive's SQLite file itself: task → attempt → correct. */
function storedResults(runId: string): Map<number, Map<string, Map<number, boolean>>> {
  const db = new Database(path.join(runs, runId, 'archive.sqlite'), { readonly: true });
  const rows = db.prepare('SELECT variant_id, split, task_id, attempt, outcome FROM task_results').all() as {
    variant_id: number;
    split: string;
    task_id: string;
    attempt: number;
    outcome: string;
  }[];
  db.close();
  const byVariant = new Map<number, Map<string, Map<number, boolean>>>();
  for (const r of rows) {
    const tasks = byVariant.get(r.variant_id) ?? new Map<string, Map<number, boolean>>();
    byVariant.set(r.variant_id, tasks);
    const attempts = tasks.get(`${r.split}/${r.task_id}`) ?? new Map<number, boolean>();
    tasks.set(`${r.split}/${r.task_id}`, attempts);
    attempts.set(r.attempt, r.outcome === 'correct');
  }
  return byVariant;
}

/** At least half of the attempts both have were correct. */
const passedOn = (attempts: Map<number, boolean>, shared: number[]) =>
  2 * shared.filter((a) => attempts.get(a)).length >= shared.length;

describe('archive regressions on a real sim run', () => {
  const runId = 'noisy';
  let reported: Reported[] = [];
  let parents = new Map<number, number | null>();

  beforeAll(async () => {
    // Seed 3 with one staged task per split gives a variant stopped after its staged sample, and lineages
    // three deep where a task is fixed and broken again.
    const run = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '9', '--seed', '3'],
      ...['--eval-samples', '10', '--staged-samples', '1', '--sim-noise', '0.5', '--eval-repeats', '2'],
      ...['--out', runs, '--run-id', runId, '--quiet'],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const listed = await archive('list', runId, '--json');
    const variants = JSON.parse(listed.stdout).variants as { id: number; parent: number | null }[];
    parents = new Map(variants.map((v) => [v.id, v.parent]));
    const json = await archive('regressions', runId, '--json');
    expect(json.code, json.stderr).toBe(0);
    reported = JSON.parse(json.stdout) as Reported[];
  }, 180_000);

  it('agrees with the stored per-task results of every variant and its parent', () => {
    const stored = storedResults(runId);
    const graded = [...parents.keys()].filter((id) => parents.get(id) != null && stored.has(id));
    expect(reported.map((r) => r.variant).sort((a, b) => a - b)).toEqual(graded);
    expect(reported.some((r) => r.regressed.length > 0)).toBe(true);
    expect(reported.some((r) => r.fixed.length > 0)).toBe(true);
    for (const r of reported) {
      expect(r.parent).toBe(parents.get(r.variant));
      const child = stored.get(r.variant)!;
      const parent = stored.get(r.parent)!;
      const regressed: string[] = [];
      const fixed: string[] = [];
      for (const [task, attempts] of child) {
        const theirs = parent.get(task);
        const shared = [...attempts.keys()].filter((a) => theirs?.has(a));
        if (theirs === undefined || shared.length === 0) continue;
        const [before, after] = [passedOn(theirs, shared), passedOn(attempts, shared)];
        if (before && !after) regressed.push(task.split('/')[1]!);
        if (!before && after) fixed.push(task.split('/')[1]!);
      }
      expect([r.variant, [...r.regressed].sort()], 'regressed').toEqual([r.variant, regressed.sort()]);
      expect([r.variant, [...r.fixed].sort()], 'fixed').toEqual([r.variant, fixed.sort()]);
    }
  });

  it('flags a regression as rebroken when the last change to that task up the lineage was a fix', () => {
    const byVariant = new Map(reported.map((r) => [r.variant, r]));
    const lastChange = (from: number | null | undefined, task: string): 'fixed' | 'regressed' | null => {
      for (let at = from; at != null; at = parents.get(at)) {
        const edge = byVariant.get(at);
        if (edge?.fixed.includes(task)) return 'fixed';
        if (edge?.regressed.includes(task)) return 'regressed';
      }
      return null;
    };
    const expected = reported.map((r) => [
      r.variant,
      r.regressed.filter((t) => lastChange(r.parent, t) === 'fixed'),
    ]);
    expect(reported.map((r) => [r.variant, r.rebroken])).toEqual(expected);
    expect(reported.some((r) => r.rebroken.length > 0)).toBe(true);
  });

  it('compares a staged-only variant on the tasks it shares with its parent, and says so', async () => {
    const staged = reported.find((r) => r.parentOnly > 0);
    expect(staged, 'the run has a variant evaluated on its staged sample only').toBeDefined();
    expect(staged!.shared).toBe(2);
    const text = await archive('regressions', runId);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `variant ${staged!.variant}: evaluated on part of its parent's tasks (a staged sample): compared on the 2 of 20`,
    );
  });

  it('prints a table, each child’s tasks and the regression rate', async () => {
    const text = (await archive('regressions', runId)).stdout;
    expect(text).toMatch(/^variant\s+parent\s+compared\s+parent passed\s+regressed\s+fixed\s+rebroken$/m);
    const withRegression = reported.filter((r) => r.regressed.length > 0);
    // A rebroken task carries a mark.
    const named = (r: Reported) => r.regressed.map((t) => (r.rebroken.includes(t) ? `${t}*` : t)).join(', ');
    for (const r of withRegression)
      expect(text).toContain(`variant ${r.variant} (parent ${r.parent}): regressed ${named(r)}`);
    expect(text).toMatch(/^\* rebroken: /m);
    const regressed = reported.reduce((s, r) => s + r.regressed.length, 0);
    expect(text).toMatch(
      new RegExp(
        `^Regression rate: ${withRegression.length} of ${reported.length} children \\(\\d+\\.\\d%\\) broke at least one task; ${regressed} regressed of \\d+ tasks their parents passed`,
        'm',
      ),
    );
  });
});

describe('archive regressions, refusals and empty runs', () => {
  it('names the runs there when the run does not exist', async () => {
    writeSyntheticRun(runs, { id: 'only-root', variants: 1 });
    const result = await archive('regressions', 'no-such-run');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no run "no-such-run"');
    expect(result.stderr).toContain('only-root');
    expect(result.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it('says there is no child to compare yet, and prints [] with --json', async () => {
    writeSyntheticRun(runs, { id: 'lonely', variants: 1 });
    const text = await archive('regressions', 'lonely');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Run lonely has no child with task results yet (1 variant in all)');
    const json = await archive('regressions', 'lonely', '--json');
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it('says in --help what passed means when a task has several attempts', async () => {
    const help = await runCli('hyperagents', ['archive', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {0,2}regressions RUN \[--domain D\] \[--split S\]/m);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'A task passed when at least half of its attempts were correct (pass@1 >= 0.5)',
    );
  });

  it('needs a run', async () => {
    const result = await archive('regressions');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('archive regressions needs RUN');
  });
});
