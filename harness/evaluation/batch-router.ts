import type { Archive, BatchTaskKey } from '../../archive/index.ts';
import type { BatchCall, BatchRoute, BatchRouter } from '../../llm/index.ts';

/** One run of one task attempt in a batch round: the calls it made so far, and how they went. */
interface TaskRun {
  calls: number;
  /** A call differed from the record: this run's later calls are ordinary ones. */
  diverged: boolean;
  /** A call was parked: the run's answer is not a result, and its later calls are parked too. */
  parked: boolean;
}

/** The gateway's side of the rounds: each task's calls answered from the record, parked, or ordinary. */
export interface BatchTaskRouter extends BatchRouter {
  /** The task attempt is about to run (again): its calls count from the first. */
  begin(key: BatchTaskKey): void;
  /** Whether the run that just ended stopped at a call waiting for a batch (its answer is no result). */
  parked(key: BatchTaskKey): boolean;
  /** The task attempt is done with: its state is dropped. */
  end(key: BatchTaskKey): void;
}

const keyText = (k: BatchTaskKey): string =>
  `${k.variantId}\u0000${k.domain}\u0000${k.taskId}\u0000${k.attempt}`;

/**
 * Routes the TaskAgent calls of the tasks `begin` was told of (single-reply tasks in a `--batch` run); every
 * other call (the MetaAgent's, a workspace task's, one that names no task) is ordinary. Call `i` of a task's
 * run is answered from the record when the record's call `i` is the same request and has its answer, parked
 * when it is not answered yet or is new (then recorded), and ordinary when it differs from the record (the
 * agent is not deterministic given the same answers; `note` is told once per task).
 */
export function createBatchRouter(
  archive: Pick<Archive, 'batchRequestsOf' | 'addBatchRequest'>,
  note: (message: string) => void,
): BatchTaskRouter {
  const runs = new Map<string, TaskRun>();
  const route = (call: BatchCall): BatchRoute => {
    if (call.role !== 'task' || call.task === undefined || call.variantId === null)
      return { kind: 'ordinary' };
    const key = {
      variantId: call.variantId,
      domain: call.task.domain,
      taskId: call.task.id,
      attempt: call.attempt,
    };
    const run = runs.get(keyText(key));
    if (run === undefined || run.diverged) return { kind: 'ordinary' };
    if (run.parked) return { kind: 'parked' };
    const index = run.calls++;
    const recorded = archive.batchRequestsOf(key).find((r) => r.callIndex === index);
    if (recorded === undefined) {
      archive.addBatchRequest({
        ...key,
        callIndex: index,
        requestHash: call.key,
        model: call.model,
        request: JSON.stringify(call.request),
      });
      run.parked = true;
      return { kind: 'parked' };
    }
    if (recorded.requestHash !== call.key) {
      run.diverged = true;
      note(
        `task ${call.task.domain}/${call.task.id}: call ${index + 1} differs from the one asked in its batch ` +
          '(the TaskAgent is not deterministic given the same answers); it and the calls after it are ordinary calls',
      );
      return { kind: 'ordinary' };
    }
    if (recorded.status === 'answered' && recorded.answer !== null)
      return { kind: 'answered', response: JSON.parse(recorded.answer) };
    // Answered neither by its batch nor by the ordinary call after: asked again, as any call would be.
    if (recorded.status === 'failed') return { kind: 'ordinary' };
    run.parked = true;
    return { kind: 'parked' };
  };
  return {
    route: (call) => {
      try {
        return route(call);
      } catch {
        return { kind: 'ordinary' };
      }
    },
    begin: (key) => void runs.set(keyText(key), { calls: 0, diverged: false, parked: false }),
    parked: (key) => runs.get(keyText(key))?.parked === true,
    end: (key) => void runs.delete(keyText(key)),
  };
}
