import { type ModelRecord, resolveModel } from '../registry.ts';

/** A registry model for tests, with fields overridden; throws on an id the registry does not know. */
export function registeredModel(id: string, overrides: Partial<ModelRecord> = {}): ModelRecord {
  const resolved = resolveModel(id);
  if (!resolved.ok) throw new Error(resolved.error.message);
  return { ...resolved.model, ...overrides };
}
