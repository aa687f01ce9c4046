import type { Worker } from 'bullmq';

/**
 * One worker process's task slots, shared by its BullMQ workers of several queues (the plain task queue and
 * one per language it grades): each may take a job while the process runs fewer than `size`. BullMQ's
 * concurrency is per queue, so each queue's is set, as jobs start and end, to the jobs it runs plus the free
 * slots. BullMQ keeps it at 1 or more, so a queue that runs nothing still waits for a job when none is free:
 * at most one job per such queue may run beyond `size` at once.
 */
export interface SharedSlots {
  /** Counts the worker's jobs in the slots; `run` wraps its processor. */
  add(worker: Worker): void;
  remove(worker: Worker): void;
  run<T>(worker: Worker, work: () => Promise<T>): Promise<T>;
}

export function sharedSlots(size: number): SharedSlots {
  const running = new Map<Worker, number>();
  const resize = (): void => {
    let total = 0;
    for (const n of running.values()) total += n;
    const free = Math.max(0, size - total);
    for (const [worker, n] of running) worker.concurrency = Math.max(1, n + free);
  };
  const change = (worker: Worker, by: number): void => {
    const n = running.get(worker);
    if (n === undefined) return;
    running.set(worker, n + by);
    resize();
  };
  return {
    add(worker) {
      running.set(worker, 0);
      resize();
    },
    remove(worker) {
      running.delete(worker);
      resize();
    },
    async run(worker, work) {
      change(worker, 1);
      try {
        return await work();
      } finally {
        change(worker, -1);
      }
    },
  };
}
