import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outcome, readArchive, taskCalls } from '../kill-points.ts';
import { runCli } from '../run-cli.ts';
import { type Attempt, attempts, fastExercises } from './polyglot-runs.ts';
import { summaryOf } from './run-rows.ts';
import { scaleRun } from './scale-run.ts';

/**
 * What one machine does with workspace tasks, done by queue workers: repeated attempts under the sim's noise
 * (--eval-repeats, the noise floor, --confirm-top), the per-task limits, and the result cache. Two exercises
 * of the fastest graders (Python, JavaScript) keep it cheap. Each run through the queue must store what the
 * same run stores on one machine.
 */
const EXERCISES = fastExercises();
const BASE_ARGS = ['--domains', `exercism:${EXERCISES}`, '--model', 'sim', '--seed', '1', '--json'];
const noisyArgs = (generations: number): string[] => [
  ...[...BASE_ARGS, '--generations', String(generations), '--eval-workers', '2'],
  ...['--sim-noise', '1', '--eval-repeats', '2', '--noise-floor', '2', '--confirm-top', '1'],
];
const NOISY_ARGS = noisyArgs(1);

const scale = scaleRun('polyglot-attempts', NOISY_ARGS);

/** A run of `args` on this machine and through the queue, in folders of their own: both exit codes and archives. */
async function bothWays(name: string, args: string[]) {
  const [local, queued] = [path.join(scale.tmp, `${name}-local`), path.join(scale.tmp, `${name}-queued`)];
  const one = await runCli('generate-loop', [...args, '--out', local, '--run-id', 'run']);
  const many = await runCli('generate-loop', [
    ...[...args, '--out', queued, '--run-id', 'run'],
    ...['--queue', scale.redis.url],
  ]);
  return {
    local: { code: one.code, stderr: one.stderr, stored: attempts(path.join(local, 'run')) },
    queued: { code: many.code, stderr: many.stderr, stored: attempts(path.join(queued, 'run')) },
  };
}

describe('workspace tasks through queue workers, as on one machine', () => {
  it('draws every attempt, the noise floor and the confirmed score as one machine does, and reuses them all from the cache', async () => {
    const local = attempts(path.join(scale.tmp, 'local', 'run'))!;
    // What the comparison covers: attempts past the first (repeats and confirmation) that drew apart.
    const firstOf = (r: Attempt) =>
      local.results.find((f) => f.attempt === 0 && f.variant_id === r.variant_id && f.task_id === r.task_id);
    expect(
      local.results.filter((r) => r.attempt > 0 && r.outcome !== firstOf(r)?.outcome).length,
    ).toBeGreaterThan(0);
    expect(Math.max(...local.results.map((r) => r.attempt))).toBeGreaterThanOrEqual(2);
    expect(local.noiseFloor).toHaveLength(1);
    expect(local.confirmed.length).toBeGreaterThan(0);

    await scale.workers.restart(2);
    const out = path.join(scale.tmp, 'queued');
    const run = await runCli('generate-loop', [
      ...[...NOISY_ARGS, '--out', out, '--run-id', 'run'],
      ...['--queue', scale.redis.url],
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(outcome(summaryOf(run.stdout))).toEqual(scale.baseline.outcome);
    expect(attempts(path.join(out, 'run'))).toEqual(local);

    // Variant 0 again in the same --out: every attempt, the noise floor's and the confirmation's included,
    // is the workers' result taken from the coordinator's cache, with no model call.
    const again = await runCli('generate-loop', [
      ...[...noisyArgs(0), '--out', out, '--run-id', 'again', '--queue', scale.redis.url],
    ]);
    expect(again.code, again.stderr).toBe(0);
    const againDir = path.join(out, 'again');
    expect(taskCalls(againDir)).toBe(0);
    expect(summaryOf(again.stdout).llmCalls).toBe(0);
    const reused = readArchive(againDir, (db) =>
      db.prepare('SELECT COUNT(*) AS n, SUM(reused) AS reused FROM task_results').get(),
    ) as { n: number; reused: number };
    expect(reused.n).toBe(local.results.filter((r) => r.variant_id === 0).length);
    expect(reused.reused).toBe(reused.n);
    const ofVariant0 = (stored: typeof local) => ({
      results: stored.results.filter((r) => r.variant_id === 0),
      noiseFloor: stored.noiseFloor,
    });
    expect(ofVariant0(attempts(againDir)!)).toEqual(ofVariant0(local));
  });

  it('holds each task to its limits on the worker, and reports a task over one as one machine does', async () => {
    await scale.workers.restart(2);
    // Tool calls: the sim's TaskAgent lists, views, writes and runs the tests; two calls stop it before it writes.
    const calls = await bothWays('tool-calls', [...BASE_ARGS, '--generations', '0', '--max-tool-calls', '2']);
    // Output: a TaskAgent whose reply is three times the cap is cut, with a note.
    const script = path.join(scale.tmp, 'long-reply.json');
    writeFileSync(
      script,
      JSON.stringify({ task: [`${'words '.repeat(512)}<json>{"response": "done"}</json>`] }),
    );
    const output = await bothWays('output', [
      ...[...BASE_ARGS, '--generations', '0', '--eval-workers', '1'],
      ...['--sim-script', script, '--max-output-kb', '1'],
    ]);
    // Time: each model call takes longer than the task may.
    const time = await bothWays('time', [
      ...[...BASE_ARGS, '--generations', '0'],
      ...['--task-timeout', '1', '--sim-latency-ms', '2500'],
    ]);
    for (const { local, queued } of [calls, output, time]) {
      expect(queued.code, queued.stderr).toBe(local.code);
      expect(queued.stored).toEqual(local.stored);
    }
    const rows = (run: typeof calls) => run.local.stored?.results ?? [];
    // Stopped after reading the file, before writing it: no edit, a wrong answer.
    for (const row of rows(calls)) expect([row.outcome, row.prediction]).toEqual(['wrong', '""']);
    for (const row of rows(output)) expect(row.raw_output).toContain('the output passed the 1 KiB limit');
    for (const row of rows(time)) expect(row.error).toContain('no reply within 1 s');
    expect(rows(time)).toHaveLength(2);
  });
});
