import {
  DOMAIN_OFFSET,
  effectOn,
  hasPhrase,
  INTERACTIONS,
  normalizeText,
  OTHER_DOMAIN_OFFSET,
  P_CORRECT_CEILING,
  P_CORRECT_FLOOR,
  PROMPT_LENGTH,
  SKILL_SCALE,
  TASK_PHRASES,
} from './phrases.ts';
import { hash01 } from './rng.ts';

/**
 * The task-side landscape: how the strategy phrases in a prompt combine into P(correct) per domain.
 * Pure; see phrases.ts for the tables, and docs/simulated-model.md for what helps, what hurts and where
 * the optimum is.
 */

/**
 * The task-side landscapes a run can choose (`--sim-landscape`): `default` is the one described below;
 * on `flat` no edit changes a variant's true skill (its P(correct) and parse-failure rate on every task), so
 * only chance can move a score: a control for experiments (evolution should not beat spending its budget on
 * the initial agent there) and where every child decided `better` than its parent is a false acceptance.
 * `inert`, its first name, is the same landscape.
 */
export const SIM_LANDSCAPES = ['default', 'flat', 'inert'] as const;
export type SimLandscape = (typeof SIM_LANDSCAPES)[number];

/** Whether no edit changes a variant's true skill on this landscape (`flat`, or `inert`, its first name). */
export const isFlat = (landscape: SimLandscape): boolean => landscape !== 'default';

/** The strategy phrases (TASK_PHRASES names) present in a text. */
export function phrasesIn(text: string): Set<string> {
  const normalized = normalizeText(text);
  return new Set(TASK_PHRASES.filter((p) => hasPhrase(normalized, p.phrase)).map((p) => p.phrase));
}

/** A domain's difficulty: the logit of its P(correct) before any strategy. */
export function domainOffset(domain: string): number {
  const named = DOMAIN_OFFSET[domain];
  if (named !== undefined) return named;
  const { min, max } = OTHER_DOMAIN_OFFSET;
  return min + (max - min) * hash01('sim-domain-offset', domain);
}

/** Which split a task is on: overfitting strategies help on `train` and hurt on `heldOut`. */
export type SplitKind = 'train' | 'heldOut' | 'unknown';

export function splitKind(split: string | undefined): SplitKind {
  if (split === undefined) return 'unknown';
  return split === 'train' ? 'train' : 'heldOut';
}

/**
 * Summed skill (logits) of a set of phrases on a domain and split: single effects, overfitting,
 * interactions, length cost.
 */
export function skill(present: ReadonlySet<string>, domain: string, split: SplitKind = 'heldOut'): number {
  const overfitSign = split === 'train' ? 1 : split === 'heldOut' ? -1 : 0;
  let total = 0;
  for (const p of TASK_PHRASES) {
    if (present.has(p.phrase)) total += effectOn(p.effects, domain) + overfitSign * (p.overfit ?? 0);
  }
  for (const i of INTERACTIONS) {
    if (i.phrases.every((p) => present.has(p))) total += effectOn(i.effects, domain);
  }
  return total - PROMPT_LENGTH.perExtra * Math.max(0, present.size - PROMPT_LENGTH.free);
}

export function pCorrectOf(
  present: ReadonlySet<string>,
  domain: string,
  split: SplitKind = 'heldOut',
): number {
  const z = domainOffset(domain) + SKILL_SCALE * skill(present, domain, split);
  return P_CORRECT_FLOOR + (P_CORRECT_CEILING - P_CORRECT_FLOOR) / (1 + Math.exp(-z));
}

export function pCorrect(
  text: string,
  domain: string,
  split: SplitKind = 'heldOut',
  landscape: SimLandscape = 'default',
): number {
  return pCorrectOf(isFlat(landscape) ? new Set() : phrasesIn(text), domain, split);
}

/**
 * Mean P(correct) over the domains, each weighted (default 1), on held-out tasks (what a run's
 * selection score tracks) or on train (what the MetaAgent sees).
 */
export function meanPCorrect(
  present: ReadonlySet<string>,
  domains: readonly string[],
  weights: readonly number[] = domains.map(() => 1),
  split: SplitKind = 'heldOut',
): number {
  const total = weights.reduce((s, w) => s + w, 0);
  if (domains.length === 0 || total <= 0) return 0;
  return domains.reduce((s, d, i) => s + (weights[i] ?? 0) * pCorrectOf(present, d, split), 0) / total;
}

/** The best set of phrases for the domains and its mean P(correct), by trying every subset. */
export function optimum(domains: readonly string[]): { phrases: string[]; pCorrect: number } {
  const names = TASK_PHRASES.map((p) => p.phrase);
  let best = { phrases: [] as string[], pCorrect: meanPCorrect(new Set(), domains) };
  for (let mask = 1; mask < 1 << names.length; mask++) {
    const chosen = names.filter((_, i) => (mask >> i) & 1);
    const p = meanPCorrect(new Set(chosen), domains);
    if (p > best.pCorrect) best = { phrases: chosen, pCorrect: p };
  }
  return best;
}
