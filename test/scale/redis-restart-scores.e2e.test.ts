import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareLoop } from '../../cli/loop/loop-prepare.ts';
import type { RemoteTasks } from '../../harness/generation/index.ts';
import type { RunSummary } from '../../harness/run/index.ts';
import { type Coordinator, openCoordinator, PROJECT_VERSION, parseRedisUrl } from '../../queue/index.ts';
import { outcome, readArchive } from '../kill-points.ts';
import { runQueued } from './queued-run.ts';
import { results, simRunArgs } from './run-rows.ts';
import { scaleRun } from './scale-run.ts';

/** One generation, whose child passes its gate (one smoke task) and is evaluated staged, then in full. */
const RUN_ARGS = simRunArgs(1);

const scale = scaleRun('redis-restart-scores', RUN_ARGS);
const { tmp, workers } = scale;

/**
 * The coordinator's tasks, with Redis restarted (killed and started again, empty) once: after the child's
 * variant was published (its pool opened, before its smoke task), right before the child's `nth` evaluated
 * task (from 1; smoke tasks not counted) is sent, at the start of a stage. No job is awaited then, so nothing
 * but the coordinator can notice that Redis lost the gateway's address and the child's code.
 */
function restartingBefore(coordinator: Coordinator, id: number, nth: number, log: string[]): RemoteTasks {
  return {
    async pool(ctx, variant) {
      const pool = await coordinator.pool(ctx, variant);
      if (variant.id !== id) return pool;
      let sent = 0;
      let restarted: Promise<void> = Promise.resolve();
      return {
        ...pool,
        async run(request) {
          if (!request.id.startsWith('smoke-') && ++sent === nth) {
            restarted = scale.redis.restart().then(() => {
              log.push(`Redis restarted before variant ${id}'s task ${request.id}`);
            });
          }
          await restarted;
          return pool.run(request);
        },
      };
    },
  };
}

/** How many tasks the child's staged stage evaluates in the single-machine run. */
const stagedTasks = (): number =>
  readArchive(
    path.join(tmp, 'local', 'run'),
    (db) =>
      (
        db
          .prepare("SELECT SUM(n_tasks) AS n FROM evaluations WHERE variant_id = 1 AND stage = 'staged'")
          .get() as { n: number }
      ).n,
  ) ?? 0;

/** generate-loop --queue in this process, its tasks going through `remote`; the run's summary. */
async function queuedRun(out: string, remote: (c: Coordinator) => RemoteTasks): Promise<RunSummary> {
  const prepared = await prepareLoop([...RUN_ARGS, '--out', out, '--run-id', 'run']);
  if (prepared === 'help' || prepared === 'version') throw new Error('not a run');
  const parsed = parseRedisUrl(scale.redis.url);
  if (!parsed.ok) throw new Error(parsed.message);
  const coordinator = await openCoordinator({
    target: parsed.target,
    version: PROJECT_VERSION,
    gatewayUrl: null,
  });
  try {
    return await runQueued(prepared, remote(coordinator));
  } finally {
    await coordinator.close();
  }
}

describe('a Redis restart (without persistence) between publishing a variant and adding its jobs', () => {
  it.each([
    ['staged', () => 1],
    ['full', () => stagedTasks() + 1],
  ])(
    'before the %s stage loses nothing: the stage runs with what workers read published again, and scores as without it',
    async (stage, nth) => {
      expect(nth()).toBeGreaterThan(0);
      await workers.restart(2);
      const log: string[] = [];
      const out = path.join(tmp, `restarted-${stage}`);
      const summary = await queuedRun(out, (coordinator) => restartingBefore(coordinator, 1, nth(), log));
      expect(log).toHaveLength(1);
      const scores = outcome(summary);
      console.log(
        `restart before the ${stage} stage: variant scores on one machine ${JSON.stringify(scale.baseline.outcome.map((v) => v.score))}, ` +
          `through the restarted Redis ${JSON.stringify(scores.map((v) => v.score))}`,
      );
      // The same scores and task results as the run of the same seed on one machine: none lowered (and no
      // variant failed) by a task whose job failed for want of the gateway's address or the code.
      expect(scores).toEqual(scale.baseline.outcome);
      expect(results(path.join(out, 'run'))).toEqual(scale.baseline.results);
    },
  );
});
