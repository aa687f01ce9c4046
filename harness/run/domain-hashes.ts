import { createHash, type Hash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DomainHash } from '../../archive/index.ts';
import { ALL_SPLITS, DOMAINS_DIR, type DomainRef, formatDomainRef } from '../../domains/index.ts';
import { taskContentHash } from '../evaluation/index.ts';
import { loadDomainTasks } from './domain-tasks.ts';
import type { RunConfig } from './run-config.ts';

/** The folder or file a domain is made from: its code under domains/, or the data the user named. */
function sourceOf(ref: DomainRef): string {
  switch (ref.kind) {
    case 'named':
      return path.join(DOMAINS_DIR, ref.name);
    case 'exercism':
      return ref.dir;
    case 'dataset':
    case 'module':
    case 'lmeval':
      return ref.file;
  }
}

/** Feeds every plain file under `at` (or `at` itself) to `hash`, each as its relative path and bytes, in path order. */
function hashTree(hash: Hash, at: string, rel = ''): void {
  const stat = lstatSync(at);
  if (stat.isFile()) {
    hash.update(`${rel}\u0000`).update(readFileSync(at)).update('\u0000');
    return;
  }
  if (!stat.isDirectory()) return;
  for (const name of readdirSync(at).sort()) {
    if (name === 'node_modules') continue;
    hashTree(hash, path.join(at, name), rel === '' ? name : `${rel}/${name}`);
  }
}

function sourceHash(ref: DomainRef): string {
  const hash = createHash('sha256');
  hashTree(hash, sourceOf(ref));
  return hash.digest('hex');
}

/**
 * What each domain of a run is on this machine now: its grader version, the content hash of every task the
 * run evaluates (as the result cache hashes a task) and of its source folder or file. A domain that cannot be
 * opened here comes back with the reason, never a throw.
 */
export async function domainHashes(
  config: Pick<RunConfig, 'domains' | 'stagedSamples' | 'evalSamples' | 'dataset'>,
): Promise<DomainHash[]> {
  const out: DomainHash[] = [];
  for (const ref of config.domains) {
    const name = ref.name;
    const text = formatDomainRef(ref);
    try {
      const loaded = await loadDomainTasks({ ...config, domains: [ref] });
      if ('error' in loaded) {
        out.push({ name, ref: text, error: loaded.error });
        continue;
      }
      const [{ domain, splits }] = loaded as [(typeof loaded)[number]];
      const tasks = createHash('sha256');
      let count = 0;
      for (const split of ALL_SPLITS)
        for (const task of splits[split] ?? []) {
          tasks.update(`${split}\u0000${task.id}\u0000${taskContentHash(task)}\n`);
          count++;
        }
      out.push({
        name,
        ref: text,
        graderVersion: domain.graderVersion,
        tasks: count,
        tasksHash: tasks.digest('hex'),
        sourceHash: sourceHash(ref),
      });
    } catch (error) {
      out.push({ name, ref: text, error: (error as Error).message });
    }
  }
  return out;
}

/** Where the domains of a bundle and this machine's differ, one line per domain; empty when they are the same. Pure. */
export function domainChanges(bundled: readonly DomainHash[], here: readonly DomainHash[]): string[] {
  const lines: string[] = [];
  for (const then of bundled) {
    const now = here.find((d) => d.name === then.name);
    if ('error' in then) continue;
    if (now === undefined || 'error' in now) {
      lines.push(`domain ${then.name}: cannot be opened here${now === undefined ? '' : ` (${now.error})`}`);
      continue;
    }
    const what = [
      now.graderVersion !== then.graderVersion &&
        `grader version ${then.graderVersion} then, ${now.graderVersion} here`,
      now.tasksHash !== then.tasksHash && `its tasks differ (${then.tasks} then, ${now.tasks} here)`,
      now.sourceHash !== then.sourceHash && 'its source files differ',
    ].filter((w): w is string => w !== false);
    if (what.length > 0) lines.push(`domain ${then.name}: ${what.join('; ')}`);
  }
  return lines;
}
