import { type Job, Worker, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { LanguageName } from '../domains/index.ts';
import { type LanguageToolchain, LEFT_OUT, type ProbeOptions, probeToolchains } from '../domains/index.ts';
import type { TaskJobResult } from './protocol.ts';
import { taskQueueOf } from './routing.ts';
import { sharedSlots } from './shared-slots.ts';
import { publishToolchains, REFRESH_MS, unpublishToolchains } from './toolchains.ts';

/**
 * The queues a worker takes task jobs from: the plain task queue, and the queue of each language whose
 * toolchain it found working when it started (and was not told to leave out). Its toolchains are published
 * for `queue status` while it runs.
 */
export interface TaskListeners {
  /** Every language, as probed at start and since (a toolchain that failed while grading is dropped). */
  toolchains(): LanguageToolchain[];
  /** Stops taking jobs of `language` (its toolchain failed): its queue is left, and the change published. */
  drop(language: LanguageName, problem: string, install: string): void;
  close(): Promise<void>;
}

export interface TaskListenerOptions {
  client: Redis;
  version: string;
  /** The worker's name (`host-pid`). */
  name: string;
  workerOptions: WorkerOptions;
  /** Tasks at once, over all the queues together. */
  concurrency: number;
  /** Only these languages are taken (`--languages`); null: every one whose toolchain works. */
  only: readonly LanguageName[] | null;
  probe?: ProbeOptions;
  process(job: Job): Promise<TaskJobResult>;
}

export async function listenForTasks(options: TaskListenerOptions): Promise<TaskListeners> {
  const probed = await probeToolchains(options.probe);
  let toolchains: LanguageToolchain[] = probed.map((t) =>
    t.ok && options.only !== null && !options.only.includes(t.language)
      ? { language: t.language, ok: false, problem: LEFT_OUT, install: '' }
      : t,
  );
  const slots = sharedSlots(options.concurrency);
  const listen = (language: LanguageName | null): Worker => {
    const worker: Worker = new Worker(
      taskQueueOf(options.version, language),
      (job) => slots.run(worker, () => options.process(job)),
      { ...options.workerOptions, concurrency: options.concurrency },
    );
    worker.on('error', () => undefined);
    slots.add(worker);
    return worker;
  };
  const plain = listen(null);
  const byLanguage = new Map<LanguageName, Worker>(
    toolchains.filter((t) => t.ok).map((t) => [t.language, listen(t.language)]),
  );
  const publish = (): Promise<void> =>
    publishToolchains(options.client, options.version, options.name, toolchains).catch(() => undefined);
  await publish();
  const refresh = setInterval(() => void publish(), REFRESH_MS);
  return {
    toolchains: () => toolchains,
    drop(language, problem, install) {
      const worker = byLanguage.get(language);
      if (worker === undefined) return;
      byLanguage.delete(language);
      slots.remove(worker);
      // Not awaited: the job that found the fault is still running on this worker.
      void worker.close().catch(() => undefined);
      toolchains = toolchains.map((t) =>
        t.language === language ? { language, ok: false, problem, install } : t,
      );
      void publish();
    },
    async close() {
      clearInterval(refresh);
      await Promise.all([plain, ...byLanguage.values()].map((w) => w.close()));
      await unpublishToolchains(options.client, options.version, options.name).catch(() => undefined);
    },
  };
}
