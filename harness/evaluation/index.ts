export {
  attemptOfCustomId,
  type BatchEndpoint,
  type BatchRounds,
  type BatchRoundsOptions,
  createBatchRounds,
  customIdOf,
} from './batch-rounds.ts';
export { type BatchTaskRouter, createBatchRouter } from './batch-router.ts';
export { checkDomain, type DomainReport, loadTaskIds } from './domain-check.ts';
export { createEvalsFolders, type EvalsFolders, type EvalsWrite } from './evals-folder.ts';
export {
  type AttemptsOutcome,
  type DomainTasks,
  evaluateAttempts,
  evaluateStage,
  type Stage,
  StageUnfinishedError,
  stageSize,
  stageSplits,
  stageTasks,
  taskContentHash,
} from './evaluate.ts';
export { finishedVariants } from './finished-variants.ts';
export { createGradeContext } from './grade-context.ts';
export { type Graded, gradeOutput, gradeWorkspace } from './grading.ts';
export {
  ACCEPT_POLICIES,
  type AcceptanceDecision,
  type AcceptPolicy,
  observe,
  pairedDifference,
  startTest,
  type TestRates,
} from './paired-test.ts';
export { scoresBySplit, selectionScore } from './scoring.ts';
export { acceptanceRounds, evaluateSequential, type SequentialPlan } from './sequential-stage.ts';
export { createTaskLimit, type TaskLimit } from './task-limit.ts';
export { type TaskSettingsRecord, taskSettingsHash } from './task-settings.ts';
export { createTaskPool, type TaskPool, type TaskRequest, type WorkerReply } from './task-workers.ts';
export { diffSummary, storedWorkspaceDiff } from './workspace-diff.ts';
export {
  type CollectedWorkspace,
  DEFAULT_WORKSPACE_LIMITS,
  type WorkspaceLimits,
} from './workspace-folders.ts';
