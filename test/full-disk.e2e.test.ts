import { execFileSync } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { type KillPoint, outcome, readArchive, repoDisagreements, startCli, waitFor } from './kill-points.ts';
import { runCli } from './run-cli.ts';

/**
 * The disk under `--out` fills while a run is going (a real 20 MB tmpfs, filled with a file at a chosen
 * step), the run fails, room is made, and `--resume` continues it. The archive must end as that of the
 * uninterrupted run with the same seed, and never hold a result the harness did not get from a TaskAgent and
 * its grader. Slow (a run per step): in `npm run test:resume`.
 */

const root = process.getuid?.() === 0;
const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-full-disk-'));
const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0)) execFileSync('umount', [dir]);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A fresh 20 MB disk. */
function smallDisk(name: string): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=20m', 'tmpfs', dir]);
  mounted.push(dir);
  return dir;
}

/** Writes `dir/filler` until the disk has no room left. */
function fill(dir: string): void {
  const fd = openSync(path.join(dir, 'filler'), 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC: the disk is full.
  } finally {
    closeSync(fd);
  }
}

const args = [
  ...['--domains', 'arithmetic', '--model', 'sim', '--seed', '2', '--generations', '2'],
  ...[
    '--eval-samples',
    '4',
    '--staged-samples',
    '2',
    '--eval-workers',
    '2',
    '--sim-latency-ms',
    '300',
    '--json',
  ],
];

/** Task results the harness made up instead of getting them from a TaskAgent: none may ever be stored. */
const placeholders = (runDir: string): string[] =>
  readArchive(runDir, (db) =>
    (
      db
        .prepare(
          "SELECT variant_id, split, task_id, error FROM task_results WHERE error LIKE 'infrastructure:%'",
        )
        .all() as { variant_id: number; split: string; task_id: string; error: string }[]
    ).map((r) => `variant ${r.variant_id} ${r.split}/${r.task_id}: ${r.error}`),
  ) ?? [];

/** Evaluation rows that count fewer tasks than their stage holds: a stage cut short read as a score. */
const partial = (runDir: string): unknown[] =>
  readArchive(runDir, (db) =>
    db
      .prepare(
        `SELECT variant_id, split, stage, n_tasks, n_total FROM evaluations
         WHERE (stage = 'full' AND n_tasks < n_total) OR (stage = 'staged' AND n_tasks < MIN(2, n_total))`,
      )
      .all(),
  ) ?? [];

describe.skipIf(!root)(
  'a full disk under --out (a real tmpfs; mounting one needs root, so skipped without it)',
  () => {
    let baseline: RunSummary;

    beforeAll(async () => {
      const result = await runCli('generate-loop', [
        ...args,
        '--out',
        path.join(tmp, 'baseline'),
        '--run-id',
        'run',
      ]);
      expect(result.code, result.stderr).toBe(0);
      baseline = JSON.parse(result.stdout) as RunSummary;
      expect(baseline.variants.map((v) => v.status)).toContain('evaluated');
    }, 600_000);

    it.each<[string, KillPoint]>([
      ["variant 0's evaluation", { variant: 0, step: 'full' }],
      ["a child's MetaAgent edit", { variant: 1, step: 'editing' }],
      ["a child's gate", { variant: 1, step: 'gating' }],
      ["a child's staged evaluation", { variant: 2, step: 'staged' }],
      ["a child's full evaluation", { variant: 2, step: 'full' }],
    ])(
      'the disk fills during %s; resumed after room is made, the run ends as the uninterrupted one',
      async (_name, point) => {
        expect(baseline.variants.some((v) => v.id === point.variant)).toBe(true);
        const out = smallDisk(`v${point.variant}-${point.step}`);
        const runDir = path.join(out, 'run');
        const run = startCli([...args, '--out', out, '--run-id', 'run']);
        expect(await waitFor(runDir, run, point)).toBe(true);
        fill(out);
        const failed = await run.done;
        expect(failed.code, failed.stderr).toBe(1);
        expect(failed.stderr).toContain(`the disk holding ${runDir} is full`);
        expect(failed.stderr).toContain(`to continue: npx generate-loop --resume ${runDir}`);
        expect(failed.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
        expect(placeholders(runDir)).toEqual([]);
        expect(partial(runDir)).toEqual([]);
        // What the disk stopped is left at its step to be redone, never failed for it.
        const failures = readArchive(runDir, (db) =>
          db.prepare("SELECT id, failure_reason FROM variants WHERE step = 'failed'").all(),
        );
        expect(failures).toEqual([]);

        rmSync(path.join(out, 'filler'));
        const resumed = await runCli('generate-loop', ['--resume', runDir, '--json']);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(outcome(JSON.parse(resumed.stdout) as RunSummary)).toEqual(outcome(baseline));
        expect(repoDisagreements(runDir)).toEqual([]);
        expect(placeholders(runDir)).toEqual([]);
        expect(readdirSync(path.join(runDir, 'worktrees'))).toEqual([]);
      },
      900_000,
    );

    it('the disk fills during hyperagents eval: no score is stored, and once room is made it scores as on a roomy disk', async () => {
      const evalArgs = (runDir: string) => [
        ...['eval', `${runDir}:1`, '--domains', 'arithmetic', '--split', 'test'],
        ...['--eval-samples', '20', '--eval-workers', '2', '--json'],
      ];
      const roomy = path.join(tmp, 'eval-roomy', 'run');
      cpSync(path.join(baseline.runDir), roomy, { recursive: true });
      const expected = await runCli('hyperagents', evalArgs(roomy));
      expect(expected.code, expected.stderr).toBe(0);

      const out = smallDisk('eval');
      const runDir = path.join(out, 'run');
      cpSync(baseline.runDir, runDir, { recursive: true });
      const testResults = (): number =>
        readArchive(
          runDir,
          (db) =>
            (db.prepare("SELECT COUNT(*) AS n FROM task_results WHERE split = 'test'").get() as { n: number })
              .n,
        ) ?? 0;
      const evaluation = runCli('hyperagents', evalArgs(runDir));
      let ended = false;
      void evaluation.then(() => {
        ended = true;
      });
      while (!ended && testResults() < 2) await new Promise((resolve) => setTimeout(resolve, 40));
      expect(ended).toBe(false);
      fill(out);
      const failed = await evaluation;
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stdout).toBe('');
      expect(failed.stderr).toMatch(/full/);
      expect(placeholders(runDir)).toEqual([]);
      expect(
        readArchive(runDir, (db) => db.prepare("SELECT * FROM evaluations WHERE split = 'test'").all()),
      ).toEqual([]);

      rmSync(path.join(out, 'filler'));
      const again = await runCli('hyperagents', evalArgs(runDir));
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout).scores).toEqual(JSON.parse(expected.stdout).scores);
      expect(placeholders(runDir)).toEqual([]);
    }, 900_000);
  },
);
