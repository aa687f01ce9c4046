// The public API of hyperagents-ts: the agent core (usable on its own to build agents), domains,
// parent selection and the archive.
export * from './agents/index.ts';
export { type Archive, openArchive } from './archive/archive.ts';
export {
  type Domain,
  type DomainSpec,
  defineDomain,
  type Grade,
  type Split,
  type Task,
} from './domains/define-domain.ts';
export type { CommandResult, GradeContext, SandboxedCommand } from './domains/grade-context.ts';
export {
  type Candidate,
  PARENT_SELECTIONS,
  type ParentSelection,
  type Selection,
  selectionWeights,
  selectParent,
} from './harness/generation/index.ts';
