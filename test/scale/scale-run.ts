import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type TestRedis } from '../../queue/testing/redis-server.ts';
import { type Baseline, singleMachineRun } from './run-rows.ts';
import { workerSet } from './workers.ts';

/**
 * What a scale-out test file starts with: a scratch folder, a real redis-server, the single-machine run of
 * `runArgs` to compare with, and the workers it starts (stopped, with Redis, after the file's tests).
 */
export function scaleRun(name: string, runArgs: readonly string[]) {
  const tmp = mkdtempSync(path.join(tmpdir(), `hyperagents-${name}-`));
  let redis: TestRedis | undefined;
  let baseline: Baseline | undefined;
  const workers = workerSet(() => scale.redis.url);
  const scale = {
    tmp,
    workers,
    get redis(): TestRedis {
      if (redis === undefined) throw new Error('Redis is started in beforeAll');
      return redis;
    },
    get baseline(): Baseline {
      if (baseline === undefined) throw new Error('the baseline is run in beforeAll');
      return baseline;
    },
  };
  beforeAll(async () => {
    redis = await startRedis();
    baseline = await singleMachineRun(runArgs, path.join(tmp, 'local'));
  }, 600_000);
  afterAll(async () => {
    await workers.stopAll();
    await redis?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });
  return scale;
}
