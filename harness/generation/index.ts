export { checkDiff, checkTree } from './gate.ts';
export { advanceGeneration } from './generation.ts';
export { entryCommand, META_ENTRY, openSession, TASK_ENTRY } from './generation-session.ts';
export { frozenMetaDir, metaAgentCommand } from './meta-agent-run.ts';
export { archivedVariants, chooseParent } from './parent-choice.ts';
export {
  logDir,
  type RemoteEditContext,
  type RemoteEditReply,
  type RemoteEditRequest,
  type RemoteEdits,
  type RemoteTaskContext,
  type RemoteTasks,
  type RunContext,
  type TasksProgress,
  type TokenIssuer,
} from './run-context.ts';
export {
  type Candidate,
  PARENT_SELECTIONS,
  type ParentSelection,
  type Selection,
  selectionLag,
  selectionPool,
  selectionWeights,
  selectParent,
} from './selection.ts';
export { failVariant, seedVariantZero, startGeneration } from './transitions.ts';
