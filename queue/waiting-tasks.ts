import type { LanguageName } from '../domains/index.ts';
import type { AwaitedJobs } from './awaited-jobs.ts';
import { type WaitingChange, waitingChanges } from './routing.ts';

/** How often the coordinator looks whether a language's awaited tasks have a worker that can grade them. */
const LOOK_MS = 2000;

/**
 * Watches the language queues the coordinator awaits jobs on: when a language's tasks have no connected
 * worker listening to its queue, `tell` gets one `waiting` change for it (the tasks wait, nothing fails), and
 * one `served` change when such a worker connects (also when its tasks ran between two looks). Returns the
 * function that stops watching, after a last look, so a worker that came just before the end is still told.
 */
export function watchWaitingTasks(
  queues: () => ReadonlyMap<LanguageName, AwaitedJobs<unknown>>,
  tell: (change: WaitingChange) => void,
): () => Promise<void> {
  let said = new Set<LanguageName>();
  let looking: Promise<void> | null = null;
  const look = async (): Promise<void> => {
    const awaited = new Map<LanguageName, number>();
    const graded = new Set<LanguageName>();
    for (const [language, jobs] of queues()) {
      const pending = jobs.pending();
      // A language said to wait whose tasks all ended: served, if a worker of it is there now.
      if (pending === 0 && !said.has(language)) continue;
      if (pending > 0) awaited.set(language, pending);
      if ((await jobs.queue.getWorkersCount()) > 0) graded.add(language);
    }
    const next = waitingChanges(said, awaited, graded);
    said = next.said;
    for (const change of next.changes) tell(change);
  };
  // Redis not answering: the Redis watch says so; the next look tells what waits.
  const lookOnce = (): Promise<void> => {
    looking ??= look()
      .catch(() => undefined)
      .finally(() => {
        looking = null;
      });
    return looking;
  };
  const timer = setInterval(() => void lookOnce(), LOOK_MS);
  return async () => {
    clearInterval(timer);
    await lookOnce();
    if (said.size > 0) await lookOnce();
  };
}
