import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { LanguageToolchain } from '../domains/index.ts';
import { LANGUAGE_NAMES, type LanguageName } from '../domains/index.ts';
import { connectionOptions } from './connection.ts';
import { editQueueName, PREFIX, taskQueueName, VERSION_KEY } from './protocol.ts';
import type { RedisTarget } from './redis-url.ts';
import { taskQueueOf } from './routing.ts';
import { readToolchains } from './toolchains.ts';

export interface JobCounts {
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
}

export interface QueueStatus {
  queue: string;
  /** The version of the last coordinator that used this Redis, if any. */
  coordinatorVersion: string | null;
  /** Task jobs. */
  jobs: JobCounts;
  /** MetaAgent jobs (`--remote-generations`), on their own queue. */
  edits: JobCounts;
  /** Worker processes connected to this version's queue, by name (`host-pid`). */
  workers: string[];
  /** What each connected worker grades (and cannot), by name, as it found when it started. */
  toolchains: Record<string, LanguageToolchain[]>;
  /** Workspace task jobs per language that has any (each language has its own queue). */
  languageJobs: Partial<Record<LanguageName, JobCounts>>;
}

/** The queues of this project version as they are now: jobs by state and connected workers. */
export async function queueStatus(target: RedisTarget, version: string): Promise<QueueStatus> {
  const connection = connectionOptions(target);
  const name = taskQueueName(version);
  const queue = new Queue(name, { connection, prefix: PREFIX });
  const edits = new Queue(editQueueName(version), { connection, prefix: PREFIX });
  const client = new Redis(connection);
  queue.on('error', () => undefined);
  edits.on('error', () => undefined);
  client.on('error', () => undefined);
  try {
    // BullMQ names a named worker's connection `<queue client name>:w:<worker name>`.
    const workers = [
      ...new Set((await queue.getWorkers()).map((w) => (w.rawname ?? '').split(':w:')[1] ?? w.addr ?? '?')),
    ].sort();
    const published = await readToolchains(client, version);
    return {
      queue: name,
      coordinatorVersion: await client.get(VERSION_KEY),
      jobs: await countJobs(queue),
      edits: await countJobs(edits),
      workers,
      toolchains: Object.fromEntries(
        workers.flatMap((w) => (published.has(w) ? [[w, published.get(w)!]] : [])),
      ),
      languageJobs: await countLanguageJobs(target, version),
    };
  } finally {
    await queue.close();
    await edits.close();
    client.disconnect();
  }
}

async function countLanguageJobs(
  target: RedisTarget,
  version: string,
): Promise<Partial<Record<LanguageName, JobCounts>>> {
  const out: Partial<Record<LanguageName, JobCounts>> = {};
  for (const language of LANGUAGE_NAMES) {
    const queue = new Queue(taskQueueOf(version, language), {
      connection: connectionOptions(target),
      prefix: PREFIX,
    });
    queue.on('error', () => undefined);
    try {
      const counts = await countJobs(queue);
      if (Object.values(counts).some((n) => n > 0)) out[language] = counts;
    } finally {
      await queue.close();
    }
  }
  return out;
}

async function countJobs(queue: Queue): Promise<JobCounts> {
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
  return {
    waiting: counts.waiting ?? 0,
    active: counts.active ?? 0,
    delayed: counts.delayed ?? 0,
    completed: counts.completed ?? 0,
    failed: counts.failed ?? 0,
  };
}
