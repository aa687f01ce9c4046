import { loadDomain } from '../../domains/index.ts';
import type { TaskSource } from '../../web/data.ts';

/**
 * Task inputs and answers for the browser, loaded from the domain folders. A domain that cannot be
 * loaded here (a `dataset:` file moved away, a domain since removed) gives none: the pages then show
 * predictions without inputs.
 */
export function domainTasks(): TaskSource {
  const cache = new Map<string, Promise<ReadonlyMap<string, { input: unknown; answer: unknown }> | null>>();
  return (domain, split) => {
    const key = `${domain}\u0000${split}`;
    let found = cache.get(key);
    if (found === undefined) {
      found = (async () => {
        if (!/^[a-z0-9][a-z0-9_-]*$/i.test(domain)) return null;
        const d = await loadDomain(domain);
        if (!(d.splits as readonly string[]).includes(split)) return null;
        const tasks = await d.load(split as (typeof d.splits)[number]);
        return new Map(tasks.map((t) => [t.id, { input: t.input, answer: t.answer }]));
      })().catch(() => null);
      cache.set(key, found);
    }
    return found;
  };
}
