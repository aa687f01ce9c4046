import type { VariantView } from '../../archive/index.ts';
import { readMetaTranscript } from '../../archive/index.ts';
import { fmtScore, renderTable } from '../shared/text-table.ts';
import { out, printJson, signed } from './archive-output.ts';
import type { OpenedRun } from './archive-refs.ts';

/** `archive lineage RUN:VARIANT`: the path from variant 0, with each step's score change and summary. */
export function showLineage(run: OpenedRun, v: VariantView, json: boolean): void {
  const path = run.reader.lineage(v.id);
  const rows = path.map((step, i) => {
    const before = i === 0 ? null : path[i - 1]!.score;
    return {
      id: step.id,
      parent: step.parent,
      outcome: step.outcome,
      score: step.score,
      delta: step.score !== null && before !== null ? step.score - before : null,
      changed: step.changedFiles,
      summary: readMetaTranscript(run.dir, step.id)?.summary ?? null,
    };
  });
  if (json) {
    printJson({ run: run.id, variant: v.id, lineage: rows });
    return;
  }
  out(
    renderTable(
      ['id', 'status', 'score', 'delta', 'changed', 'MetaAgent summary'],
      rows.map((r) => [
        String(r.id),
        r.outcome,
        fmtScore(r.score),
        r.delta === null ? '-' : signed(r.delta),
        r.changed.join(',') || '-',
        (r.summary ?? '-').replace(/\s+/g, ' ').slice(0, 100),
      ]),
    ),
  );
}
