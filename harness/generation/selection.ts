import type { Rng } from '../../system/rng.ts';

export const PARENT_SELECTIONS = [
  'score_child_prop',
  'score_prop',
  'best',
  'latest',
  'random',
  'lcb',
  'confirmed_better',
] as const;
export type ParentSelection = (typeof PARENT_SELECTIONS)[number];

export interface Candidate {
  id: number;
  /** Selection score in [0, 1]: val where the domains have it, scaled down when only staged. */
  score: number;
  /** Children so far, failed ones included. */
  children: number;
  /** Graded answers behind the score (tasks × attempts); unknown: the score is taken as exact. */
  samples?: number;
  /**
   * Every step of its lineage from variant 0 was decided `better` by `--accept sequential` (variant 0 always is);
   * unknown: not asked (only `confirmed_better` asks).
   */
  confirmed?: boolean;
}

/** The weight `confirmed_better` keeps for a variant whose lineage is not confirmed better at every step. */
export const UNCONFIRMED_WEIGHT = 0.1;

/**
 * A lower confidence bound on a candidate's score: one standard error of a mean of `samples` answers below it
 * (a binomial's, √(s(1 − s)/n)). A score from few answers, or a lucky one, counts for less. Pure.
 */
export function lowerBound(c: Pick<Candidate, 'score' | 'samples'>): number {
  if (c.samples === undefined || c.samples <= 0) return c.score;
  return Math.max(0, c.score - Math.sqrt((c.score * (1 - c.score)) / c.samples));
}

export interface Selection {
  id: number;
  reason: string;
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** Weights of `score_child_prop` (with `childPenalty`) or `score_prop` (without). */
export function selectionWeights(candidates: readonly Candidate[], childPenalty: boolean): number[] {
  const top = [...candidates].sort((a, b) => b.score - a.score).slice(0, 3);
  const mid = top.reduce((sum, c) => sum + c.score, 0) / Math.max(1, top.length);
  return candidates.map((c) => {
    const s = sigmoid(10 * (c.score - mid));
    return childPenalty ? s * Math.exp(-((c.children / 8) ** 3)) : s;
  });
}

function sampleIndex(weights: readonly number[], rng: Rng): number {
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (!(total > 0)) return Math.floor(rng.next() * weights.length);
  let r = rng.next() * total;
  for (const [i, w] of weights.entries()) {
    r -= w;
    if (r < 0) return i;
  }
  return weights.length - 1;
}

/** Picks the next parent among valid candidates (ordered by id). Pure apart from the seeded rng. */
export function selectParent(
  candidates: readonly Candidate[],
  strategy: ParentSelection,
  rng: Rng,
): Selection {
  if (candidates.length === 0) throw new Error('selectParent needs at least one candidate');
  const pick = (c: Candidate, why: string): Selection => ({ id: c.id, reason: `${strategy}: ${why}` });
  switch (strategy) {
    case 'best': {
      const best = candidates.reduce((a, b) => (b.score > a.score ? b : a));
      return pick(best, `highest score ${best.score.toFixed(3)}`);
    }
    case 'latest':
      return pick(candidates[candidates.length - 1]!, 'newest valid variant');
    case 'random':
      return pick(candidates[Math.floor(rng.next() * candidates.length)]!, 'uniform draw');
    case 'lcb': {
      // score_child_prop on the lower bounds: a variant is preferred for a score that is likely real.
      const bounds = candidates.map((c) => ({ ...c, score: lowerBound(c) }));
      const weights = selectionWeights(bounds, true);
      const total = weights.reduce((sum, w) => sum + w, 0);
      const i = sampleIndex(weights, rng);
      const p = total > 0 ? weights[i]! / total : 1 / candidates.length;
      const c = candidates[i]!;
      return pick(
        c,
        `drawn with p=${p.toFixed(3)} (score ${c.score.toFixed(3)}, lower bound ${bounds[i]!.score.toFixed(3)})`,
      );
    }
    case 'confirmed_better': {
      // score_child_prop, with a lineage not confirmed better at every step counting for a tenth.
      const weights = selectionWeights(candidates, true).map((w, i) =>
        candidates[i]!.confirmed === true ? w : w * UNCONFIRMED_WEIGHT,
      );
      const total = weights.reduce((sum, w) => sum + w, 0);
      const i = sampleIndex(weights, rng);
      const p = total > 0 ? weights[i]! / total : 1 / candidates.length;
      const c = candidates[i]!;
      const lineage = c.confirmed === true ? 'a lineage confirmed better' : 'not confirmed better';
      return pick(c, `drawn with p=${p.toFixed(3)} (score ${c.score.toFixed(3)}, ${lineage})`);
    }
    case 'score_prop':
    case 'score_child_prop': {
      const weights = selectionWeights(candidates, strategy === 'score_child_prop');
      const total = weights.reduce((sum, w) => sum + w, 0);
      const i = sampleIndex(weights, rng);
      const p = total > 0 ? weights[i]! / total : 1 / candidates.length;
      return pick(candidates[i]!, `drawn with p=${p.toFixed(3)} (score ${candidates[i]!.score.toFixed(3)})`);
    }
    default: {
      const never: never = strategy;
      throw new Error(`unknown parent selection ${String(never)}`);
    }
  }
}

/** What parent selection knows of one variant of the archive. */
export interface ArchivedVariant {
  id: number;
  parentId: number | null;
  /** Finished and evaluated: its selection score, else null (failed, rejected, or still in flight). */
  score: number | null;
  /** Failed because its parent's MetaAgent failed by itself: that disqualifies the parent. */
  blamesParent: boolean;
}

/**
 * How far behind generation g its parent's pool stops when `parallel` generations run at once: the pool
 * holds the variants up to g − lag. One generation at a time, the lag is 1 (every variant before g). With
 * K at once it is 2K − 1, not K: generation g then waits only for generations that started at least K
 * launches before it, so a slot freed by a quick generation is used at once instead of waiting for the one
 * slow generation K places back, while the pool still does not depend on which generation ended first.
 */
export function selectionLag(parallel: number): number {
  return 2 * Math.max(1, parallel) - 1;
}

/**
 * The candidates for the parent of generation `generation` when `parallel` generations run at once. Only
 * variants up to `generation − selectionLag(parallel)` count as finished (the run waits for them), so the
 * pool does not depend on which generations happened to end first; children are counted over every
 * generation before `generation`, those still in flight included, so a parent is not drawn K times in a row
 * while its children are evaluated. Pure.
 */
export function selectionPool(
  variants: readonly ArchivedVariant[],
  generation: number,
  parallel: number,
): Candidate[] {
  // Variant 0 is always finished before generation 1 starts.
  const horizon = Math.max(0, generation - selectionLag(parallel));
  const children = new Map<number, number>();
  const disqualified = new Set<number>();
  for (const v of variants) {
    if (v.id >= generation || v.parentId === null) continue;
    children.set(v.parentId, (children.get(v.parentId) ?? 0) + 1);
    if (v.id <= horizon && v.blamesParent) disqualified.add(v.parentId);
  }
  return variants
    .filter((v) => v.id <= horizon && v.score !== null && !disqualified.has(v.id))
    .map((v) => ({ id: v.id, score: v.score!, children: children.get(v.id) ?? 0 }));
}
