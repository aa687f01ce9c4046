import type { RunSummary } from '../../harness/run/index.ts';

const fmt = (score: number | null): string => (score === null ? '-' : score.toFixed(3));

/** The run summary as a plain-text table for people. Pure. */
export function renderSummary(summary: RunSummary): string {
  const domains = [...new Set(summary.variants.flatMap((v) => Object.keys(v.scores)))];
  const header = ['id', 'parent', 'commit', 'status', 'score', ...domains.map((d) => `${d} train/val`)];
  const rows = summary.variants.map((v) => [
    String(v.id),
    v.parent === null ? '-' : String(v.parent),
    v.commit?.slice(0, 8) ?? '-',
    v.status,
    fmt(v.score),
    ...domains.map((d) => `${fmt(v.scores[d]?.train ?? null)}/${fmt(v.scores[d]?.val ?? null)}`),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ''];
  for (const v of summary.variants) {
    if (v.failureReason !== null) out.push(`variant ${v.id}: ${v.failureReason}`);
  }
  out.push(
    `best: ${summary.best === null ? 'none' : `variant ${summary.best.id} with ${bestScore(summary.best)}`}` +
      (summary.noiseFloor === null ? '' : ` | noise floor ±${summary.noiseFloor.spread.toFixed(3)}`) +
      ` | ${summary.llmCalls} model calls, $${summary.costUsd.toFixed(4)}` +
      (summary.simulated ? ' | simulated model: scores show the loop working, not a real model' : ''),
  );
  if (summary.stopped !== null) out.push(`stopped early: ${summary.stopped}`);
  out.push(`run folder: ${summary.runDir}`);
  out.push(`lineage: git --git-dir ${summary.runDir}/variants.git log --all --graph --oneline`);
  return out.join('\n');
}

/** The reported best's score, said to be confirmed (`--confirm-top`) beside its raw one when it is. */
function bestScore(best: NonNullable<RunSummary['best']>): string {
  return best.confirmed
    ? `${best.score.toFixed(3)} confirmed (raw ${best.rawScore.toFixed(3)})`
    : best.score.toFixed(3);
}
