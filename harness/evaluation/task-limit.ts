import pLimit from 'p-limit';

/**
 * The one bound on the tasks under way: `--eval-workers`. Made once per run (or per `eval`) and shared by
 * every evaluation in it, local pools and queue alike, so that generations evaluating at once together run
 * and grade at most `size` tasks. A task holds its place from the moment it is handed to a pool until it
 * is graded and stored (a retry included); the pool of a generation starts at most `size` workers' worth.
 */
export interface TaskLimit {
  readonly size: number;
  /** Runs `task` once fewer than `size` tasks are under way. */
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createTaskLimit(size: number): TaskLimit {
  const limit = pLimit(size);
  return { size, run: (task) => limit(task) };
}
