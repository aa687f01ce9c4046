import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { readArchive, startCli, taskCalls } from './kill-points.ts';
import { promptEdit } from './prompt-edit.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-resume-accept-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Variant 1 asks for the units of the answer: a little worse on arithmetic, so it is stopped part-way. */
const SCRIPT = {
  meta: [
    promptEdit(
      'Work out the answer the task asks for, and check the units of the answer.',
      'Asked for units.',
    ),
  ],
};

/** A sequential run slow enough (300 ms a call, 2 tasks at once) for a kill to land inside variant 1's rounds. */
function args(out: string): string[] {
  const script = path.join(tmp, 'script.json');
  writeFileSync(script, JSON.stringify(SCRIPT));
  return [
    ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '1'],
    ...['--accept', 'sequential', '--eval-workers', '2', '--sim-latency-ms', '300'],
    // A futility test slower to stop than the defaults, so that this child is decided only after several rounds.
    ...['--futility-alpha', '0.2', '--futility-margin', '0.1'],
    ...['--out', out, '--run-id', 'run', '--json'],
  ];
}

/** Variant 1's decision and the tasks it has results for, in a stable order. */
const decided = (runDir: string) =>
  readArchive(runDir, (db) => ({
    acceptance: db
      .prepare('SELECT decision, evidence, futility, tasks, of, paired FROM acceptance WHERE variant_id = 1')
      .get(),
    tasks: (
      db
        .prepare('SELECT split, task_id AS id FROM task_results WHERE variant_id = 1 ORDER BY split, task_id')
        .all() as { split: string; id: string }[]
    ).map((r) => `${r.split}/${r.id}`),
  }));

const fullResults = (runDir: string): number =>
  readArchive(runDir, (db) => {
    const step = db.prepare('SELECT step FROM variants WHERE id = 1').get() as { step: string } | undefined;
    const { n } = db.prepare('SELECT COUNT(*) AS n FROM task_results WHERE variant_id = 1').get() as {
      n: number;
    };
    return step?.step === 'full' ? n : 0;
  }) ?? 0;

describe('a child half-decided by --accept sequential, killed with SIGKILL and resumed', () => {
  it('continues where it stopped, in the same order, to the decision an uninterrupted run reaches', async () => {
    const baselineOut = path.join(tmp, 'baseline');
    const baseline = await startCli(args(baselineOut)).done;
    expect(baseline.code, baseline.stderr).toBe(0);
    const expected = decided(path.join(baselineOut, 'run'))!;
    expect(expected.acceptance).toMatchObject({ decision: 'worse' });
    // Past the staged sample (20 tasks) and rounds into the rest, and short of the decision.
    expect(expected.tasks.length).toBeGreaterThanOrEqual(24);
    const killAt = Math.floor((20 + expected.tasks.length) / 2);

    const out = path.join(tmp, 'killed');
    const runDir = path.join(out, 'run');
    const run = startCli(args(out));
    let ended = false;
    void run.done.then(() => {
      ended = true;
    });
    while (!ended && fullResults(runDir) < killAt) await new Promise((r) => setTimeout(r, 40));
    expect(ended).toBe(false);
    run.child.kill('SIGKILL');
    await run.done;
    const atKill = decided(runDir)!;
    expect(atKill.acceptance).toBeUndefined();
    expect(atKill.tasks.length).toBeLessThan(expected.tasks.length);
    // Every task it had was one the uninterrupted run used: the same order.
    for (const task of atKill.tasks) expect(expected.tasks).toContain(task);

    const resumed = await startCli(['--resume', runDir, '--json']).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout) as RunSummary;
    expect(summary.variants.find((v) => v.id === 1)?.acceptance).toMatchObject({ decision: 'worse' });
    expect(decided(runDir)).toEqual(expected);
    // Only the tasks in flight at the kill (at most one per worker) are asked twice.
    const extra = taskCalls(runDir) - taskCalls(path.join(baselineOut, 'run'));
    expect(extra).toBeGreaterThanOrEqual(0);
    expect(extra).toBeLessThanOrEqual(2);
  }, 600_000);
});
