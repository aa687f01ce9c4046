import type { ModelRecord } from '../model-record.ts';
import { providerNamed } from '../provider-registry.ts';
import type { ProviderSpec } from './provider-spec.ts';

/**
 * The registered provider of `model`, whose label, key variable and API root a client's messages name.
 * Throws for a model no registered provider serves: clients are made only for registered providers' models.
 */
export function registeredSpec(model: ModelRecord): ProviderSpec {
  const spec = providerNamed(model.provider);
  if (spec === undefined) throw new Error(`no provider "${model.provider}" is registered for ${model.id}`);
  return spec;
}
