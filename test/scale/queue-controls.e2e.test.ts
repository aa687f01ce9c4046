import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../queue/testing/redis-server.ts';
import { startCli } from '../kill-points.ts';
import {
  controlIn,
  ended,
  failureReasons,
  generations,
  inFlight,
  resumedWhilePaused,
  sleep,
  until,
} from '../run-watch.ts';
import { workerSet } from './workers.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-queue-controls-'));
let redis: TestRedis;
const workers = workerSet(() => redis.url);
const control = controlIn(tmp);

beforeAll(async () => {
  redis = await startRedis();
}, 600_000);
afterAll(async () => {
  await workers.stopAll();
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** A run of 30 generations, 2 at once, its tasks on the queue's workers, at a nominal price. */
const queuedArgs = (id: string) => [
  ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '30', '--parallel', '2', '--seed', '4'],
  ...['--eval-samples', '4', '--sim-latency-ms', '150', '--sim-price-per-mtok', '100'],
  ...['--out', tmp, '--run-id', id, '--quiet', '--queue', redis.url],
];

describe('controls on a --queue run with two workers', () => {
  it('pause holds new generations across a SIGKILL and --resume; a lowered budget stops the spend there', async () => {
    await workers.restart(2);
    const runDir = path.join(tmp, 'paused');
    let run = startCli(queuedArgs('paused'));
    await until(() => generations(runDir).length >= 2 && inFlight(runDir) >= 1);
    expect((await control('paused', 'pause')).code).toBe(0);
    await sleep(500);
    run.child.kill('SIGKILL');
    await run.done;
    run = startCli(['--resume', 'paused', '--out', tmp, '--quiet', '--queue', redis.url]);
    await resumedWhilePaused(runDir, 'paused', run, control, 0.4);
  }, 600_000);

  it('stop-after lets the generations under way on the workers finish and starts none', async () => {
    await workers.restart(2);
    const runDir = path.join(tmp, 'stopped');
    const run = startCli(queuedArgs('stopped'));
    await until(() => generations(runDir).length >= 2 && inFlight(runDir) >= 1);
    expect((await control('stopped', 'stop-after')).code).toBe(0);
    await sleep(300);
    const atStop = generations(runDir);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('stopped when asked (stop-after)');
    const after = generations(runDir);
    expect(after.map((v) => v.id)).toEqual(atStop.map((v) => v.id));
    expect(after.every(ended)).toBe(true);
    for (const reason of failureReasons(runDir)) expect(reason).not.toMatch(/interrupt|stopp/i);
  }, 600_000);
});
