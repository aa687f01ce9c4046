import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { afterAll } from 'vitest';
import { LANGUAGE_NAMES, type LanguageName } from '../../domains/index.ts';
import { PREFIX, PROJECT_VERSION, taskQueueOf } from '../../queue/index.ts';
import { readArchive } from '../kill-points.ts';
import { PROJECT_ROOT } from '../run-cli.ts';

/**
 * Two exercises of the fixtures whose graders are the fastest (Python, JavaScript), in a folder of their own
 * (removed after the test file): a Polyglot run cheap enough to run several times in one test.
 */
export function fastExercises(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'hyperagents-fast-exercises-'));
  for (const exercise of ['python/transpose', 'javascript/space-age']) {
    const [language, name] = exercise.split('/') as [string, string];
    const rel = path.join(language, 'exercises', 'practice', name);
    cpSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism', rel), path.join(dir, rel), {
      recursive: true,
    });
  }
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The queue of `language`'s tasks in the Redis on `port` (workspace tasks go on their language's, queue/routing.ts). */
export const languageQueue = (port: number, language: LanguageName): Queue =>
  new Queue(taskQueueOf(PROJECT_VERSION, language), {
    connection: { host: '127.0.0.1', port },
    prefix: PREFIX,
  });

/** Resolves once some language's queue has a job in `state`, polled every 50 ms; false if `stop()` first. */
export async function jobIn(
  port: number,
  state: 'waiting' | 'active',
  stop: () => boolean,
): Promise<boolean> {
  const queues = LANGUAGE_NAMES.map((language) => languageQueue(port, language));
  try {
    while (!stop()) {
      for (const queue of queues) {
        const count = state === 'active' ? await queue.getActiveCount() : await queue.getWaitingCount();
        if (count > 0) return true;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  } finally {
    await Promise.all(queues.map((queue) => queue.close()));
  }
}

export interface Attempt {
  variant_id: number;
  task_id: string;
  attempt: number;
  outcome: string;
  error: string | null;
  prediction: string | null;
  raw_output: string;
}

/** Every attempt of every task as stored, with what the noise floor and the confirmation made of them. */
export const attempts = (runDir: string) =>
  readArchive(runDir, (db) => ({
    results: db
      .prepare(
        'SELECT variant_id, split, task_id, attempt, outcome, score, error, prediction, raw_output, detail FROM task_results ORDER BY variant_id, split, task_id, attempt',
      )
      .all() as Attempt[],
    noiseFloor: db.prepare('SELECT spread, scores FROM noise_floor').all(),
    confirmed: db
      .prepare('SELECT variant_id, raw_score, confirmed_score, attempts, scores FROM confirmed_scores')
      .all(),
  }));
