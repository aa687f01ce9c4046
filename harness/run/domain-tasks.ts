import { ALL_SPLITS, DOMAINS_DIR, type DomainReading, openDomain } from '../../domains/index.ts';
import type { DomainTasks } from '../evaluation/index.ts';
import type { RunConfig } from './run-config.ts';

/**
 * Loads each domain's tasks, cut to `--eval-samples`, with `--staged-samples` applied. A reference the
 * user must fix (a missing file, a field that is not there) is returned as a message. `reading.gradedElsewhere`
 * (a coordinator whose workers grade): exercises are not left out for a toolchain this machine lacks.
 */
export async function loadDomainTasks(
  config: Pick<RunConfig, 'domains' | 'stagedSamples' | 'evalSamples' | 'dataset'>,
  reading: DomainReading = {},
): Promise<DomainTasks[] | { error: string }> {
  const out: DomainTasks[] = [];
  for (const ref of config.domains) {
    const opened = await openDomain(ref, config.dataset, DOMAINS_DIR, reading);
    if (!opened.ok) return { error: opened.message };
    const loaded = opened.domain;
    const domain =
      config.stagedSamples === null ? loaded : { ...loaded, stagedSamples: config.stagedSamples };
    const splits: DomainTasks['splits'] = {};
    for (const split of ALL_SPLITS) {
      if (!domain.splits.includes(split)) continue;
      const tasks = await domain.load(split);
      splits[split] = config.evalSamples === null ? tasks : tasks.slice(0, config.evalSamples);
    }
    out.push({ domain, splits });
  }
  return out;
}
