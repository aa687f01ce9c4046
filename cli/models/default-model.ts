/** Without --model: the first provider whose key is set, in this order; else the simulated model. */
export const DEFAULT_MODELS: readonly { model: string; key: string }[] = [
  { model: 'anthropic/claude-sonnet-4-6', key: 'ANTHROPIC_API_KEY' },
  { model: 'openai/gpt-5-mini', key: 'OPENAI_API_KEY' },
  { model: 'google/gemini-2.5-flash', key: 'GEMINI_API_KEY' },
];

export function defaultModel(env: Readonly<Record<string, string | undefined>>): {
  model: string;
  key?: string;
} {
  return DEFAULT_MODELS.find((d) => env[d.key]) ?? { model: 'sim' };
}
