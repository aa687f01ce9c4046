// The public API of hyperagents-ts: the agent core (usable on its own to build agents), domains,
// parent selection and the archive.
export * from './agents/index.ts';
export { type Archive, openArchive } from './archive/index.ts';
export type { CommandResult, GradeContext, SandboxedCommand } from './domains/index.ts';
export {
  type Domain,
  type DomainSpec,
  defineDomain,
  type Grade,
  type Split,
  type Task,
} from './domains/index.ts';
export {
  type Candidate,
  PARENT_SELECTIONS,
  type ParentSelection,
  type Selection,
  selectionWeights,
  selectParent,
} from './harness/generation/index.ts';
