/**
 * The sim's strategy phrases (contracts: "Sim strategy phrases"). Matched case-insensitively and
 * whitespace-normalized anywhere in a request's system and user text. Pure data plus tiny lookups.
 * Changing what the sim answers means bumping the sim's `revision` in llm/registry.ts, so task results
 * cached from the old tables are not reused.
 */

/** Effect on P(correct) per domain; '*' applies to every domain not named. */
export interface TaskPhrase {
  phrase: string;
  effects: Readonly<Record<string, number>>;
}

export const TASK_PHRASES: readonly TaskPhrase[] = [
  { phrase: 'think step by step', effects: { arithmetic: 0.15, text: -0.05, '*': 0.05 } },
  { phrase: 'write down every intermediate quantity', effects: { arithmetic: 0.12, '*': 0 } },
  { phrase: 'double-check the arithmetic', effects: { arithmetic: 0.1, '*': 0 } },
  { phrase: 're-read the question before answering', effects: { '*': 0.05 } },
  { phrase: 'answer immediately without working', effects: { arithmetic: -0.25, text: 0.02, '*': -0.1 } },
  { phrase: 'keep the answer brief', effects: { arithmetic: -0.05, text: 0.08, '*': 0 } },
  { phrase: 'round the final answer', effects: { arithmetic: -0.15, '*': 0 } },
];

/** Base P(correct) per domain ('*' = any other), before phrase effects. */
export const BASE_P_CORRECT: Readonly<Record<string, number>> = { arithmetic: 0.35, '*': 0.35 };
export const P_CORRECT_MIN = 0.02;
export const P_CORRECT_MAX = 0.95;

/** Parse-failure rate with / without an answer-format instruction (text has "<json>" and "response"). */
export const PARSE_FAILURE_RATE = { withFormat: 0.03, withoutFormat: 0.7 } as const;

export const STEP_BY_STEP = 'think step by step';

export const META_PHRASES: readonly string[] = [
  'ground every change in the failed train tasks',
  'prefer small edits that can be tested',
  'keep what worked in the lineage',
];

/** Proposal quality q = base + perPhrase x (meta phrases present), capped at max. */
export const META_QUALITY = { base: 0.5, perPhrase: 0.12, max: 0.9 } as const;
/** Chance the meta role makes a breaking edit instead of a proposal. */
export const BREAKING_EDIT_RATE = 0.08;
/** Chance the meta role appends an absent meta phrase to its own prompt. */
export const META_PROMPT_EDIT_RATE = 0.3;
export const BREAKING_LINE = 'this is not TypeScript (simulated breaking edit)';

export function normalizeText(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ');
}

/** `normalized` must come from `normalizeText`. */
export function hasPhrase(normalized: string, phrase: string): boolean {
  return normalized.includes(normalizeText(phrase));
}

export function phraseEffect(phrase: TaskPhrase, domain: string): number {
  return phrase.effects[domain] ?? phrase.effects['*'] ?? 0;
}

export function pCorrect(text: string, domain: string): number {
  const normalized = normalizeText(text);
  let p = BASE_P_CORRECT[domain] ?? BASE_P_CORRECT['*'] ?? 0;
  for (const phrase of TASK_PHRASES) {
    if (hasPhrase(normalized, phrase.phrase)) p += phraseEffect(phrase, domain);
  }
  return Math.min(P_CORRECT_MAX, Math.max(P_CORRECT_MIN, p));
}

export function hasFormatInstruction(text: string): boolean {
  const normalized = normalizeText(text);
  return normalized.includes('<json>') && normalized.includes('response');
}

export function parseFailureRate(text: string): number {
  return hasFormatInstruction(text) ? PARSE_FAILURE_RATE.withFormat : PARSE_FAILURE_RATE.withoutFormat;
}

export function metaQuality(systemText: string): number {
  const normalized = normalizeText(systemText);
  const present = META_PHRASES.filter((p) => hasPhrase(normalized, p)).length;
  return Math.min(META_QUALITY.max, META_QUALITY.base + META_QUALITY.perPhrase * present);
}

/** Sum of a phrase's effects over the run's domains: > 0 helps the run, < 0 hurts it. */
export function netEffect(phrase: TaskPhrase, domains: readonly string[]): number {
  return domains.reduce((sum, d) => sum + phraseEffect(phrase, d), 0);
}
