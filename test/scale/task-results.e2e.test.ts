import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../queue/testing/redis-server.ts';
import { outcome } from '../kill-points.ts';
import { runCli } from '../run-cli.ts';
import { type Baseline, results, singleMachineRun, summaryOf } from './run-rows.ts';
import { workerSet } from './workers.ts';

/**
 * Every task of the three shipped domains, for the initial agent and one child (seed 2): among them a task
 * whose reply holds no JSON (a parse failure, without a prediction, its output kept), wrong and correct
 * answers of numbers and text, and code answers graded by hidden tests with a detail beside the score.
 */
const RUN_ARGS = [
  '--domains',
  'arithmetic,code,text',
  '--model',
  'sim',
  '--seed',
  '2',
  '--generations',
  '1',
  '--eval-workers',
  '4',
  '--json',
];

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-task-results-'));
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

describe('task results of a run through queue workers', () => {
  it('are the rows a single-machine run of the same seed stores: outcomes, predictions, outputs, details', async () => {
    // What the comparison covers, in the single-machine run.
    const parseFailures = baseline.results.filter((r) => r.outcome === 'parse_failure');
    expect(parseFailures.length).toBeGreaterThan(0);
    for (const row of parseFailures) {
      expect(row.prediction).toBeNull();
      expect(row.raw_output).not.toBe('');
    }
    expect(baseline.results.some((r) => r.detail !== null)).toBe(true);
    expect(new Set(baseline.results.map((r) => r.outcome))).toEqual(
      new Set(['correct', 'wrong', 'parse_failure']),
    );

    await workers.restart(2);
    const out = path.join(tmp, 'queued');
    const run = await runCli('generate-loop', [
      ...RUN_ARGS,
      '--out',
      out,
      '--run-id',
      'run',
      '--queue',
      redis.url,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(results(path.join(out, 'run'))).toEqual(baseline.results);
    expect(outcome(summaryOf(run.stdout))).toEqual(baseline.outcome);
  });
});
