import type { ModelRecord } from './model-record.ts';
import { BUILT_IN_PROVIDERS } from './providers/built-in.ts';
import type { ProviderSpec } from './providers/provider-spec.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** In registration order: the built-in providers, then any a library user or a test registers. */
const registered: ProviderSpec[] = [];

/**
 * Makes a provider known everywhere: its models to `resolveModel` and `hyperagents models`, its variables
 * to `providerSettings`, `hyperagents chat`'s help and the re-run's scrubbed environment, its default model
 * to a run without `--model`, its client to `createProvider`. Returns the function that removes it again.
 * Throws on a spec that contradicts itself or a provider already registered (a programmer's error).
 */
export function registerProvider(spec: ProviderSpec): () => void {
  const problem = specProblem(spec);
  if (problem !== null) throw new Error(`cannot register the provider "${spec.name}": ${problem}`);
  registered.push(spec);
  return () => {
    const at = registered.indexOf(spec);
    if (at >= 0) registered.splice(at, 1);
  };
}

for (const spec of BUILT_IN_PROVIDERS) registerProvider(spec);

function specProblem(spec: ProviderSpec): string | null {
  if (!/^[a-z][a-z0-9-]*$/.test(spec.name)) return 'a name is lower-case letters, digits and dashes';
  if (registered.some((p) => p.name === spec.name)) return 'a provider of that name is registered';
  const variables = [...spec.keyVariables, spec.baseUrlVariable];
  const badVariable = variables.find((v) => !/^[A-Z][A-Z0-9_]*$/.test(v));
  if (badVariable !== undefined) return `"${badVariable}" is not an environment variable's name`;
  const known = new Set(providerModels().map((m) => m.id));
  for (const m of spec.models) {
    if (!m.id.startsWith(`${spec.name}/`) || m.provider !== spec.name)
      return `its model ${m.id} must have an id starting with "${spec.name}/" and provider "${spec.name}"`;
    if (known.has(m.id)) return `the model ${m.id} is known already`;
    known.add(m.id);
  }
  const discount = spec.batchDiscount;
  if (discount !== undefined && (spec.batch === undefined || !(discount >= 0 && discount < 1)))
    return 'a batch discount is a share below 1 of the listed price, for a provider with a batch endpoint';
  const fallback = spec.defaultModel?.id;
  if (fallback !== undefined && !spec.models.some((m) => m.id === fallback))
    return `its default model ${fallback} is not among its models`;
  if (fallback !== undefined && spec.keyVariables.length === 0)
    return 'a provider without a key cannot be a default: nothing says it is configured';
  return null;
}

/** Every registered provider, in registration order. */
export function registeredProviders(): readonly ProviderSpec[] {
  return [...registered];
}

/** The provider of that name (a model's `provider`), or undefined. */
export function providerNamed(name: string): ProviderSpec | undefined {
  return registered.find((p) => p.name === name);
}

/** The models of every provider, in registration order (the records of `anyModel` providers excepted). */
export function providerModels(): ModelRecord[] {
  return registered.flatMap((p) => p.models);
}

/** The first of the provider's key variables that is set (and not blank) in `env`, with its value. */
export function keyOf(spec: ProviderSpec, env: Env): { variable: string; value: string } | undefined {
  for (const variable of spec.keyVariables) {
    const value = env[variable]?.trim();
    if (value) return { variable, value };
  }
  return undefined;
}

/** The providers that may be a run's default, in the order they are tried (by rank, then registration). */
export function defaultOrder(): ProviderSpec[] {
  return registered
    .filter((p) => p.defaultModel !== undefined)
    .sort((a, b) => (a.defaultModel?.rank ?? 0) - (b.defaultModel?.rank ?? 0));
}

/**
 * The model a run uses without `--model`: the default model of the first provider, in `defaultOrder`, one
 * of whose key variables is set, and that variable (for the message saying why); null when none is set.
 */
export function defaultModelFor(env: Env): { model: string; key: string } | null {
  for (const spec of defaultOrder()) {
    const key = keyOf(spec, env);
    if (key !== undefined && spec.defaultModel) return { model: spec.defaultModel.id, key: key.variable };
  }
  return null;
}

/** Every variable a provider reads, keys and base URLs: what an environment without provider access lacks. */
export function providerVariables(): string[] {
  return registered.flatMap((p) => [...p.keyVariables, p.baseUrlVariable]);
}
