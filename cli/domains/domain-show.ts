import type { DatasetOptions, Task } from '../../domains/index.ts';
import { openDomain, parseDomainRef } from '../../domains/index.ts';
import { closeMatches } from '../../system/close-matches.ts';
import { unreadDatasetFlags } from '../shared/dataset-flags.ts';
import { UsageError } from '../shared/usage-error.ts';

/**
 * `hyperagents domains show REF [TASK]`: the request the TaskAgent is sent for one task (its input and the
 * format hint), as the harness builds it; the first task (train first) without TASK.
 */
export async function showTask(
  refText: string,
  taskId: string | undefined,
  flags: DatasetOptions,
  json: boolean,
): Promise<number> {
  const ref = parseDomainRef(refText);
  if (!ref.ok) throw new UsageError(ref.message);
  const unread = unreadDatasetFlags([ref.ref], flags);
  if (unread !== null) throw new UsageError(unread);
  const opened = await openDomain(ref.ref, flags);
  if (!opened.ok) throw new UsageError(opened.message);
  const domain = opened.domain;
  const tasks: { split: string; task: Task }[] = [];
  for (const split of domain.splits) for (const task of await domain.load(split)) tasks.push({ split, task });
  const found = taskId === undefined ? tasks[0] : tasks.find((t) => t.task.id === taskId);
  if (found === undefined) {
    const near =
      taskId === undefined
        ? []
        : closeMatches(
            taskId,
            tasks.map((t) => t.task.id),
          );
    throw new UsageError(
      tasks.length === 0
        ? `${domain.name} has no tasks to show.`
        : `${domain.name} has no task "${taskId}"${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}. ` +
            `Its ${tasks.length} tasks have ids such as ${tasks
              .slice(0, 3)
              .map((t) => t.task.id)
              .join(', ')}; without a TASK the first one is shown.`,
    );
  }
  // The same request evaluation sends (harness/evaluation/evaluate.ts): nothing else reaches the TaskAgent.
  const request = {
    id: found.task.id,
    domain: domain.name,
    input: found.task.input,
    ...(domain.formatHint === undefined ? {} : { formatHint: domain.formatHint }),
  };
  if (json) {
    process.stdout.write(`${JSON.stringify({ split: found.split, request })}\n`);
    return 0;
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`Task ${found.task.id} (${found.split}) of ${domain.name}, as the TaskAgent receives it:`);
  out('');
  out('input:');
  out(JSON.stringify(request.input, null, 2));
  out('');
  out(`format hint: ${request.formatHint ?? '(none)'}`);
  if (taskId === undefined && tasks.length > 1)
    out(`\n${tasks.length} tasks; show another with: hyperagents domains show ${refText} TASK`);
  return 0;
}
