import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outcome, readArchive, startCli, taskCalls } from '../kill-points.ts';
import { attempts, fastExercises, jobIn } from './polyglot-runs.ts';
import { summaryOf } from './run-rows.ts';
import { scaleRun } from './scale-run.ts';

/**
 * Redis restarted (killed and started again on the same port and folder, empty: no persistence) twice in a
 * Polyglot run through the queue: once while its workspace jobs wait for a worker (none is connected yet),
 * once while workers run them. Every job is added again and its result awaited; the archive must be the
 * single-machine run's, each attempt stored once. Repeated attempts and the sim's noise are on, so a job
 * answered for the wrong attempt would show.
 */
const EXERCISES = fastExercises();
const RUN_ARGS = [
  ...['--domains', `exercism:${EXERCISES}`, '--model', 'sim', '--seed', '1', '--generations', '1'],
  ...['--eval-workers', '2', '--sim-noise', '1', '--eval-repeats', '2', '--json'],
  // Slow enough per model call that a restart lands while TaskAgents work.
  ...['--sim-latency-ms', '300'],
];

const scale = scaleRun('polyglot-redis-restart', RUN_ARGS);

describe('Redis restarted while workspace jobs wait and while they run', () => {
  it('loses no job and grades none twice into the archive: it stores what one machine stores', async () => {
    await scale.workers.stopAll();
    const out = path.join(scale.tmp, 'restarted');
    const run = startCli([...RUN_ARGS, '--out', out, '--run-id', 'run', '--queue', scale.redis.url]);
    const ended = () => run.child.exitCode !== null;

    expect(await jobIn(scale.redis.port, 'waiting', ended)).toBe(true);
    await scale.redis.restart();
    await scale.workers.restart(2);
    expect(await jobIn(scale.redis.port, 'active', ended)).toBe(true);
    await scale.redis.restart();

    const finished = await run.done;
    expect(finished.code, finished.stderr).toBe(0);
    expect(outcome(summaryOf(finished.stdout))).toEqual(scale.baseline.outcome);
    const local = attempts(path.join(scale.tmp, 'local', 'run'));
    expect(attempts(path.join(out, 'run'))).toEqual(local);
    // Each attempt at each task of each variant once (the archive would also refuse a second row).
    const stored = readArchive(path.join(out, 'run'), (db) =>
      db.prepare('SELECT COUNT(*) AS n FROM task_results').get(),
    ) as { n: number };
    expect(stored.n).toBe(local?.results.length);
    expect(stored.n).toBeGreaterThan(4);
    // A job whose result Redis lost with the restart is run again: the ledger shows what that cost.
    console.log(
      `task model calls on one machine ${taskCalls(path.join(scale.tmp, 'local', 'run'))}, ` +
        `through two Redis restarts ${taskCalls(path.join(out, 'run'))}`,
    );
  });
});
