import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTaskResult, PREFIX, PROJECT_VERSION, type TaskJob, taskQueueName } from '../../queue/index.ts';
import { startRedis, type TestRedis } from '../../queue/testing/redis-server.ts';
import { type KillPoint, outcome, startCli, stepsOf, waitFor } from '../kill-points.ts';
import { runCli } from '../run-cli.ts';
import { type Baseline, results, simRunArgs, singleMachineRun, summaryOf } from './run-rows.ts';
import { type RunningWorker, workerSet } from './workers.ts';

/** One generation, whose child reaches the full evaluation. */
const RUN_ARGS = simRunArgs(1);

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-scale-'));
let redis: TestRedis;
let baseline: Baseline;
const workers = workerSet(() => redis.url);

beforeAll(async () => {
  redis = await startRedis();
  baseline = await singleMachineRun(RUN_ARGS, path.join(tmp, 'local'));
  expect(baseline.results.length).toBeGreaterThan(0);
}, 600_000);

afterAll(async () => {
  await workers.stopAll();
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** The child's last evaluation step in the single-machine run: where its tasks are in flight. */
function lastEvaluationStep(): KillPoint {
  const point = stepsOf(path.join(tmp, 'local', 'run'))
    .filter((p) => p.variant >= 1 && (p.step === 'staged' || p.step === 'full'))
    .at(-1);
  if (point === undefined) throw new Error('the single-machine run has no evaluated child');
  return point;
}

const twoWorkers = (): Promise<RunningWorker[]> => workers.restart(2);

describe('generate-loop --queue with two workers', () => {
  it('runs a sim run to the end with the archive of a single-machine run of the same seed', async () => {
    const [first, second] = await twoWorkers();
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
    // The tasks ran on the workers: both prepared variants and the queue has their completed jobs.
    expect(first!.log()).toContain('ready');
    expect(second!.log()).toContain('ready');
    const status = await runCli('hyperagents', ['queue', 'status', '--queue', redis.url, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout) as { jobs: { completed: number }; workers: string[] };
    expect(parsed.jobs.completed).toBeGreaterThanOrEqual(baseline.results.length);
    expect(parsed.workers).toEqual([first!.name, second!.name].sort());
    // Each evaluated task was graded on the worker that ran it, with the worker's own copy of the domain.
    const queue = new Queue(taskQueueName(PROJECT_VERSION), {
      connection: { host: '127.0.0.1', port: redis.port },
      prefix: PREFIX,
    });
    try {
      const evaluated = (await queue.getCompleted(0, -1)).filter(
        (job) => !(job.data as TaskJob).request.id.startsWith('smoke-'),
      );
      expect(evaluated.length).toBeGreaterThan(0);
      for (const job of evaluated) {
        const reply = decodeTaskResult(job.returnvalue);
        expect(reply?.kind === 'reply' && reply.graded !== undefined).toBe(true);
      }
    } finally {
      await queue.close();
    }
  }, 600_000);

  it('loses nothing and counts nothing twice when a worker is killed in the middle of a job', async () => {
    const [victim, other] = await twoWorkers();
    const out = path.join(tmp, 'worker-killed');
    const run = startCli([...RUN_ARGS, '--out', out, '--run-id', 'run', '--queue', redis.url]);
    const queue = new Queue(taskQueueName(PROJECT_VERSION), {
      connection: { host: '127.0.0.1', port: redis.port },
      prefix: PREFIX,
    });
    let killedJob: string | undefined;
    try {
      while (killedJob === undefined && run.child.exitCode === null) {
        const active = await queue.getActive();
        killedJob = active.find((job) => job.processedBy === victim!.name)?.id;
        if (killedJob === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(killedJob).toBeDefined();
      victim!.child.kill('SIGKILL');
      const finished = await run.done;
      expect(finished.code, finished.stderr).toBe(0);
      expect(outcome(summaryOf(finished.stdout))).toEqual(baseline.outcome);
      expect(results(path.join(out, 'run'))).toEqual(baseline.results);
      // The killed worker's job was taken again (BullMQ's stalled-job check) and finished by the other.
      const job = await queue.getJob(killedJob!);
      expect(await job?.getState()).toBe('completed');
      expect(job?.processedBy).toBe(other!.name);
    } finally {
      await queue.close();
    }
  }, 600_000);

  it('survives a restart of Redis (without persistence) in the middle of an evaluation', async () => {
    await twoWorkers();
    const out = path.join(tmp, 'redis-restarted');
    const runDir = path.join(out, 'run');
    const run = startCli([...RUN_ARGS, '--out', out, '--run-id', 'run', '--queue', redis.url]);
    expect(await waitFor(runDir, run, lastEvaluationStep())).toBe(true);
    await redis.restart();
    const finished = await run.done;
    expect(finished.code, finished.stderr).toBe(0);
    expect(outcome(summaryOf(finished.stdout))).toEqual(baseline.outcome);
    expect(results(runDir)).toEqual(baseline.results);
  }, 600_000);

  it('resumes a coordinator killed in the middle of a run, with nothing lost or counted twice', async () => {
    await twoWorkers();
    const out = path.join(tmp, 'coordinator-killed');
    const runDir = path.join(out, 'run');
    const run = startCli([...RUN_ARGS, '--out', out, '--run-id', 'run', '--queue', redis.url]);
    expect(await waitFor(runDir, run, lastEvaluationStep())).toBe(true);
    run.child.kill('SIGKILL');
    await run.done;
    const resumed = await runCli('generate-loop', ['--resume', runDir, '--queue', redis.url, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(outcome(summaryOf(resumed.stdout))).toEqual(baseline.outcome);
    expect(results(runDir)).toEqual(baseline.results);
  }, 600_000);
});
