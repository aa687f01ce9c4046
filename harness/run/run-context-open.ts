import path from 'node:path';
import { createGradeContext, createTaskLimit } from '../evaluation/index.ts';
import type { RunContext } from '../generation/index.ts';
import { PROJECT_ROOT, type RunConfig, taskSettingsOf } from './run-config.ts';

/** Where the agents' packages are: the project's node_modules, shown read-only to every agent process. */
export const NODE_MODULES = path.join(PROJECT_ROOT, 'node_modules');

/** What a command opened for a run (its archive, cache, variant repo and gateway) and how it reports. */
export type RunContextParts = Omit<
  RunContext<RunConfig>,
  'nodeModules' | 'grading' | 'taskLimit' | 'taskSettings'
>;

/**
 * The context every step of a run shares, for a run's generations (generate-loop, with the queue's remote
 * tasks and edits when it coordinates workers) and for the evaluation of one stored variant (eval): what
 * follows from the configuration is derived here once, the task settings among it. `--eval-workers` becomes the one TaskLimit that
 * bounds the tasks under way across every generation in flight, local or queued.
 */
export function openRunContext(parts: RunContextParts): RunContext<RunConfig> {
  return {
    ...parts,
    nodeModules: NODE_MODULES,
    grading: createGradeContext({ sandbox: parts.sandbox, nodeModules: NODE_MODULES }),
    taskLimit: createTaskLimit(parts.config.evalWorkers),
    taskSettings: taskSettingsOf(parts.config),
  };
}
