import { closeMatches } from '../system/close-matches.ts';
import type { ModelRecord } from './model-record.ts';
import { providerModels, providerNamed, registeredProviders } from './provider-registry.ts';
import type { AnyModel, LocalModelOptions } from './providers/provider-spec.ts';
import type { Usage } from './types.ts';

export type { ModelPrice, ModelRecord, WireApi } from './model-record.ts';
export { wireModelName } from './model-record.ts';
export type { LocalModelOptions } from './providers/provider-spec.ts';

/** The simulated model: offline, deterministic from its seed, free (see `llm/sim/`). */
const SIM: ModelRecord = Object.freeze({
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
});

/** The models the harness knows, as plain data: the sim, then every registered provider's. */
export function listModels(): ModelRecord[] {
  return [SIM, ...providerModels()];
}

export function knownModelIds(): string[] {
  return listModels().map((m) => m.id);
}

function modelById(id: string): ModelRecord | undefined {
  return listModels().find((m) => m.id === id);
}

export type ResolveModelResult =
  | { ok: true; model: ModelRecord }
  | { ok: false; error: { type: 'unknown_model'; message: string; suggestions: string[] } };

/** The providers that serve any model name (`local/<name>`), each with its name. */
function anyModelProviders(): { name: string; anyModel: AnyModel }[] {
  return registeredProviders().flatMap((p) => (p.anyModel ? [{ name: p.name, anyModel: p.anyModel }] : []));
}

/**
 * Looks a model id up. `<provider>/<name>` of a provider that serves any model name (`local/<name>`: any
 * model on an OpenAI-compatible server such as ollama, llama.cpp or vLLM) is built by that provider, with
 * `local`'s limits; a hosted model's limits are its table's. An unknown id yields an error naming close
 * matches and every known id. Ids always name their provider: a bare `gpt-4o` is not taken for
 * `openai/gpt-4o` (it is suggested), so the ledger and the archive spell each model one way.
 */
export function resolveModel(id: string, local: LocalModelOptions = {}): ResolveModelResult {
  const model = modelById(id);
  if (model) return { ok: true, model };
  const serving = anyModelProviders().find((p) => id.startsWith(`${p.name}/`));
  if (serving !== undefined) return anyModelRecord(id, serving, local);
  const suggestions = suggestionsFor(id);
  const didYouMean = suggestions.length > 0 ? ` Did you mean ${suggestions.join(' or ')}?` : '';
  const served = anyModelProviders().map(
    (p) => ` A model on ${p.anyModel.server} is ${p.name}/<name>, e.g. ${p.name}/${p.anyModel.example};`,
  );
  return unknownModel(
    `Unknown model "${id}".${didYouMean} Known models: ${knownModelIds().join(', ')}.${served.join('')}` +
      ' "hyperagents models" describes each model.',
    suggestions,
  );
}

function anyModelRecord(
  id: string,
  { name, anyModel }: { name: string; anyModel: AnyModel },
  opts: LocalModelOptions,
): ResolveModelResult {
  const modelName = id.slice(name.length + 1).trim();
  if (modelName === '')
    return unknownModel(
      `"${id}" names no model: write ${name}/<name> with the name your server knows the model by, e.g. ` +
        `${name}/${anyModel.example} (${anyModel.listHint}).`,
      [],
    );
  return { ok: true, model: anyModel.record(modelName, opts) };
}

/** Exact matches of a bare or API name (`gpt-4o`, `claude-3-haiku-20240307`), a local server's prefix, else close matches. */
function suggestionsFor(id: string): string[] {
  const wanted = id.toLowerCase();
  for (const { name, anyModel } of anyModelProviders()) {
    const prefix = anyModel.aliasPrefixes.find((p) => wanted.startsWith(p));
    if (prefix !== undefined && id.length > prefix.length) return [`${name}/${id.slice(prefix.length)}`];
  }
  const exact = listModels().filter((m) => {
    const names = [m.id.slice(m.id.indexOf('/') + 1), m.apiName, m.apiName && `${m.provider}/${m.apiName}`];
    return names.some((n) => n?.toLowerCase() === wanted);
  });
  return exact.length > 0 ? exact.map((m) => m.id) : closeMatches(id, knownModelIds());
}

function unknownModel(message: string, suggestions: string[]): ResolveModelResult {
  return { ok: false, error: { type: 'unknown_model', message, suggestions } };
}

/** The model's identity for reusing cached task results: its id, and its revision where it has one. */
export function resultCacheIdentity(id: string): string {
  const model = modelById(id);
  return model?.revision === undefined ? id : `${id}@${model.revision}`;
}

/** Cost in USD of `usage` at the model's prices (see `Usage`: the four token kinds are disjoint). */
export function costUsd(model: Pick<ModelRecord, 'price'>, usage: Usage): number {
  const { price } = model;
  return (
    (usage.input * price.input +
      usage.output * price.output +
      usage.cacheRead * price.cacheRead +
      usage.cacheWrite * price.cacheWrite) /
    1_000_000
  );
}

/** What the simulated model's batch endpoint takes off its nominal price: as OpenAI and Anthropic do. */
const SIM_BATCH_DISCOUNT = 0.5;

/**
 * The share of the listed price a batch call saves on `model` (0.5: half price), or undefined when its
 * provider has no batch endpoint. The sim's batch endpoint imitates the providers' discount.
 */
export function batchDiscountOf(model: Pick<ModelRecord, 'provider' | 'simulated'>): number | undefined {
  if (model.simulated) return SIM_BATCH_DISCOUNT;
  const spec = providerNamed(model.provider);
  if (spec?.batch === undefined) return undefined;
  return spec.batchDiscount ?? 0;
}

/**
 * Cost in USD of `usage` answered through the model's batch endpoint: the listed price less its discount
 * (`batchDiscountOf`). Undefined when the provider has no batch endpoint, so no caller prices a batch that
 * cannot exist.
 */
export function batchCostUsd(
  model: Pick<ModelRecord, 'price' | 'provider' | 'simulated'>,
  usage: Usage,
): number | undefined {
  const discount = batchDiscountOf(model);
  return discount === undefined ? undefined : costUsd(model, usage) * (1 - discount);
}
