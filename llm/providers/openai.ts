import { type ModelProvider, providerError } from '../provider.ts';
import type { ModelRecord } from '../registry.ts';
import type { ProviderOptions } from './options.ts';

/** Placeholder until the OpenAI provider is written. */
export function createOpenAIProvider(model: ModelRecord, _opts: ProviderOptions): ModelProvider {
  return { complete: async () => providerError('internal', `${model.id}: provider not implemented`) };
}
