import { closeMatches } from '../system/close-matches.ts';
import type { ModelRecord } from './model-record.ts';
import { MODELS } from './model-table.ts';
import type { Usage } from './types.ts';

export type { ModelPrice, ModelRecord, ProviderName, WireApi } from './model-record.ts';
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
