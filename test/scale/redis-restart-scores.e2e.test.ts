import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../queue/testing/redis-server.ts';
import { outcome, startCli, waitFor } from '../kill-points.ts';
import { type Baseline, results, simRunArgs, singleMachineRun, summaryOf } from './run-rows.ts';
import { workerSet } from './workers.ts';

/** One generation, whose child passes its gate (a smoke task) and is evaluated staged, then in full. */
const RUN_ARGS = simRunArgs(1);

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-redis-restart-'));
let redis: TestRedis;
let baseline: Baseline;
const workers = workerSet(() => redis.url);

beforeAll(async () => {
  redis = await startRedis();
  baseline = await singleMachineRun(RUN_ARGS, path.join(tmp, 'local'));
}, 600_000);

afterAll(async () => {
  await workers.stopAll();
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/**
 * Resolves when Redis runs a read of a task job's whole record (`HGETALL hyperagents:tasks-…:task-…`): the
 * coordinator reading a finished job's result. Freezes Redis at that moment, in the same tick, so that the
 * coordinator's next commands (the next stage's jobs) wait for it.
 */
async function freezeAtNextResultRead(url: string, frozen: () => void): Promise<() => void> {
  const client = new Redis(url);
  const monitor = await client.monitor();
  let done = false;
  const read = new Promise<void>((resolve) => {
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (done || args[0]?.toLowerCase() !== 'hgetall' || !/:task-[0-9a-f]{40}$/.test(args[1] ?? '')) return;
      done = true;
      frozen();
      resolve();
    });
  });
  await read;
  return () => {
    monitor.disconnect();
    client.disconnect();
  };
}

describe('a Redis restart (without persistence) between publishing a variant and adding its jobs', () => {
  it('loses nothing: the stage runs with the gateway and code published again, and scores as without it', async () => {
    await workers.restart(2);
    const out = path.join(tmp, 'restarted');
    const runDir = path.join(out, 'run');
    const run = startCli([...RUN_ARGS, '--out', out, '--run-id', 'run', '--queue', redis.url]);
    // At the child's gate, its variant (gateway address, code) is published before its smoke task; the next
    // result the coordinator reads is the smoke task's, after which it adds the staged stage's jobs at once.
    expect(await waitFor(runDir, run, { variant: 1, step: 'gating' })).toBe(true);
    const close = await freezeAtNextResultRead(redis.url, () => redis.freeze());
    close();
    // Redis comes back empty: the smoke task's job, the gateway's address and the child's code are gone, and
    // the jobs the coordinator sends next arrive in the new Redis.
    await redis.restart();

    const finished = await run.done;
    expect(finished.code, finished.stderr).toBe(0);
    const scores = outcome(summaryOf(finished.stdout));
    // The same scores as the run of the same seed on one machine, none lowered by a task the queue lost.
    expect(scores).toEqual(baseline.outcome);
    expect(results(runDir)).toEqual(baseline.results);
    expect(results(runDir).filter((r) => r.error?.startsWith('infrastructure: '))).toEqual([]);
    expect(finished.stderr).not.toMatch(/could not be run/);
    console.log(
      `variant scores: single machine ${JSON.stringify(baseline.outcome.map((v) => v.score))}, ` +
        `through a restarted Redis ${JSON.stringify(scores.map((v) => v.score))}`,
    );
  });
});
