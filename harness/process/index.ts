export { type AgentEntry, buildAgentEntry } from './agent-build.ts';
export { precompileAgent } from './agent-modules.ts';
export {
  agentCommand,
  agentEnv,
  type CommandSpec,
  type Finished,
  killAll,
  killGroup,
  lastLines,
  type RunOptions,
  runToCompletion,
  startTracked,
} from './agent-processes.ts';
export {
  type CappedLog,
  capText,
  copyAgentFile,
  openCappedLog,
  openNoFollow,
  readCapped,
  writeAgentText,
} from './capped-output.ts';
export {
  describeHarnessError,
  errorLine,
  freeBytes,
  InitialAgentError,
  LOW_DISK_BYTES,
} from './harness-error.ts';
export {
  alive,
  DEFAULT_LIMITS,
  describeEnforcement,
  LIMIT_RANGES,
  limitsAboveMachine,
  MIB,
  openFilesNeeded,
  type ResourceLimits,
} from './resource-limits.ts';
export {
  bwrapAvailable,
  type ResolvedSandbox,
  resolveSandbox,
  type SandboxPolicy,
  wrapCommand,
} from './sandbox.ts';
export { SANDBOX_MODES, type SandboxMode } from './sandbox-modes.ts';
export { inspectTree, type TreeReport, treeLimits } from './tree-check.ts';
export {
  createVariantRepo,
  type DiffSummary,
  openVariantRepo,
  trackTree,
  type VariantRepo,
} from './variant-repo.ts';
