import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editQueueName, PREFIX, PROJECT_VERSION } from '../../queue/index.ts';
import { startRedis, type TestRedis } from '../../queue/testing/redis-server.ts';
import { outcome, type RunningCli, readArchive, repoDisagreements, startCli } from '../kill-points.ts';
import { runCli } from '../run-cli.ts';
import { type Baseline, results, simRunArgs, singleMachineRun, summaryOf, variantDiffs } from './run-rows.ts';
import { workerSet } from './workers.ts';

/** Two generations, both children committed and evaluated. */
const RUN_ARGS = simRunArgs(2);

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-remote-generations-'));
let redis: TestRedis;
let baseline: Baseline;
const workers = workerSet(() => redis.url);

interface MetaEvent {
  variant_id: number;
  type: string;
  data: string;
}

/** The MetaAgent's start and end events of a run, in order. */
const metaEvents = (runDir: string): MetaEvent[] =>
  readArchive(
    runDir,
    (db) =>
      db
        .prepare(
          "SELECT variant_id, type, data FROM events WHERE type IN ('meta_started', 'meta_finished') ORDER BY id",
        )
        .all() as MetaEvent[],
  ) ?? [];

/** Meta-role model calls the gateway has recorded for a variant. */
const metaCalls = (runDir: string, id: number): number =>
  readArchive(
    runDir,
    (db) =>
      (
        db.prepare("SELECT COUNT(*) AS n FROM llm_calls WHERE role = 'meta' AND variant_id = ?").get(id) as {
          n: number;
        }
      ).n,
  ) ?? 0;

const editQueue = (): Queue =>
  new Queue(editQueueName(PROJECT_VERSION), {
    connection: { host: '127.0.0.1', port: redis.port },
    prefix: PREFIX,
  });

beforeAll(async () => {
  redis = await startRedis();
  baseline = await singleMachineRun(RUN_ARGS, path.join(tmp, 'local'));
  // Both children were committed, so there are edits to compare.
  expect(baseline.diffs.map((d) => d.diff !== null && d.diff.length > 0)).toEqual([true, true]);
}, 600_000);

afterAll(async () => {
  await workers.stopAll();
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** generate-loop as a coordinator that sends MetaAgent runs to the workers, the run stored in `out`. */
const coordinatorArgs = (out: string): string[] => [
  ...RUN_ARGS,
  '--out',
  out,
  '--run-id',
  'run',
  '--queue',
  redis.url,
  '--remote-generations',
];

/**
 * Waits until a MetaAgent job (taken by `worker`, when given) has made a model call while still active: the
 * job is in the middle of the agent's run. Undefined when the run ended first.
 */
async function metaAgentMidRun(
  queue: Queue,
  run: RunningCli,
  runDir: string,
  worker?: string,
): Promise<{ jobId: string; variant: number } | undefined> {
  while (run.child.exitCode === null) {
    const active = (await queue.getActive()).find(
      (job) => worker === undefined || job.processedBy === worker,
    );
    const variant = (active?.data as { variantId?: number } | undefined)?.variantId;
    if (active?.id !== undefined && variant !== undefined && metaCalls(runDir, variant) > 0) {
      return { jobId: active.id, variant };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** The run's archive and variant repo equal the single-machine run's. */
function expectSameAsLocal(runDir: string, stdout: string): void {
  expect(outcome(summaryOf(stdout))).toEqual(baseline.outcome);
  expect(results(runDir)).toEqual(baseline.results);
  expect(variantDiffs(runDir)).toEqual(baseline.diffs);
  expect(repoDisagreements(runDir)).toEqual([]);
}

describe('generate-loop --queue --remote-generations with two workers', () => {
  it('runs every MetaAgent on a worker, with the archive and diffs of a single-machine run', async () => {
    const [first, second] = await workers.restart(2);
    const out = path.join(tmp, 'queued');
    const runDir = path.join(out, 'run');
    const run = await runCli('generate-loop', coordinatorArgs(out));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('evaluation tasks and MetaAgent runs go to the workers');
    expectSameAsLocal(runDir, run.stdout);
    // Each generation's MetaAgent ran once, on one of the workers, and was recorded once.
    const finished = metaEvents(runDir).filter((e) => e.type === 'meta_finished');
    expect(finished.map((e) => e.variant_id)).toEqual([1, 2]);
    for (const event of finished) {
      expect([first!.name, second!.name]).toContain((JSON.parse(event.data) as { worker: string }).worker);
    }
    const status = await runCli('hyperagents', ['queue', 'status', '--queue', redis.url, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { edits: { completed: number } }).edits.completed).toBe(2);
  }, 600_000);

  it('loses nothing and applies nothing twice when a worker is killed in the middle of a MetaAgent run', async () => {
    // One worker at first, so the first MetaAgent job is surely the one killed.
    const [victim] = await workers.restart(1);
    const out = path.join(tmp, 'worker-killed');
    const runDir = path.join(out, 'run');
    const run = startCli(coordinatorArgs(out));
    const queue = editQueue();
    try {
      const killed = await metaAgentMidRun(queue, run, runDir, victim!.name);
      expect(killed).toBeDefined();
      victim!.child.kill('SIGKILL');
      const rescuer = await workers.add();
      const finished = await run.done;
      expect(finished.code, finished.stderr).toBe(0);
      expectSameAsLocal(runDir, finished.stdout);
      // BullMQ's stalled-job check gave the killed job to the other worker, whose edit was applied, once.
      const job = await queue.getJob(killed!.jobId);
      expect(await job?.getState()).toBe('completed');
      expect(job?.processedBy).toBe(rescuer.name);
      const events = metaEvents(runDir).filter((e) => e.variant_id === killed!.variant);
      expect(events.map((e) => e.type)).toEqual(['meta_started', 'meta_finished']);
      expect((JSON.parse(events[1]!.data) as { worker: string }).worker).toBe(rescuer.name);
    } finally {
      await queue.close();
    }
  }, 600_000);

  it("resumes a coordinator killed in the middle of a MetaAgent run and reads that job's result", async () => {
    await workers.restart(2);
    const out = path.join(tmp, 'coordinator-killed');
    const runDir = path.join(out, 'run');
    const run = startCli(coordinatorArgs(out));
    const queue = editQueue();
    try {
      const killed = await metaAgentMidRun(queue, run, runDir);
      expect(killed).toBeDefined();
      run.child.kill('SIGKILL');
      await run.done;
      const resumed = await runCli('generate-loop', [
        '--resume',
        runDir,
        '--queue',
        redis.url,
        '--remote-generations',
        '--json',
      ]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expectSameAsLocal(runDir, resumed.stdout);
      // The resumed coordinator found the same job (its id comes from the generation) and applied its edit once.
      const job = await queue.getJob(killed!.jobId);
      expect(await job?.getState()).toBe('completed');
      const events = metaEvents(runDir).filter((e) => e.variant_id === killed!.variant);
      expect(events.map((e) => e.type)).toEqual(['meta_started', 'meta_started', 'meta_finished']);
    } finally {
      await queue.close();
    }
  }, 600_000);
});
