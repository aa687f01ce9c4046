import type { Usage } from './types.ts';

/** Dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export type ProviderName = 'openai' | 'anthropic' | 'google' | 'local' | 'sim';
export type WireApi = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'google-genai' | 'sim';

/** A model as plain data. Token counts are in tokens; prices in $ per million tokens. */
export interface ModelRecord {
  id: string;
  provider: ProviderName;
  api: WireApi;
  contextWindow: number;
  maxOutput: number;
  price: ModelPrice;
  /** Takes tool schemas and returns structured tool calls. */
  nativeTools: boolean;
  /** Accepts a temperature parameter. */
  temperature: boolean;
  /** Spends hidden reasoning tokens / takes a reasoning effort. */
  reasoning: boolean;
  simulated: boolean;
  /** Which field carries the output-token cap on the OpenAI chat wire (o-series and GPT-5: `max_completion_tokens`). */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Role of the system prompt on the OpenAI chat wire (reasoning models: `developer`). Others carry it apart. */
  systemRole: 'system' | 'developer';
  /**
   * How the provider caches prompts: `auto` (OpenAI, nothing to do), `explicit` (Anthropic: the layer marks
   * the stable prefix with `cache_control`), `implicit` (Gemini 2.5+), `none`.
   */
  caching: 'auto' | 'explicit' | 'implicit' | 'none';
  /** Where the model family is superseded, the id to move to (shown by `hyperagents models`). */
  successor?: string;
  /** The name the provider's API knows the model by, when not the part of `id` after `provider/`. */
  apiName?: string;
  /** OpenAI-compatible server for `local/*` models. */
  baseUrl?: string;
  /** Changes when the model's answers change (the sim's tables); cached results of another revision are not reused. */
  revision?: string;
}

export const MODELS: readonly ModelRecord[] = Object.freeze([
  {
    id: 'sim',
    provider: 'sim',
    api: 'sim',
    contextWindow: 200_000,
    maxOutput: 32_000,
    price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    nativeTools: true,
    temperature: true,
    reasoning: false,
    simulated: true,
    maxTokensField: 'max_tokens',
    systemRole: 'system',
    caching: 'none',
    revision: '1',
  },
]);

const BY_ID = new Map(MODELS.map((m) => [m.id, m]));

export function knownModelIds(): string[] {
  return MODELS.map((m) => m.id);
}

export type ResolveModelResult =
  | { ok: true; model: ModelRecord }
  | { ok: false; error: { type: 'unknown_model'; message: string; suggestions: string[] } };

/** Looks a model id up; an unknown id yields an error naming close matches and every known id. */
export function resolveModel(id: string): ResolveModelResult {
  const model = BY_ID.get(id);
  if (model) return { ok: true, model };
  const suggestions = closeMatches(id, knownModelIds());
  const didYouMean = suggestions.length > 0 ? ` Did you mean ${suggestions.join(' or ')}?` : '';
  return {
    ok: false,
    error: {
      type: 'unknown_model',
      message: `Unknown model "${id}".${didYouMean} Known models: ${knownModelIds().join(', ')}.`,
      suggestions,
    },
  };
}

/** The model name sent on the wire: `apiName`, else the id without its `provider/` prefix. */
export function wireModelName(model: Pick<ModelRecord, 'id' | 'apiName'>): string {
  return model.apiName ?? model.id.slice(model.id.indexOf('/') + 1);
}

/** The model's identity for reusing cached task results: its id, and its revision where it has one. */
export function resultCacheIdentity(id: string): string {
  const model = BY_ID.get(id);
  return model?.revision === undefined ? id : `${id}@${model.revision}`;
}

/** Cost in USD of `usage` at the model's prices (see `Usage`: the four token kinds are disjoint). */
export function costUsd(model: Pick<ModelRecord, 'price'>, usage: Usage): number {
  const { price } = model;
  return (
    (usage.input * price.input +
      usage.output * price.output +
      usage.cacheRead * price.cacheRead +
      usage.cacheWrite * price.cacheWrite) /
    1_000_000
  );
}

/** Candidates within a small edit distance of `id` (whole id or the part after `provider/`), best first. */
export function closeMatches(id: string, candidates: readonly string[], max = 3): string[] {
  const wanted = id.toLowerCase();
  const scored = candidates.map((c) => {
    const lower = c.toLowerCase();
    const bare = lower.slice(lower.indexOf('/') + 1);
    return { c, d: Math.min(levenshtein(wanted, lower), levenshtein(wanted, bare)) };
  });
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  return scored
    .filter((s) => s.d <= limit)
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, max)
    .map((s) => s.c);
}

export function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = row;
  }
  return prev[b.length]!;
}
