import { type ModelProvider, providerError } from '../provider.ts';
import type { ModelRecord } from '../registry.ts';
import type { ProviderOptions } from './options.ts';

/** Placeholder until the Anthropic provider is written. */
export function createAnthropicProvider(model: ModelRecord, _opts: ProviderOptions): ModelProvider {
  return { complete: async () => providerError('internal', `${model.id}: provider not implemented`) };
}
