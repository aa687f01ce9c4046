export {
  type Gateway,
  type GatewayOptions,
  MAX_BODY_BYTES,
  startGateway,
  type TokenGrant,
} from './gateway.ts';
export type { ModelProvider, ProviderError, ProviderResponse, ProviderResult } from './provider.ts';
export { providerError } from './provider.ts';
export {
  closeMatches,
  costUsd,
  knownModelIds,
  MODELS,
  type ModelPrice,
  type ModelRecord,
  type ProviderName,
  type ResolveModelResult,
  resolveModel,
  type WireApi,
} from './registry.ts';
export { loadSimScript, parseSimScript, type SimReply, type SimScript } from './sim/script.ts';
export { createSimModel, type SimModel, type SimModelOptions } from './sim/sim-model.ts';
export type { SimTask } from './sim/task-role.ts';
export * from './types.ts';
