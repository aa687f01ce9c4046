import type { GradeContext } from '../domains/index.ts';
import { type CollectedWorkspace, type Graded, gradeWorkspace } from '../harness/evaluation/index.ts';
import type { TaskJob } from './protocol.ts';
import { travelledTask } from './workspace-tasks.ts';

/**
 * A worker's grade of a workspace task's final folder, made with the grader that travelled with the job
 * (`TaskJob.workspaceGrader`), as the coordinator's machine would grade it (harness/evaluation `gradeWorkspace`:
 * the diff as the prediction, the grader's detail and test output); null when the job is no workspace task
 * whose grader travelled. A pool that brought no folder back is a refusal with the reason, as on one machine.
 */
export async function gradeTravelledWorkspace(
  grading: GradeContext,
  job: TaskJob,
  collected: CollectedWorkspace | undefined,
): Promise<Graded | null> {
  const { workspaceGrader } = job;
  const { workspace } = job.request;
  if (workspaceGrader === undefined || workspace === undefined) return null;
  const { domain, task } = travelledTask(workspaceGrader, { ...job.request, workspace });
  return gradeWorkspace(
    domain,
    task,
    collected ?? { kind: 'refused', reason: 'no workspace came back with the reply' },
    grading,
  );
}

/** The workspace limits a job's TaskAgent works under, from its task settings. */
export function workspaceLimits(settings: TaskJob['settings']): { maxFiles: number; maxKb: number } {
  return { maxFiles: settings.workspaceMaxFiles, maxKb: settings.workspaceMaxKb };
}
