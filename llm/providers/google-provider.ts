import type { ModelRecord } from '../model-record.ts';
import type { ProviderSpec } from './provider-spec.ts';

/**
 * Google carries the system prompt and the output cap in fields of its own, so `systemRole` and
 * `maxTokensField` (which describe the OpenAI chat wire) keep their plain values.
 */
const GOOGLE = {
  provider: 'google',
  api: 'google-genai',
  contextWindow: 1_048_576,
  maxOutput: 65_536,
  nativeTools: true,
  temperature: true,
  reasoning: true,
  simulated: false,
  maxTokensField: 'max_tokens',
  systemRole: 'system',
  caching: 'implicit',
} as const;

/**
 * Google's Gemini models. Prices are $ per million tokens from Google's price list in 2026-11, the tier for
 * prompts up to 200k tokens; `cacheWrite` is the input price (writing the cache costs nothing extra).
 */
const MODELS: readonly ModelRecord[] = [
  {
    id: 'google/gemini-3-pro-preview',
    ...GOOGLE,
    price: { input: 2, output: 12, cacheRead: 0.2, cacheWrite: 2 },
    // Gemini 3 takes a thinking level, low or high.
    reasoningEfforts: ['low', 'high'],
  },
  {
    id: 'google/gemini-2.5-pro',
    ...GOOGLE,
    price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    successor: 'google/gemini-3-pro-preview',
  },
  {
    id: 'google/gemini-2.5-flash',
    ...GOOGLE,
    price: { input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0.3 },
  },
  {
    id: 'google/gemini-2.5-flash-lite',
    ...GOOGLE,
    price: { input: 0.1, output: 0.4, cacheRead: 0.01, cacheWrite: 0.1 },
  },
];

/** Google Gemini, through `@google/genai` (the Gemini API, not Vertex). */
export const google: ProviderSpec = {
  name: 'google',
  label: 'Google Gemini',
  // GOOGLE_API_KEY is the name Google's own tools read; GEMINI_API_KEY is the one to set.
  keyVariables: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  baseUrlVariable: 'GOOGLE_GEMINI_BASE_URL',
  defaultModel: { id: 'google/gemini-2.5-flash', rank: 3 },
  models: MODELS,
  client: async (model, opts, spec) => (await import('./google.ts')).createGoogleProvider(model, opts, spec),
  batch: async (model, opts, spec) =>
    (await import('./google-batch.ts')).createGoogleBatch(model, opts, spec),
  // Gemini's Batch API: 50 % of the listed price, for every model above.
  batchDiscount: 0.5,
};
