import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outcome, startCli, stepsOf, waitFor } from '../kill-points.ts';
import { results, simRunArgs, summaryOf } from './run-rows.ts';
import { scaleRun } from './scale-run.ts';

/** One generation, whose child reaches the full evaluation. */
const RUN_ARGS = simRunArgs(1);

const scale = scaleRun('redis-outage', RUN_ARGS);
const { tmp, workers } = scale;

/** Resolves once `text()` matches `pattern`, with the match (polled: the text is a process's output so far). */
async function printed(text: () => string, pattern: RegExp): Promise<RegExpMatchArray> {
  for (;;) {
    const match = text().match(pattern);
    if (match !== null) return match;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('a Redis outage in the middle of a queue run', () => {
  it('is shown by the coordinator and the workers while it lasts and when it ends, and changes no result', async () => {
    const running = await workers.restart(2);
    const out = path.join(tmp, 'outage');
    const runDir = path.join(out, 'run');
    const run = startCli([...RUN_ARGS, '--out', out, '--run-id', 'run', '--queue', scale.redis.url]);
    let stderr = '';
    run.child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const child = stepsOf(path.join(tmp, 'local', 'run')).filter((p) => p.variant === 1 && p.step === 'full');
    expect(child).toHaveLength(1);
    expect(await waitFor(runDir, run, child[0]!)).toBe(true);

    await scale.redis.down();
    const url = literally(`${scale.redis.url}/0`);
    // Reported when noticed, then again while it lasts (every 10 s), by the coordinator and by each worker.
    const waiting = new RegExp(`^waiting for Redis at ${url}, (\\d+) s`, 'gm');
    await printed(() => stderr, new RegExp(`^waiting for Redis at ${url}, 1\\d s`, 'm'));
    for (const worker of running)
      await printed(worker.log, new RegExp(`^worker: waiting for Redis at ${url}`, 'm'));
    expect(stderr).not.toMatch(/answers again/);
    await scale.redis.up();

    const finished = await run.done;
    expect(finished.code, finished.stderr).toBe(0);
    const seconds = [...stderr.matchAll(waiting)].map((m) => Number(m[1]));
    expect(seconds.length).toBeGreaterThanOrEqual(2);
    expect(seconds).toEqual([...seconds].sort((a, b) => a - b));
    const back = stderr.match(new RegExp(`^Redis at ${url} answers again, after (\\d+) s$`, 'm'));
    expect(back, stderr).not.toBeNull();
    expect(Number(back![1])).toBeGreaterThanOrEqual(seconds.at(-1)!);
    for (const worker of running)
      await printed(worker.log, new RegExp(`^worker: Redis at ${url} answers again`, 'm'));

    expect(outcome(summaryOf(finished.stdout))).toEqual(scale.baseline.outcome);
    expect(results(runDir)).toEqual(scale.baseline.results);
  });
});
