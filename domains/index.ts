// The face of domains/: all that a file outside domains/ may import of it (docs/architecture.md).
export { statedAnswer } from './answer-extraction.ts';
export { DatasetOptions, REF_OPTION_KEYS, readSidecar, sidecarPath } from './dataset-options.ts';
export {
  ALL_SPLITS,
  DOMAIN_NAME,
  type Domain,
  type DomainSpec,
  defineDomain,
  type Grade,
  type SkippedRow,
  type Split,
  selectionSplit,
  type Task,
  type TaskWorkspace,
} from './define-domain.ts';
export { DOMAINS_DIR, listDomainNames, loadDomain } from './discover.ts';
export { defaultBuildCache } from './exercism/build-cache.ts';
export { exercismDomain } from './exercism/exercism-domain.ts';
export { createGo, stdlibCache } from './exercism/go.ts';
export { gradeExercise } from './exercism/grade.ts';
export { GRADING_SEC } from './exercism/grading-time.ts';
export { LANGUAGE_NAMES, type LanguageName } from './exercism/language.ts';
export { LANGUAGES } from './exercism/languages.ts';
export {
  type ExerciseAnswer,
  type ExerciseInput,
  type ExerciseTask,
  readExercises,
} from './exercism/read.ts';
export { createRust, rust } from './exercism/rust.ts';
export { dependencyEntry } from './exercism/rust-deps.ts';
export {
  gradesLine,
  installHint,
  LANGUAGE_NEEDS,
  type LanguageToolchain,
  LEFT_OUT,
  type ProbeOptions,
  probeLanguage,
  probeToolchains,
} from './exercism/toolchain-probe.ts';
export { fieldsHoldingGold } from './gold-leaks.ts';
export type { CommandResult, GradeContext, SandboxedCommand } from './grade-context.ts';
export { hedging } from './hedging.ts';
export { readLmevalTask } from './lmeval-task.ts';
export { METRICS, type Metric, parseTolerance } from './metrics.ts';
export { parseNumber } from './numbers.ts';
export { type DomainReading, openDomain } from './open-domain.ts';
export {
  DOMAIN_REF_HELP,
  type DomainRef,
  DomainRefList,
  formatDomainRef,
  parseDomainRef,
  unknownDomain,
} from './reference.ts';
