import type { BatchApi } from '../batch-api.ts';
import type { ModelRecord } from '../model-record.ts';
import { providerNamed } from '../provider-registry.ts';
import { providerSettings } from './index.ts';

export type BatchSupport = { ok: true } | { ok: false; message: string };

/** Whether `--batch` can send `model`'s calls through a batch endpoint; the sim has its own. Pure. */
export function batchSupport(model: ModelRecord): BatchSupport {
  if (model.simulated) return { ok: true };
  const spec = providerNamed(model.provider);
  if (spec?.batch !== undefined) return { ok: true };
  const label = spec?.label ?? model.provider;
  return {
    ok: false,
    message:
      `${label} (${model.id}) has no batch endpoint this harness can use: drop --batch, or choose a task model ` +
      'whose provider has one (hyperagents models).',
  };
}

export type ConnectBatchResult = { ok: true; batch: BatchApi } | { ok: false; message: string };

/**
 * The batch endpoint of a real model, its key and base URL resolved as for ordinary calls; its client is
 * loaded on the first use. Fails with a message before any call.
 */
export function connectBatch(
  model: ModelRecord,
  env: Readonly<Record<string, string | undefined>>,
): ConnectBatchResult {
  const support = batchSupport(model);
  if (!support.ok) return support;
  const spec = providerNamed(model.provider);
  const make = spec?.batch;
  if (spec === undefined || make === undefined)
    return { ok: false, message: `${model.id} has no batch endpoint` };
  const settings = providerSettings(model, env);
  if (!settings.ok) return settings;
  let loaded: Promise<BatchApi> | undefined;
  const api = async (): Promise<BatchApi> => {
    loaded ??= make(model, settings.options, spec);
    return loaded;
  };
  const failed = (error: unknown) => ({
    ok: false as const,
    error: {
      type: 'internal' as const,
      message: `could not load the batch endpoint of ${model.id}: ${(error as Error).message}`,
      retryable: false,
    },
  });
  return {
    ok: true,
    batch: {
      limits: { maxRequests: 50_000, maxBytes: 100 * 1024 * 1024 },
      submit: (requests, signal) => api().then((b) => b.submit(requests, signal), failed),
      poll: (id, signal) => api().then((b) => b.poll(id, signal), failed),
      collect: (id, signal) => api().then((b) => b.collect(id, signal), failed),
      cancel: (id, signal) => api().then((b) => b.cancel(id, signal), failed),
    },
  };
}
