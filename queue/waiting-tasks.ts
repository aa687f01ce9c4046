import type { LanguageName } from '../domains/index.ts';
import type { AwaitedJobs } from './awaited-jobs.ts';
import { type WaitingChange, waitingChanges } from './routing.ts';

/** How often the coordinator looks whether a language's awaited tasks have a worker that can grade them. */
const LOOK_MS = 2000;

/**
 * Watches the language queues the coordinator awaits jobs on: when a language's tasks have no connected
 * worker listening to its queue, `tell` gets one `waiting` change for it (the tasks wait, nothing fails), and
 * one `served` change when such a worker connects. Returns the function that stops watching.
 */
export function watchWaitingTasks(
  queues: () => ReadonlyMap<LanguageName, AwaitedJobs<unknown>>,
  tell: (change: WaitingChange) => void,
): () => void {
  let said = new Set<LanguageName>();
  let looking = false;
  const look = async (): Promise<void> => {
    const awaited = new Map<LanguageName, number>();
    const graded = new Set<LanguageName>();
    for (const [language, jobs] of queues()) {
      const pending = jobs.pending();
      if (pending === 0) continue;
      awaited.set(language, pending);
      if ((await jobs.queue.getWorkersCount()) > 0) graded.add(language);
    }
    const next = waitingChanges(said, awaited, graded);
    said = next.said;
    for (const change of next.changes) tell(change);
  };
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    // Redis not answering: the Redis watch says so; the next look tells what waits.
    void look()
      .catch(() => undefined)
      .finally(() => {
        looking = false;
      });
  }, LOOK_MS);
  return () => clearInterval(timer);
}
