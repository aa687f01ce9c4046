// The face of llm/: all that a file outside llm/ may import of it (docs/architecture.md).
export { adaptRequest, DEFAULT_MAX_TOKENS } from './adapt.ts';
export type {
  BatchApi,
  BatchOutcome,
  BatchRequest,
  BatchResult,
  BatchStatus,
} from './batch-api.ts';
export { type BudgetStop, type CallEstimate, maxCallCost, type Reservation } from './budget.ts';
export { loadEnv } from './env.ts';
export { createFailureWatch, type FailureWatch, type ModelHealthEvent } from './failure-watch.ts';
export { type Gateway, startGateway } from './gateway.ts';
export { type BatchCall, type BatchRoute, type BatchRouter, PARKED_MESSAGE } from './gateway-batch.ts';
export type { ModelRecord } from './model-record.ts';
export type { ModelProvider, ProviderError, ProviderResult } from './provider.ts';
export {
  defaultModelFor,
  defaultOrder,
  providerVariables,
  registeredProviders,
  registerProvider,
} from './provider-registry.ts';
export { anthropic } from './providers/anthropic-provider.ts';
export { BUILT_IN_PROVIDERS } from './providers/built-in.ts';
export { batchSupport } from './providers/connect-batch.ts';
export { google } from './providers/google-provider.ts';
export { connectBatch, connectModel, providerSettings } from './providers/index.ts';
export { openai } from './providers/openai-provider.ts';
export type { ProviderSpec } from './providers/provider-spec.ts';
export {
  createNormalizer,
  createRecordWriter,
  loadReplayBook,
  type ReplayBook,
  runPlaceholders,
} from './recorder.ts';
export {
  batchCostUsd,
  batchDiscountOf,
  costUsd,
  listModels,
  resolveModel,
  resultCacheIdentity,
} from './registry.ts';
export { DEFAULT_RETRY_POLICY, type RetryInfo, withRetries } from './retry.ts';
export {
  FAULT_KINDS,
  type FaultKind,
  LATENCY_SPEC_HELP,
  type LatencySpec,
  parseFaultKinds,
  parseLatencySpec,
} from './sim/faults.ts';
export { SIM_LANDSCAPES } from './sim/landscape.ts';
export { META_PROMPT_PATH, TASK_MAIN_PATH, TASK_PROMPT_PATH } from './sim/meta-role.ts';
export { metaQuality } from './sim/phrases.ts';
export { loadSimScript, type ParsedSimScript } from './sim/script.ts';
export { createSimBatch, type SimBatchKnobs } from './sim/sim-batch.ts';
export { createSimModel, type SimModel } from './sim/sim-model.ts';
export type { SimTask } from './sim/task-role.ts';
export { MAX_TIMER_MS } from './timer-limit.ts';
export {
  type CallContext,
  type ChatRequest,
  ChatResponseSchema,
  ErrorTypeSchema,
  GatewayErrorBodySchema,
  type Message,
  type ToolSpec,
  type Usage,
} from './types.ts';
