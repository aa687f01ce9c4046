export { type DomainData, domainData } from './domain-data.ts';
export { domainChanges, domainHashes } from './domain-hashes.ts';
export { loadDomainTasks } from './domain-tasks.ts';
export {
  duration,
  type EstimateFigures,
  type RunEstimate,
  runEstimate,
  stageCounts,
} from './estimate.ts';
export { type HistoryRates, historyRates } from './estimate-history.ts';
export { usdText } from './estimate-units.ts';
export { evaluateStoredVariant, type StoredEvaluationOutcome } from './evaluate-stored.ts';
export { ModelUnreachableError, type RetryNotice } from './first-contact.ts';
export { gatewayFactory } from './gateway-wiring.ts';
export { type RunDeps, runGenerations } from './run.ts';
export {
  defaultTaskSettings,
  HARNESS_VERSION,
  isSimulatedModel,
  PROJECT_ROOT,
  parseStoredConfig,
  RUN_CONFIG_FIELDS,
  type RunConfig,
  RunConfigSchema,
  type SimConfig,
  storedConfig,
  type TaskSettings,
  TaskSettingsSchema,
  type TransferSource,
  taskSettingsOf,
} from './run-config.ts';
export { CONTROL_ACTIONS, Control, recordControl, STOPPED_AFTER } from './run-controls.ts';
export type { RunEvent } from './run-events.ts';
export { defaultRunId, runExists } from './run-id.ts';
export { runHolder } from './run-lock.ts';
export { type PlannedRun, planRun } from './run-plan.ts';
export { progressLine, type RunSummary } from './run-summary.ts';
export { fieldValue, OptionTextError, type Setting } from './setting.ts';
export {
  DEFAULT_FAILURE_STREAK,
  DEFAULT_STALL_MINUTES,
  DEFAULT_TASKS_PER_WORKER,
  SETTINGS,
  SHORTHANDS,
} from './settings.ts';
export { DEFAULT_FUTILITY_ALPHA, DEFAULT_FUTILITY_MARGIN } from './settings-accept.ts';
export { DEFAULT_SIM_RETRY_MS } from './settings-sim.ts';
export { DEFAULT_MAX_TOOL_CALLS } from './settings-task.ts';
