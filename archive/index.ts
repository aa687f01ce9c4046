// The face of archive/: all that a file outside archive/ may import of it (docs/architecture.md).
export {
  ACCEPTANCE_DECISIONS,
  type Acceptance,
  type AcceptanceInput,
  type AcceptanceView,
  acceptanceView,
} from './acceptance.ts';
export { withoutAlertDestinations } from './alert-destinations.ts';
export { type Archive, openArchive } from './archive.ts';
export { checkArchive } from './archive-check.ts';
export type { BatchRequestRow, BatchRow, BatchTaskKey } from './batches.ts';
export { snapshotArchive, writeBundle } from './bundle.ts';
export { BUNDLE, checkFiles, type DomainHash, MAX_DATA_BYTES, type Manifest } from './bundle-manifest.ts';
export { BadBundleError, DEFAULT_UNPACK_LIMITS, MAX_JSON_BYTES, unpackBundle } from './bundle-unpack.ts';
export { reportedBest, type ScoreStanding, scoreStanding, spreadOf } from './confirmed-scores.ts';
export { ensureControlSecret, readControlSecret, secretMatches } from './control-secret.ts';
export {
  CONTROL_ACTIONS,
  CONTROL_EVENT,
  Control,
  carriedControls,
  controlMessage,
  notesOf,
  recordControl,
} from './controls.ts';
export { type CachedResult, type CacheKey, type EvalCache, openEvalCache } from './eval-cache.ts';
export type { EvaluationInput, EvaluationRow } from './evaluations.ts';
export {
  type ArchiveEvent,
  type EventInput,
  type EventKind,
  eventsOfKinds,
  type MovedStep,
  type StepEventInput,
} from './event-kinds.ts';
export {
  type ExperimentSummary,
  heldOutOf,
  type RunFigures,
  runFigures,
  summarizeExperiment,
} from './experiment-summary.ts';
export { CANARY_MARK, type Flag, runFlags, variantFlags } from './flags.ts';
export { MIGRATIONS } from './migrations.ts';
export type { GenerationSpend, LlmCallInput } from './model-calls.ts';
export { passAtK } from './pass-at-k.ts';
export { type ArchiveReader, openArchiveReader, UnreadableArchiveError } from './read.ts';
export { createRedactor, type Redactor, secretValues } from './redact.ts';
export { GRID_CELLS, type RegressionGrid, regressionGrid } from './regression-grid.ts';
export {
  lineageOrder,
  type RegressionSummary,
  summarizeRegressions,
  type TaskChange,
  type VariantRegressions,
  variantRegressions,
} from './regressions.ts';
export { comparedVariants, compareRuns } from './run-compare.ts';
export {
  agentOutputDir,
  archiveFile,
  baselineRecordFile,
  buildsDir,
  controlSecretFile,
  evalCacheFile,
  evalsDir,
  findRun,
  gatewaySocketFile,
  listRunIds,
  logsDir,
  META_AGENT_LOG,
  META_TRANSCRIPT,
  parseVariantRef,
  runById,
  runEvalCacheFile,
  runLockFile,
  runLockHolder,
  simBatchesDir,
  TASK_AGENT_LOG,
  VARIANT_LOGS,
  type VariantLogName,
  variantFolder,
  variantLogDir,
  variantRepoDir,
  workspacesDir,
  worktreesDir,
} from './run-folder.ts';
export {
  type Alternative,
  bestSoFar,
  bootstrapMedianCI,
  curveArea,
  type Interval,
  mannWhitneyU,
  median,
  type RankTest,
  smallestRankP,
} from './stats.ts';
export { TarNameError } from './tar.ts';
export { sizeText, TarLimitError, type UnpackLimits } from './tar-read.ts';
export {
  TASK_OUTCOMES,
  type TaskOutcome,
  type TaskOutcomeRow,
  type TaskResultInput,
  type TaskResultRow,
} from './task-results.ts';
export { type MetaTranscript, readMetaTranscript } from './transcript.ts';
export { checkUntrustedArchive } from './untrusted-archive.ts';
export { variantDiff } from './variant-diff.ts';
export { variantFile, variantFiles } from './variant-files.ts';
export { isVariantLog, LOG_CAP_BYTES, listVariantLogs, readVariantLog } from './variant-logs.ts';
export {
  type FailureCause,
  isFinalStep,
  type VariantPatch,
  type VariantRow,
  type VariantStatus,
  type VariantStep,
} from './variants.ts';
export {
  bestVariant,
  type RunState,
  type RunView,
  type Scores,
  type VariantView,
} from './views.ts';
