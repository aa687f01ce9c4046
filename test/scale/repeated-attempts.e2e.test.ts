import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArchive } from '../kill-points.ts';
import { runCli } from '../run-cli.ts';
import { scaleRun } from './scale-run.ts';

/**
 * Repeated attempts under the sim's noise: each attempt at a task draws apart (its token names the attempt),
 * for --eval-repeats, the noise floor and --confirm-top alike. Through the queue they must be what a
 * single-machine run of the same seed stores, not copies of the first attempt.
 */
const RUN_ARGS = [
  ...['--domains', 'arithmetic', '--model', 'sim', '--seed', '3', '--generations', '2'],
  ...['--eval-samples', '6', '--sim-noise', '1', '--eval-repeats', '2', '--noise-floor', '3'],
  ...['--confirm-top', '1', '--eval-workers', '2', '--json'],
];

const scale = scaleRun('repeated-attempts', RUN_ARGS);

interface Attempt {
  variant_id: number;
  split: string;
  task_id: string;
  attempt: number;
  outcome: string;
  prediction: string | null;
}

/** Every attempt's outcome and answer, and what the noise floor and the confirmation made of them. */
const attempts = (runDir: string) =>
  readArchive(runDir, (db) => ({
    results: db
      .prepare(
        'SELECT variant_id, split, task_id, attempt, outcome, prediction FROM task_results ORDER BY variant_id, split, task_id, attempt',
      )
      .all() as Attempt[],
    noiseFloor: db.prepare('SELECT spread, scores FROM noise_floor').all(),
    confirmed: db
      .prepare('SELECT variant_id, raw_score, confirmed_score, attempts, scores FROM confirmed_scores')
      .all(),
  }));

describe('repeated attempts through queue workers', () => {
  it('draw apart as they do on one machine: the same attempts, noise floor and confirmed score', async () => {
    const local = attempts(path.join(scale.tmp, 'local', 'run'))!;
    // What the comparison covers: attempts that differ from the first at the same task.
    const first = new Map(
      local.results.filter((r) => r.attempt === 0).map((r) => [`${r.variant_id}/${r.split}/${r.task_id}`, r]),
    );
    const differing = local.results.filter((r) => {
      const one = first.get(`${r.variant_id}/${r.split}/${r.task_id}`);
      return r.attempt > 0 && one !== undefined && one.prediction !== r.prediction;
    });
    expect(differing.length).toBeGreaterThan(0);
    expect(Math.max(...local.results.map((r) => r.attempt))).toBeGreaterThanOrEqual(2);
    expect(local.noiseFloor).toHaveLength(1);
    expect(local.confirmed.length).toBeGreaterThan(0);

    await scale.workers.restart(2);
    const out = path.join(scale.tmp, 'queued');
    const run = await runCli('generate-loop', [
      ...RUN_ARGS,
      ...['--out', out, '--run-id', 'run', '--queue', scale.redis.url],
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(attempts(path.join(out, 'run'))).toEqual(local);
  });
});
