import type { Domain, GradeContext, Task } from '../domains/index.ts';
import { DOMAINS_DIR, listDomainNames, loadDomain } from '../domains/index.ts';
import type { TaskRequest } from '../harness/evaluation/index.ts';
import { type Graded, gradeOutput } from '../harness/evaluation/index.ts';

export interface WorkerGrader {
  /**
   * Grades a TaskAgent's output against this installation's copy of the task (found by domain, task id and
   * input); null when this installation has no such task, and the coordinator grades it instead.
   */
  grade(request: TaskRequest, output: string): Promise<Graded | null>;
}

type Known = Map<string, { domain: Domain; task: Task }>;

const keyOf = (id: string, input: unknown): string => `${id}\u0000${JSON.stringify(input ?? null)}`;

/** A worker's grader over the domains shipped in its own project (the project version makes them equal). */
export function createWorkerGrader(grading: GradeContext, dir = DOMAINS_DIR): WorkerGrader {
  const loaded = new Map<string, Promise<Known | null>>();
  const known = (name: string): Promise<Known | null> => {
    let tasks = loaded.get(name);
    if (tasks === undefined) {
      tasks = (async () => {
        if (!listDomainNames(dir).includes(name)) return null;
        const domain = await loadDomain(name, dir);
        const out: Known = new Map();
        for (const split of domain.splits) {
          for (const task of await domain.load(split)) out.set(keyOf(task.id, task.input), { domain, task });
        }
        return out;
      })();
      loaded.set(name, tasks);
    }
    return tasks;
  };
  return {
    async grade(request, output) {
      const found = (await known(request.domain))?.get(keyOf(request.id, request.input));
      return found === undefined ? null : gradeOutput(found.domain, found.task, output, grading);
    },
  };
}
