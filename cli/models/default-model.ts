import { defaultModelFor, defaultOrder } from '../../llm/index.ts';

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

/** `--model`'s help: an example id and the order the default is chosen in, both the registry's. */
export function modelOptionHelp(): string {
  const order = defaultOrder();
  const example = order[0]?.defaultModel?.id;
  return (
    `model for both roles, e.g. ${example === undefined ? '' : `${example} or `}sim (hyperagents models lists ` +
    `them). Default: the first of ${order.map((p) => p.label).join(', ')} whose key is set, else sim`
  );
}
