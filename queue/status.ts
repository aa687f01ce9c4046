import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { connectionOptions } from './connection.ts';
import { editQueueName, PREFIX, taskQueueName, VERSION_KEY } from './protocol.ts';
import type { RedisTarget } from './redis-url.ts';

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
    const workers = await queue.getWorkers();
    return {
      queue: name,
      coordinatorVersion: await client.get(VERSION_KEY),
      jobs: await countJobs(queue),
      edits: await countJobs(edits),
      // BullMQ names a named worker's connection `<queue client name>:w:<worker name>`.
      workers: [...new Set(workers.map((w) => (w.rawname ?? '').split(':w:')[1] ?? w.addr ?? '?'))].sort(),
    };
  } finally {
    await queue.close();
    await edits.close();
    client.disconnect();
  }
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
