import type { EvaluationRow } from '../../archive/index.ts';
import { type Domain, selectionSplit } from '../../domains/index.ts';

/**
 * A variant's selection score: the mean over domains of its score on the selection split (val, else
 * train). A domain evaluated only on the staged sample counts with its score scaled by the sample's
 * fraction of the full set, so unevaluated tasks count as zeros. Null when a domain has no score.
 */
export function selectionScore(
  evaluations: readonly EvaluationRow[],
  domains: readonly Domain[],
): number | null {
  if (domains.length === 0) return null;
  let sum = 0;
  for (const domain of domains) {
    const split = selectionSplit(domain);
    const rows = evaluations.filter((e) => e.domain === domain.name && e.split === split);
    const full = rows.find((e) => e.stage === 'full');
    const staged = rows.find((e) => e.stage === 'staged');
    if (full !== undefined) sum += full.score;
    else if (staged !== undefined)
      sum += staged.score * (staged.nTotal === 0 ? 0 : staged.nTasks / staged.nTotal);
    else return null;
  }
  return sum / domains.length;
}

/** Per-domain scores by split, from the fullest evaluation of each. */
export function scoresBySplit(
  evaluations: readonly EvaluationRow[],
): Record<string, Partial<Record<'train' | 'val' | 'test', number>>> {
  const out: Record<string, Partial<Record<'train' | 'val' | 'test', number>>> = {};
  for (const e of evaluations) {
    const domain = out[e.domain] ?? {};
    out[e.domain] = domain;
    const hasFull = evaluations.some(
      (o) => o.domain === e.domain && o.split === e.split && o.stage === 'full',
    );
    if (e.stage === 'full' || !hasFull) domain[e.split] = e.score;
  }
  return out;
}
