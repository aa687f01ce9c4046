import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { connectionOptions } from './connection.ts';
import { PREFIX, taskQueueName, VERSION_KEY } from './protocol.ts';
import type { RedisTarget } from './redis-url.ts';

export interface QueueStatus {
  queue: string;
  /** The version of the last coordinator that used this Redis, if any. */
  coordinatorVersion: string | null;
  jobs: { waiting: number; active: number; delayed: number; completed: number; failed: number };
  /** Worker processes connected to this version's queue, by name (`host-pid`). */
  workers: string[];
}

/** The queue of this project version as it is now: jobs by state and connected workers. */
export async function queueStatus(target: RedisTarget, version: string): Promise<QueueStatus> {
  const connection = connectionOptions(target);
  const name = taskQueueName(version);
  const queue = new Queue(name, { connection, prefix: PREFIX });
  const client = new Redis(connection);
  queue.on('error', () => undefined);
  client.on('error', () => undefined);
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    const workers = await queue.getWorkers();
    return {
      queue: name,
      coordinatorVersion: await client.get(VERSION_KEY),
      jobs: {
        waiting: counts.waiting ?? 0,
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        completed: counts.completed ?? 0,
        failed: counts.failed ?? 0,
      },
      // BullMQ names a named worker's connection `<queue client name>:w:<worker name>`.
      workers: [...new Set(workers.map((w) => (w.rawname ?? '').split(':w:')[1] ?? w.addr ?? '?'))].sort(),
    };
  } finally {
    await queue.close();
    client.disconnect();
  }
}
