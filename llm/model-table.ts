import type { ModelRecord } from './model-record.ts';
import type { ReasoningEffort } from './types.ts';

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
/**
 * Anthropic and Google carry the system prompt and the output cap in fields of their own, so `systemRole` and
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
const LOW_TO_HIGH: readonly ReasoningEffort[] = ['low', 'medium', 'high'];

/**
 * The models the harness knows, as plain data. Prices are $ per million tokens, taken from the providers'
 * price lists in 2026-11. `cacheWrite` is the input price where writing the cache costs nothing extra
 * (OpenAI, Gemini) and 1.25x input for Anthropic's 5-minute cache; `cacheRead` is the listed cached-input
 * price (Anthropic: 0.1x input). Gemini prices are the tier for prompts up to 200k tokens.
 */
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
    revision: '3',
  },
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
] satisfies ModelRecord[]);
