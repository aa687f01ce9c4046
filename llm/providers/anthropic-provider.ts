import type { ModelRecord } from '../model-record.ts';
import type { ProviderSpec } from './provider-spec.ts';

/**
 * Anthropic carries the system prompt and the output cap in fields of its own, so `systemRole` and
 * `maxTokensField` (which describe the OpenAI chat wire) keep their plain values.
 */
const ANTHROPIC = {
  provider: 'anthropic',
  api: 'anthropic-messages',
  contextWindow: 200_000,
  nativeTools: true,
  temperature: true,
  simulated: false,
  maxTokensField: 'max_tokens',
  systemRole: 'system',
  caching: 'explicit',
} as const;

/**
 * Anthropic's models. Prices are $ per million tokens from Anthropic's price list in 2026-11; `cacheWrite` is
 * 1.25x input (the 5-minute cache), `cacheRead` 0.1x input.
 */
const MODELS: readonly ModelRecord[] = [
  {
    id: 'anthropic/claude-sonnet-4-5',
    ...ANTHROPIC,
    apiName: 'claude-sonnet-4-5-20250929',
    maxOutput: 64_000,
    price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    reasoning: true,
    // The Anthropic SDK lists claude-sonnet-4-5 as reaching end-of-life on 2026-11-30.
    successor: 'anthropic/claude-sonnet-4-6',
  },
  {
    id: 'anthropic/claude-sonnet-4-6',
    ...ANTHROPIC,
    maxOutput: 64_000,
    price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    reasoning: true,
  },
  {
    id: 'anthropic/claude-opus-4-5',
    ...ANTHROPIC,
    apiName: 'claude-opus-4-5-20251101',
    maxOutput: 64_000,
    price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    reasoning: true,
  },
  {
    id: 'anthropic/claude-opus-4-1',
    ...ANTHROPIC,
    apiName: 'claude-opus-4-1-20250805',
    maxOutput: 32_000,
    price: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    reasoning: true,
    successor: 'anthropic/claude-opus-4-5',
  },
  {
    id: 'anthropic/claude-haiku-4-5',
    ...ANTHROPIC,
    apiName: 'claude-haiku-4-5-20251001',
    maxOutput: 64_000,
    price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    reasoning: true,
  },
  {
    id: 'anthropic/claude-3-5-sonnet',
    ...ANTHROPIC,
    apiName: 'claude-3-5-sonnet-20241022',
    maxOutput: 8192,
    price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    reasoning: false,
    successor: 'anthropic/claude-sonnet-4-6',
  },
  {
    id: 'anthropic/claude-3-haiku',
    ...ANTHROPIC,
    apiName: 'claude-3-haiku-20240307',
    maxOutput: 4096,
    // Anthropic lists these rounded to the cent: 0.30 and 0.03 (1.25x and 0.1x of 0.25).
    price: { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
    reasoning: false,
    successor: 'anthropic/claude-haiku-4-5',
  },
];

/** Anthropic, through `@anthropic-ai/sdk` (the Messages API). */
export const anthropic: ProviderSpec = {
  name: 'anthropic',
  label: 'Anthropic',
  keyVariables: ['ANTHROPIC_API_KEY'],
  baseUrlVariable: 'ANTHROPIC_BASE_URL',
  defaultModel: { id: 'anthropic/claude-sonnet-4-6', rank: 1 },
  models: MODELS,
  client: async (model, opts, spec) =>
    (await import('./anthropic.ts')).createAnthropicProvider(model, opts, spec),
  batch: async (model, opts, spec) =>
    (await import('./anthropic-batch.ts')).createAnthropicBatch(model, opts, spec),
  // Message Batches: 50 % of the listed price, for every model above.
  batchDiscount: 0.5,
};
