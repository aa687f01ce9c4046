import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { RunSummary } from '../../harness/run/index.ts';
import { outcome, readArchive } from '../kill-points.ts';
import { runCli } from '../run-cli.ts';

/**
 * A small simulated run (seed 2: its children are committed and reach the full evaluation), slow enough per
 * call (300 ms) that a kill lands inside a job. A test file runs it the same way locally and through the queue.
 */
export const simRunArgs = (generations: number): string[] => [
  '--domains',
  'arithmetic',
  '--model',
  'sim',
  '--seed',
  '2',
  '--generations',
  String(generations),
  '--eval-samples',
  '4',
  '--staged-samples',
  '1',
  '--eval-workers',
  '2',
  '--sim-latency-ms',
  '300',
  '--json',
];

/** One stored task result, as compared between a run through the queue and a single-machine run. */
export interface ResultRow {
  variant_id: number;
  domain: string;
  split: string;
  task_id: string;
  outcome: string;
  /** Shown when a run differs: a task that failed says why. */
  error: string | null;
  score: number;
  /** The prediction's JSON text (null: none), the TaskAgent's output and what the grader said beside the score. */
  prediction: string | null;
  raw_output: string | null;
  detail: string | null;
}

/** Every stored task result of a run, in one order. */
export const results = (runDir: string): ResultRow[] =>
  readArchive(
    runDir,
    (db) =>
      db
        .prepare(
          'SELECT variant_id, domain, split, task_id, outcome, error, score, prediction, raw_output, detail FROM task_results ORDER BY variant_id, domain, split, task_id',
        )
        .all() as ResultRow[],
  ) ?? [];

export function summaryOf(stdout: string): RunSummary {
  return JSON.parse(stdout) as RunSummary;
}

/** Each child's change as the variant repo holds it: `git diff` of its parent's commit and its own. */
export function variantDiffs(runDir: string): { id: number; diff: string | null }[] {
  const rows =
    readArchive(
      runDir,
      (db) =>
        db.prepare('SELECT id, parent_commit, commit_sha FROM variants WHERE id > 0 ORDER BY id').all() as {
          id: number;
          parent_commit: string | null;
          commit_sha: string | null;
        }[],
    ) ?? [];
  const gitDir = path.join(runDir, 'variants.git');
  return rows.map((row) => ({
    id: row.id,
    diff:
      row.parent_commit === null || row.commit_sha === null
        ? null
        : execFileSync('git', ['--git-dir', gitDir, 'diff', '--binary', row.parent_commit, row.commit_sha], {
            encoding: 'utf8',
          }),
  }));
}

/** What a run through the queue is compared with: the same run on this machine alone. */
export interface Baseline {
  outcome: ReturnType<typeof outcome>;
  results: ResultRow[];
  diffs: ReturnType<typeof variantDiffs>;
}

/** Runs generate-loop with `args` on this machine alone, in `out` (run id `run`), and reads what it stored. */
export async function singleMachineRun(args: readonly string[], out: string): Promise<Baseline> {
  const local = await runCli('generate-loop', [...args, '--out', out, '--run-id', 'run']);
  if (local.code !== 0) throw new Error(`the single-machine run failed (${local.code}): ${local.stderr}`);
  const runDir = path.join(out, 'run');
  return { outcome: outcome(summaryOf(local.stdout)), results: results(runDir), diffs: variantDiffs(runDir) };
}
