import type { ModelRecord } from '../model-record.ts';
import { providerNamed, registeredProviders } from '../provider-registry.ts';

export type BatchSupport = { ok: true } | { ok: false; message: string };

/**
 * Whether `--batch` can send `model`'s calls through a batch endpoint (the sim has its own, see
 * `createSimBatch`), decided before anything is loaded. Pure.
 */
export function batchSupport(model: ModelRecord): BatchSupport {
  if (model.simulated) return { ok: true };
  const spec = providerNamed(model.provider);
  if (spec?.batch !== undefined) return { ok: true };
  const serving = registeredProviders().filter((p) => p.batch !== undefined);
  const names = serving.map((p) => `${p.label} (${p.name}/...)`).join(', ');
  return {
    ok: false,
    message:
      `${model.id} cannot be answered in batches: ${spec?.label ?? model.provider} has no batch endpoint here. ` +
      `Batches go to ${names || 'no provider'}; drop --batch, or choose such a task model (hyperagents models).`,
  };
}
