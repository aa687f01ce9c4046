export { type Budget, type CallEstimate, createBudget, maxCallCost } from './budget.ts';
export {
  type Gateway,
  type GatewayLedgerRow,
  type GatewayOptions,
  MAX_BODY_BYTES,
  startGateway,
  type TokenGrant,
} from './gateway.ts';
export type { ModelProvider, ProviderError, ProviderResponse, ProviderResult } from './provider.ts';
export { providerError } from './provider.ts';
export {
  createNormalizer,
  createRecordWriter,
  loadReplayBook,
  type Normalizer,
  normalizeRequest,
  type Placeholder,
  type RecordedRequest,
  type RecordedResponse,
  type RecordingLine,
  type RecordWriter,
  type ReplayBook,
  requestKey,
  runPlaceholders,
} from './recorder.ts';
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
export {
  FAULT_KINDS,
  type FaultKind,
  type LatencySpec,
  parseFaultKinds,
  parseLatencySpec,
  type SimKnobs,
} from './sim/faults.ts';
export { loadSimScript, parseSimScript, type SimReply, type SimScript } from './sim/script.ts';
export { createSimModel, type SimModel, type SimModelOptions } from './sim/sim-model.ts';
export type { SimTask } from './sim/task-role.ts';
export * from './types.ts';
