import { MODELS } from './model-table.ts';
import type { ReasoningEffort, Usage } from './types.ts';

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
  /**
   * The reasoning efforts the model takes, where it does not take them all (o3 rejects `minimal`);
   * `adaptRequest` moves any other effort to the nearest higher one it takes.
   */
  reasoningEfforts?: readonly ReasoningEffort[];
}

export { MODELS } from './model-table.ts';

const BY_ID = new Map(MODELS.map((m) => [m.id, m]));

export function knownModelIds(): string[] {
  return MODELS.map((m) => m.id);
}

/** Limits of a model on a local server that the defaults get wrong; see `resolveModel`. */
export interface LocalModelOptions {
  /** Tokens; default 32 768. Set it to the server's context size (ollama `num_ctx`, llama.cpp `-c`). */
  contextWindow?: number;
  /** Tokens; default 8192, or the context window when that is smaller. */
  maxOutput?: number;
  /** The server returns structured tool calls (default false: agents use the `<json>` text protocol). */
  nativeTools?: boolean;
  /** The server's OpenAI-compatible API root, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl?: string;
}

export const LOCAL_DEFAULT_CONTEXT_WINDOW = 32_768;
export const LOCAL_DEFAULT_MAX_OUTPUT = 8192;
const LOCAL_PREFIX = 'local/';
/** Prefixes people write for a local server; each is answered with `local/<name>`. */
const LOCAL_SERVER_PREFIXES = ['ollama/', 'llamacpp/', 'llama.cpp/', 'llama-server/', 'vllm/', 'lmstudio/'];

export type ResolveModelResult =
  | { ok: true; model: ModelRecord }
  | { ok: false; error: { type: 'unknown_model'; message: string; suggestions: string[] } };

/**
 * Looks a model id up. `local/<name>` is any model on an OpenAI-compatible server (ollama, llama.cpp, vLLM):
 * its record is built here, free, with the `<json>` text protocol for tools unless `local` says otherwise.
 * `local` applies to `local/*` ids only; a hosted model's limits are the table's. An unknown id yields an
 * error naming close matches and every known id. Ids always name their provider: a bare `gpt-4o` is not
 * taken for `openai/gpt-4o` (it is suggested), so the ledger and the archive spell each model one way.
 */
export function resolveModel(id: string, local: LocalModelOptions = {}): ResolveModelResult {
  const model = BY_ID.get(id);
  if (model) return { ok: true, model };
  if (id.startsWith(LOCAL_PREFIX)) return localModel(id, local);
  const suggestions = suggestionsFor(id);
  const didYouMean = suggestions.length > 0 ? ` Did you mean ${suggestions.join(' or ')}?` : '';
  return unknownModel(
    `Unknown model "${id}".${didYouMean} Known models: ${knownModelIds().join(', ')}. ` +
      'A model on a local OpenAI-compatible server (ollama, llama.cpp, vLLM) is local/<name>, e.g. ' +
      'local/qwen2.5-coder:7b; "hyperagents models" describes each model.',
    suggestions,
  );
}

function localModel(id: string, opts: LocalModelOptions): ResolveModelResult {
  const name = id.slice(LOCAL_PREFIX.length).trim();
  if (name === '')
    return unknownModel(
      `"${id}" names no model: write local/<name> with the name your server knows the model by, e.g. ` +
        'local/qwen2.5-coder:7b (ollama list shows the names on an ollama server).',
      [],
    );
  for (const key of ['contextWindow', 'maxOutput'] as const) {
    const value = opts[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      throw new RangeError(`${key} for ${id} must be a positive whole number of tokens, got ${value}`);
  }
  const contextWindow = opts.contextWindow ?? LOCAL_DEFAULT_CONTEXT_WINDOW;
  return {
    ok: true,
    model: {
      id: `${LOCAL_PREFIX}${name}`,
      provider: 'local',
      api: 'openai-chat',
      contextWindow,
      maxOutput: opts.maxOutput ?? Math.min(LOCAL_DEFAULT_MAX_OUTPUT, contextWindow),
      price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      nativeTools: opts.nativeTools ?? false,
      temperature: true,
      reasoning: false,
      simulated: false,
      maxTokensField: 'max_tokens',
      systemRole: 'system',
      caching: 'none',
      ...(opts.baseUrl === undefined ? {} : { baseUrl: opts.baseUrl }),
    },
  };
}

/** Exact matches of a bare or API name (`gpt-4o`, `claude-3-haiku-20240307`), a local server's prefix, else close matches. */
function suggestionsFor(id: string): string[] {
  const wanted = id.toLowerCase();
  const serverPrefix = LOCAL_SERVER_PREFIXES.find((p) => wanted.startsWith(p));
  if (serverPrefix !== undefined && id.length > serverPrefix.length)
    return [`${LOCAL_PREFIX}${id.slice(serverPrefix.length)}`];
  const exact = MODELS.filter((m) => {
    const names = [m.id.slice(m.id.indexOf('/') + 1), m.apiName, m.apiName && `${m.provider}/${m.apiName}`];
    return names.some((n) => n?.toLowerCase() === wanted);
  });
  return exact.length > 0 ? exact.map((m) => m.id) : closeMatches(id, knownModelIds());
}

function unknownModel(message: string, suggestions: string[]): ResolveModelResult {
  return { ok: false, error: { type: 'unknown_model', message, suggestions } };
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

/**
 * Candidates within a small edit distance of `id` (whole id or the part after `provider/`), best first; only
 * those about as close as the best, so one clear typo gets one answer.
 */
export function closeMatches(id: string, candidates: readonly string[], max = 3): string[] {
  const wanted = id.toLowerCase();
  const scored = candidates.map((c) => {
    const lower = c.toLowerCase();
    const bare = lower.slice(lower.indexOf('/') + 1);
    return { c, d: Math.min(levenshtein(wanted, lower), levenshtein(wanted, bare)) };
  });
  const best = Math.min(...scored.map((s) => s.d));
  const typed = wanted.slice(wanted.indexOf('/') + 1);
  const limit = Math.min(best + 1, Math.max(2, Math.floor(typed.length / 3)));
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
