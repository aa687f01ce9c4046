import type { ReasoningEffort } from './types.ts';

/** Dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * The wire format a model is spoken to in: the ones `adaptRequest` knows the quirks of, or a registered
 * provider's own.
 */
export type WireApi = 'openai-chat' | 'anthropic-messages' | 'google-genai' | 'sim' | (string & {});

/** A model as plain data. Token counts are in tokens; prices in $ per million tokens. */
export interface ModelRecord {
  id: string;
  /** The name of the provider that serves it (see `ProviderSpec`), `sim` for the simulated model. */
  provider: string;
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

/** The model name sent on the wire: `apiName`, else the id without its `provider/` prefix. */
export function wireModelName(model: Pick<ModelRecord, 'id' | 'apiName'>): string {
  return model.apiName ?? model.id.slice(model.id.indexOf('/') + 1);
}
