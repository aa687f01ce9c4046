import { defaultModelFor } from '../llm/provider-registry.ts';

/**
 * Without --model: the default model of the first registered provider (by its rank) whose key is set, with
 * the variable that made it so; else the simulated model.
 */
export function defaultModel(env: Readonly<Record<string, string | undefined>>): {
  model: string;
  key?: string;
} {
  return defaultModelFor(env) ?? { model: 'sim' };
}
