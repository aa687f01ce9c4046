import type { BatchApi } from '../batch-api.ts';
import { type ModelProvider, providerError } from '../provider.ts';
import { keyOf, providerNamed } from '../provider-registry.ts';
import type { ModelRecord } from '../registry.ts';
import { type RetryOptions, withRetries } from '../retry.ts';
import { batchSupport } from './connect-batch.ts';
import type { ProviderOptions } from './options.ts';

export { DEFAULT_TIMEOUT_MS, type ProviderOptions } from './options.ts';

/**
 * A provider for a real (non-sim) model, made by the registered provider the model names: one attempt per
 * call; wrap it with `withRetries`. Its SDK is loaded on the first call, so commands and simulated runs do
 * not pay for loading three SDKs (~0.5 s).
 */
export function createProvider(model: ModelRecord, opts: ProviderOptions): ModelProvider {
  const spec = providerNamed(model.provider);
  if (spec === undefined)
    throw new Error(
      model.simulated
        ? 'the sim model is created with createSimModel, not createProvider'
        : `no provider "${model.provider}" is registered for ${model.id}`,
    );
  let loaded: Promise<ModelProvider> | undefined;
  return {
    async complete(req, ctx, signal) {
      loaded ??= spec.client(model, opts, spec);
      let provider: ModelProvider;
      try {
        provider = await loaded;
      } catch (error) {
        return providerError(
          'internal',
          `could not load the provider for ${model.id}: ${(error as Error).message}`,
        );
      }
      return provider.complete(req, ctx, signal);
    },
  };
}

export type ProviderSettings = { ok: true; options: ProviderOptions } | { ok: false; message: string };

/**
 * Key and base URL for a model, from the `--base-url` flag, then the environment (which includes `.env`,
 * see `loadEnv`). A hosted model without a key is an error that names the variable to set.
 */
export function providerSettings(
  model: ModelRecord,
  env: Readonly<Record<string, string | undefined>>,
  flags: { baseUrl?: string; timeoutMs?: number } = {},
): ProviderSettings {
  if (model.simulated) return { ok: false, message: 'the sim model needs no provider settings' };
  const spec = providerNamed(model.provider);
  if (spec === undefined) return { ok: false, message: `no provider "${model.provider}" is registered` };
  const fromEnv = env[spec.baseUrlVariable]?.trim() || undefined;
  const baseUrl = flags.baseUrl ?? model.baseUrl ?? fromEnv ?? spec.defaultBaseUrl;
  // A base URL that is not one would fail every attempt, and be retried for minutes as a network error.
  const from =
    baseUrl === flags.baseUrl ? '--base-url' : `${spec.baseUrlVariable} (from the environment or .env)`;
  const badUrl =
    baseUrl === undefined || (baseUrl !== flags.baseUrl && baseUrl !== fromEnv)
      ? null
      : notHttpUrl(baseUrl, from);
  if (badUrl !== null) return { ok: false, message: badUrl };
  const timeout = flags.timeoutMs === undefined ? {} : { timeoutMs: flags.timeoutMs };
  const where = baseUrl ? { baseUrl } : {};
  // A server that takes no key still gets one: the SDKs refuse to start without.
  if (spec.keyVariables.length === 0)
    return { ok: true, options: { apiKey: 'no-key', ...where, ...timeout } };
  const key = keyOf(spec, env);
  if (key === undefined)
    return {
      ok: false,
      message: `${model.id} needs an API key: set ${spec.keyVariables[0]} in the environment or in a .env file in the current folder.`,
    };
  return { ok: true, options: { apiKey: key.value, ...where, ...timeout } };
}

/** Null for an http(s) URL; else the message, naming where the value came from (`what`). Pure. */
export function notHttpUrl(url: string, what: string): string | null {
  let protocol: string | null = null;
  try {
    protocol = new URL(url).protocol;
  } catch {
    // not a URL at all
  }
  if (protocol === 'http:' || protocol === 'https:') return null;
  return `${what} must be an http(s) URL such as http://127.0.0.1:8080/v1, not "${url}": correct it or unset it.`;
}

export type ConnectResult = { ok: true; provider: ModelProvider } | { ok: false; message: string };

/**
 * The provider a run or `hyperagents chat` uses for a real model: key and base URL resolved, one attempt per
 * call wrapped in the layer's retry policy. Fails (with a message naming the variable to set) before any call.
 */
export function connectModel(
  model: ModelRecord,
  env: Readonly<Record<string, string | undefined>>,
  flags: { baseUrl?: string; timeoutMs?: number; retry?: RetryOptions } = {},
): ConnectResult {
  const settings = providerSettings(model, env, flags);
  if (!settings.ok) return settings;
  return { ok: true, provider: withRetries(createProvider(model, settings.options), flags.retry) };
}

export type ConnectBatchResult = { ok: true; batch: BatchApi } | { ok: false; message: string };

/**
 * The batch endpoint of a real model's provider (see `BatchApi`), key and base URL resolved as for
 * `connectModel`, its SDK loaded now. Fails with a message when the provider has no batch endpoint, the key
 * is missing, or the SDK does not load. Each call makes one attempt; the caller polls and retries.
 */
export async function connectBatch(
  model: ModelRecord,
  env: Readonly<Record<string, string | undefined>>,
  flags: { baseUrl?: string; timeoutMs?: number } = {},
): Promise<ConnectBatchResult> {
  const support = batchSupport(model);
  if (!support.ok) return support;
  const spec = providerNamed(model.provider);
  if (spec?.batch === undefined)
    return { ok: false, message: `${model.id} has no batch endpoint of its own` };
  const settings = providerSettings(model, env, flags);
  if (!settings.ok) return settings;
  try {
    return { ok: true, batch: await spec.batch(model, settings.options, spec) };
  } catch (error) {
    return {
      ok: false,
      message: `could not load the batch endpoint for ${model.id}: ${(error as Error).message}`,
    };
  }
}
