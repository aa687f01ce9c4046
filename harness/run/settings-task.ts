import { DEFAULT_MAX_TOOL_CALLS, DEFAULT_MAX_TURNS } from '../../agents/index.ts';
import { DEFAULT_WORKSPACE_LIMITS } from '../evaluation/index.ts';
import { DEFAULT_LIMITS, type ResourceLimits, SANDBOX_MODES } from '../process/index.ts';
import type { Setting } from './setting.ts';
import * as schema from './setting-schemas.ts';

// A TaskAgent's tool calls on one workspace task, unless `--max-tool-calls` says otherwise: the agent loop's.
export { DEFAULT_MAX_TOOL_CALLS };

/** A limit on each agent process (and the tools run on agent files); enforcement is in docs/sandbox.md. */
const limitSetting = <const F extends keyof ResourceLimits>(option: string, field: F, describe: string) =>
  ({
    option,
    field: `limits.${field}`,
    schema: schema.limit(field).default(DEFAULT_LIMITS[field]),
    type: 'number',
    default: DEFAULT_LIMITS[field],
    describe,
    resume: 'keep',
    result: { task: field },
  }) as const satisfies Setting;

const LIMIT_SETTINGS = [
  limitSetting('memory-mb', 'memoryMb', 'memory of each agent process tree, MiB (needs cgroups)'),
  limitSetting('max-processes', 'processes', 'processes at once per agent (cgroup pids, else RLIMIT_NPROC)'),
  limitSetting('max-open-files', 'openFiles', 'open files per agent process'),
  limitSetting('max-file-mb', 'fileSizeMb', 'largest file an agent may write or a variant commit, MiB'),
  limitSetting(
    'disk-mb',
    'diskMb',
    "an agent's private /tmp, and the most a MetaAgent may add to its worktree, MiB",
  ),
  limitSetting('max-output-kb', 'outputKb', 'each log, transcript and answer is cut here (with a note), KiB'),
] as const;

/** What each task runs under: every one of these changes what a task's result can be. */
export const TASK_SETTINGS = [
  {
    option: 'sandbox',
    field: 'sandbox',
    schema: schema.oneOf(SANDBOX_MODES),
    type: 'string',
    default: 'auto',
    describe: SANDBOX_MODES.join(' | '),
    resume: 'keep',
    result: { task: 'sandbox' },
  },
  {
    option: 'task-timeout',
    field: 'taskTimeoutSec',
    schema: schema.timeout(),
    type: 'number',
    default: 300,
    describe: 'seconds per task',
    resume: 'keep',
    result: { task: 'taskTimeoutSec' },
  },
  {
    option: 'max-tool-calls',
    field: 'workspace.maxToolCalls',
    schema: schema.wholeNumber(1, 10_000).default(DEFAULT_MAX_TOOL_CALLS),
    type: 'number',
    default: DEFAULT_MAX_TOOL_CALLS,
    describe: 'tool calls a TaskAgent may make on one workspace task',
    resume: 'keep',
    result: { task: 'maxToolCalls' },
  },
  {
    option: 'max-turns',
    field: 'workspace.maxTurns',
    schema: schema.wholeNumber(1, 10_000).default(DEFAULT_MAX_TURNS),
    type: 'number',
    default: DEFAULT_MAX_TURNS,
    describe: 'model calls a TaskAgent may make on one workspace task',
    resume: 'keep',
    result: { task: 'maxTurns' },
  },
  {
    option: 'workspace-max-files',
    field: 'workspace.maxFiles',
    schema: schema.wholeNumber(1, 1_000_000).default(DEFAULT_WORKSPACE_LIMITS.maxFiles),
    type: 'number',
    default: DEFAULT_WORKSPACE_LIMITS.maxFiles,
    describe: 'files and folders a workspace task may end with (more: a wrong answer)',
    resume: 'keep',
    result: { task: 'workspaceMaxFiles' },
  },
  {
    option: 'workspace-max-kb',
    field: 'workspace.maxKb',
    schema: schema.wholeNumber(1, 1024 * 1024, ' of KiB').default(DEFAULT_WORKSPACE_LIMITS.maxKb),
    type: 'number',
    default: DEFAULT_WORKSPACE_LIMITS.maxKb,
    describe: 'KiB of files a workspace task may end with (more: a wrong answer)',
    resume: 'keep',
    result: { task: 'workspaceMaxKb' },
  },
  ...LIMIT_SETTINGS,
  {
    option: 'meta-timeout',
    field: 'metaTimeoutSec',
    schema: schema.timeout(),
    type: 'number',
    default: 3600,
    describe: 'seconds per MetaAgent run',
    resume: 'keep',
    result: 'none',
  },
] as const satisfies readonly Setting[];
