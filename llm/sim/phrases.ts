/**
 * The sim's strategy phrases (contracts: "Sim strategy phrases" and "The simulated landscape" in
 * docs/simulated-model.md). Matched case-insensitively and whitespace-normalized anywhere in a request's
 * system and user text. Pure data plus tiny lookups; how they combine into P(correct) is in landscape.ts.
 * Changing what the sim answers means bumping the sim's `revision` in llm/model-table.ts, so task
 * results cached from the old tables are not reused.
 */

/**
 * Skill per domain, in logit units; '*' applies to every domain not named. `overfit` is added on the
 * train split and subtracted on held-out splits (val, test): a strategy that fits the examples the
 * MetaAgent reads and generalises badly.
 */
export interface TaskPhrase {
  phrase: string;
  effects: Readonly<Record<string, number>>;
  overfit?: number;
}

export const TASK_PHRASES: readonly TaskPhrase[] = [
  { phrase: 'think step by step', effects: { arithmetic: 0.3, code: 0.3, text: -0.15, '*': 0.35 } },
  { phrase: 'write down every intermediate quantity', effects: { arithmetic: 0.2, '*': 0.05 } },
  { phrase: 'double-check the arithmetic', effects: { arithmetic: 0.15, '*': 0 } },
  { phrase: 're-read the question before answering', effects: { '*': 0.2 } },
  { phrase: 'answer immediately without working', effects: { arithmetic: -0.8, text: 0.1, '*': -0.4 } },
  { phrase: 'keep the answer brief', effects: { arithmetic: -0.1, text: 0.3, '*': 0 } },
  { phrase: 'round the final answer', effects: { arithmetic: -0.5, '*': 0 } },
  { phrase: 'list the edge cases before writing code', effects: { code: 0.45, arithmetic: -0.05, '*': 0 } },
  { phrase: 'trace the code on the examples', effects: { code: 0.1, '*': -0.05 } },
  { phrase: 'name the rule that decides the answer', effects: { text: 0.4, '*': 0.15 } },
  { phrase: 'check the units of the answer', effects: { arithmetic: -0.2, '*': -0.1 } },
  { phrase: 'solve it a second way and compare', effects: { arithmetic: -0.2, code: -0.1, '*': -0.1 } },
  { phrase: 'estimate the magnitude first', effects: { arithmetic: -0.2, '*': -0.1 } },
  { phrase: 'explain the reasoning to a beginner', effects: { text: -0.2, '*': -0.15 } },
  { phrase: 'quote the input before answering', effects: { text: 0.15, '*': 0.1 } },
  { phrase: 'reuse the answer of the most similar example', effects: { '*': 0 }, overfit: 0.25 },
  { phrase: 'match the wording of the training questions', effects: { '*': -0.05 }, overfit: 0.2 },
];

/**
 * Strategies that pay off only together (positive bonus) or clash (negative), per domain like a phrase.
 * A bonus applies when every phrase of the set is present.
 */
export interface PhraseInteraction {
  phrases: readonly string[];
  effects: Readonly<Record<string, number>>;
}

export const INTERACTIONS: readonly PhraseInteraction[] = [
  {
    phrases: ['write down every intermediate quantity', 'double-check the arithmetic'],
    effects: { arithmetic: 0.1, '*': 0.05 },
  },
  {
    phrases: [
      'estimate the magnitude first',
      'check the units of the answer',
      'solve it a second way and compare',
    ],
    effects: { arithmetic: 2.0, '*': 0.4 },
  },
  {
    phrases: ['trace the code on the examples', 'list the edge cases before writing code'],
    effects: { code: 0.45, '*': 0 },
  },
  {
    phrases: ['name the rule that decides the answer', 'quote the input before answering'],
    effects: { text: 0.35, '*': 0.1 },
  },
  { phrases: ['keep the answer brief', 'think step by step'], effects: { '*': -0.3 } },
  { phrases: ['explain the reasoning to a beginner', 'keep the answer brief'], effects: { '*': -0.2 } },
];

/**
 * Every strategy line beyond this many costs `perExtra` logits on every domain: long prompts dilute,
 * so the optimum is a selection, not every helpful phrase.
 */
export const PROMPT_LENGTH = { free: 6, perExtra: 0.12 } as const;

/**
 * P(correct) = floor + (ceiling − floor) · sigmoid(offset + skill), per domain: the offset is the
 * domain's difficulty (its P(correct) at zero skill), the sigmoid gives diminishing returns.
 * Domains not named get an offset between −1.6 and −0.4 fixed by a hash of their name.
 */
export const DOMAIN_OFFSET: Readonly<Record<string, number>> = { arithmetic: -0.6, code: -1.0, text: -0.3 };
export const OTHER_DOMAIN_OFFSET = { min: -1.2, max: -0.2 } as const;
export const P_CORRECT_FLOOR = 0.02;
export const P_CORRECT_CEILING = 0.97;
/** Logit scale: skill is multiplied by this before the sigmoid. */
export const SKILL_SCALE = 1.6;

/** Parse-failure rate with / without an answer-format instruction (text has "<json>" and "response"). */
export const PARSE_FAILURE_RATE = { withFormat: 0.03, withoutFormat: 0.7 } as const;

export const STEP_BY_STEP = 'think step by step';

/** A meta-level phrase in the MetaAgent's own prompt and what it adds to its proposal quality. */
export interface MetaPhrase {
  phrase: string;
  quality: number;
}

export const META_PHRASES: readonly MetaPhrase[] = [
  { phrase: 'ground every change in the failed train tasks', quality: 0.3 },
  { phrase: 'prefer small edits that can be tested', quality: 0.2 },
  { phrase: 'plan several related edits together', quality: 0.2 },
  { phrase: 'keep what worked in the lineage', quality: 0.1 },
  { phrase: 'rewrite the prompt from scratch when stuck', quality: -0.2 },
  { phrase: 'try bold changes to see what happens', quality: -0.15 },
  { phrase: 'trust the first idea that comes to mind', quality: -0.15 },
  { phrase: 'change as many lines as you can', quality: -0.2 },
  { phrase: 'skim the results instead of reading them', quality: -0.15 },
];

/**
 * A meta-level phrase that stalls the MetaAgent: with it in its prompt, a session makes no task edit
 * with P = `stall`, so the child does not differ from its parent and the gate rejects it. Added by the
 * MetaAgent to its own prompt with P = `rate` per session, and never removed by it: a self-modification
 * that only selection can step back from.
 */
export const STALL_PHRASE = 'if a change is not certainly safe, change nothing';
export const STALL = { rate: 0.25, stall: 1 } as const;

/** Proposal quality q = base + Σ meta phrases present, clamped to [min, max]. */
export const META_QUALITY = { base: 0.3, min: 0.05, max: 0.95 } as const;
export const BREAKING_LINE = 'this is not TypeScript (simulated breaking edit)';

export function normalizeText(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ');
}

/** `normalized` must come from `normalizeText`. */
export function hasPhrase(normalized: string, phrase: string): boolean {
  return normalized.includes(normalizeText(phrase));
}

export function effectOn(effects: Readonly<Record<string, number>>, domain: string): number {
  return effects[domain] ?? effects['*'] ?? 0;
}

export function phraseEffect(phrase: TaskPhrase, domain: string): number {
  return effectOn(phrase.effects, domain);
}

export function hasFormatInstruction(text: string): boolean {
  const normalized = normalizeText(text);
  return normalized.includes('<json>') && normalized.includes('response');
}

export function parseFailureRate(text: string): number {
  return hasFormatInstruction(text) ? PARSE_FAILURE_RATE.withFormat : PARSE_FAILURE_RATE.withoutFormat;
}

/** The meta phrases present in a MetaAgent's prompt text. */
export function metaPhrasesIn(systemText: string): MetaPhrase[] {
  const normalized = normalizeText(systemText);
  return META_PHRASES.filter((p) => hasPhrase(normalized, p.phrase));
}

export function metaQuality(systemText: string): number {
  const q = metaPhrasesIn(systemText).reduce<number>((sum, p) => sum + p.quality, META_QUALITY.base);
  return Math.min(META_QUALITY.max, Math.max(META_QUALITY.min, q));
}
