import type { TaskResultRow, VariantView } from '../../archive/index.ts';
import { diffSummary, storedWorkspaceDiff } from '../../harness/evaluation/index.ts';
import { fmtUsd, renderTable } from '../shared/text-table.ts';
import { UsageError } from '../shared/usage-error.ts';
import { out, printJson } from './archive-output.ts';
import type { OpenedRun } from './archive-refs.ts';

/** `archive tasks RUN:VARIANT`: per-task results, each workspace task's diff and test output below them. */
export function listTasks(
  run: OpenedRun,
  v: VariantView,
  filter: { failedOnly: boolean; domain?: string | undefined; split?: string | undefined },
  json: boolean,
): void {
  const domains = run.reader.run()?.domains ?? [];
  if (filter.domain !== undefined && !domains.includes(filter.domain)) {
    throw new UsageError(
      `--domain ${filter.domain}: run ${run.id} has no such domain (it has ${domains.join(', ') || 'none'}).`,
    );
  }
  const rows = run.reader.taskResults(v.id, {
    failedOnly: filter.failedOnly,
    ...(filter.domain === undefined ? {} : { domain: filter.domain }),
    ...(filter.split === undefined ? {} : { split: filter.split }),
  });
  if (json) {
    printJson(rows);
    return;
  }
  if (rows.length === 0) {
    out(`Variant ${v.id} has no ${filter.failedOnly ? 'failed ' : ''}task results.`);
    return;
  }
  out(
    renderTable(
      ['domain', 'split', 'task', 'outcome', 'score', 'prediction', 'latency', 'cost', 'reused'],
      rows.map((t) => [
        t.domain,
        t.split,
        t.taskId,
        t.outcome,
        t.score.toFixed(2),
        predictionCell(t.prediction),
        t.latencyMs === null ? '-' : `${t.latencyMs} ms`,
        fmtUsd(t.costUsd),
        t.reused ? 'yes' : '',
      ]),
    ),
  );
  for (const t of rows) {
    const block = workspaceBlock(t);
    if (block !== null) out(block);
  }
}

/** A prediction in the table: a workspace task's diff as its size, any other cut to one short line. */
function predictionCell(prediction: string | null): string {
  const diff = storedWorkspaceDiff(prediction);
  if (diff !== null) return `diff: ${diffSummary(diff)}`;
  return (prediction ?? '-').replace(/\s+/g, ' ').slice(0, 40);
}

/** Lines of a diff or test output printed per task; the rest is in --json. */
const SHOWN_LINES = 60;

/** A workspace task's diff and the test output its grader saw, below the table; null for other tasks. */
function workspaceBlock(t: TaskResultRow): string | null {
  const diff = storedWorkspaceDiff(t.prediction);
  if (diff === null && t.log === null) return null;
  const cut = (text: string): string => {
    const lines = text.replace(/\n$/, '').split('\n');
    return lines.length <= SHOWN_LINES
      ? lines.join('\n')
      : `${lines.slice(0, SHOWN_LINES).join('\n')}\n[${lines.length - SHOWN_LINES} more lines: --json shows all]`;
  };
  return [
    '',
    `${t.domain} ${t.split} ${t.taskId}: ${t.outcome}${t.detail === null ? '' : ` (${t.detail})`}`,
    diff === null
      ? 'diff: none (no workspace was collected)'
      : diff === ''
        ? 'diff: no change'
        : `diff:\n${cut(diff)}`,
    t.log === null ? 'test output: none' : `test output:\n${cut(t.log)}`,
  ].join('\n');
}
