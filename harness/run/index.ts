export { evaluateStoredVariant } from './evaluate-stored.ts';
export { ModelUnreachableError, type RetryNotice } from './first-contact.ts';
export { gatewayFactory } from './gateway-wiring.ts';
export { defaultRunId, loadDomainTasks, runExists, runGenerations } from './run.ts';
export {
  HARNESS_VERSION,
  PROJECT_ROOT,
  parseStoredConfig,
  RESUMABLE_CHANGES,
  type RunConfig,
  RunConfigSchema,
  type SimConfig,
  type TransferSource,
} from './run-config.ts';
export type { RunEvent } from './run-events.ts';
export { runHolder } from './run-lock.ts';
export { progressLine, type RunSummary } from './run-summary.ts';
