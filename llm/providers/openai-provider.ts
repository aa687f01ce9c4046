import type { ModelRecord } from '../model-record.ts';
import type { ReasoningEffort } from '../types.ts';
import type { ProviderSpec } from './provider-spec.ts';

const OPENAI = {
  provider: 'openai',
  api: 'openai-chat',
  nativeTools: true,
  simulated: false,
  caching: 'auto',
} as const;
/** GPT-4o and GPT-4.1: temperature, `max_tokens`, `system`. */
const OPENAI_CLASSIC = {
  ...OPENAI,
  temperature: true,
  reasoning: false,
  maxTokensField: 'max_tokens',
  systemRole: 'system',
} as const;
/** o-series and GPT-5 family (research/llm-sdks.md §1.1): no temperature, `max_completion_tokens`, `developer`. */
const OPENAI_REASONING = {
  ...OPENAI,
  temperature: false,
  reasoning: true,
  maxTokensField: 'max_completion_tokens',
  systemRole: 'developer',
} as const;
const LOW_TO_HIGH: readonly ReasoningEffort[] = ['low', 'medium', 'high'];

/**
 * OpenAI's models. Prices are $ per million tokens from OpenAI's price list in 2026-11; `cacheWrite` is the
 * input price (writing the cache costs nothing extra), `cacheRead` the listed cached-input price.
 */
const MODELS: readonly ModelRecord[] = [
  {
    id: 'openai/gpt-4o',
    ...OPENAI_CLASSIC,
    contextWindow: 128_000,
    maxOutput: 16_384,
    price: { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 },
    successor: 'openai/gpt-4.1',
  },
  {
    id: 'openai/gpt-4o-mini',
    ...OPENAI_CLASSIC,
    contextWindow: 128_000,
    maxOutput: 16_384,
    price: { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 },
    successor: 'openai/gpt-4.1-mini',
  },
  {
    id: 'openai/gpt-4.1',
    ...OPENAI_CLASSIC,
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
  },
  {
    id: 'openai/gpt-4.1-mini',
    ...OPENAI_CLASSIC,
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    price: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4 },
  },
  {
    id: 'openai/o3',
    ...OPENAI_REASONING,
    contextWindow: 200_000,
    maxOutput: 100_000,
    price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
    reasoningEfforts: LOW_TO_HIGH,
    successor: 'openai/gpt-5.2',
  },
  {
    id: 'openai/o3-mini',
    ...OPENAI_REASONING,
    contextWindow: 200_000,
    maxOutput: 100_000,
    price: { input: 1.1, output: 4.4, cacheRead: 0.55, cacheWrite: 1.1 },
    reasoningEfforts: LOW_TO_HIGH,
    successor: 'openai/gpt-5-mini',
  },
  {
    id: 'openai/o4-mini',
    ...OPENAI_REASONING,
    contextWindow: 200_000,
    maxOutput: 100_000,
    price: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 },
    reasoningEfforts: LOW_TO_HIGH,
    successor: 'openai/gpt-5-mini',
  },
  {
    id: 'openai/gpt-5',
    ...OPENAI_REASONING,
    contextWindow: 400_000,
    maxOutput: 128_000,
    price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    successor: 'openai/gpt-5.2',
  },
  {
    id: 'openai/gpt-5-mini',
    ...OPENAI_REASONING,
    contextWindow: 400_000,
    maxOutput: 128_000,
    price: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
  },
  {
    id: 'openai/gpt-5-nano',
    ...OPENAI_REASONING,
    contextWindow: 400_000,
    maxOutput: 128_000,
    price: { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05 },
  },
  {
    id: 'openai/gpt-5.1',
    ...OPENAI_REASONING,
    contextWindow: 400_000,
    maxOutput: 128_000,
    price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    reasoningEfforts: LOW_TO_HIGH,
    successor: 'openai/gpt-5.2',
  },
  {
    id: 'openai/gpt-5.2',
    ...OPENAI_REASONING,
    contextWindow: 400_000,
    maxOutput: 128_000,
    price: { input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 1.75 },
    reasoningEfforts: LOW_TO_HIGH,
  },
];

/** OpenAI, through the official SDK (Chat Completions). */
export const openai: ProviderSpec = {
  name: 'openai',
  label: 'OpenAI',
  keyVariables: ['OPENAI_API_KEY'],
  baseUrlVariable: 'OPENAI_BASE_URL',
  defaultModel: { id: 'openai/gpt-5-mini', rank: 2 },
  models: MODELS,
  client: async (model, opts, spec) => (await import('./openai.ts')).createOpenAIProvider(model, opts, spec),
  batch: async (model, opts, spec) =>
    (await import('./openai-batch.ts')).createOpenAIBatch(model, opts, spec),
  // OpenAI's Batch API: 50 % of the listed price, for every model above.
  batchDiscount: 0.5,
};
