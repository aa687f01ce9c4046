import type { VariantView } from '../../archive/index.ts';
import { passAtK, readMetaTranscript, scoreStanding, variantFlags } from '../../archive/index.ts';
import { fmtScore, fmtUsd, renderTable } from '../shared/text-table.ts';
import { acceptanceLine, fmtAcceptedScore, fmtSplitScore } from './archive-acceptance.ts';
import { out, printJson, signed } from './archive-output.ts';
import type { OpenedRun } from './archive-refs.ts';
import { scoreColumns } from './archive-variants.ts';

/** `archive show RUN:VARIANT`: scores, the standing under noise, pass@k, change, flags and MetaAgent summary. */
export async function showVariant(run: OpenedRun, v: VariantView, json: boolean): Promise<void> {
  const parent = v.parent === null ? null : run.reader.variant(v.parent);
  const flags = await variantFlags(run.reader, run.dir, v, parent);
  const transcript = readMetaTranscript(run.dir, v.id);
  const meta =
    transcript === null
      ? null
      : { status: transcript.status, summary: transcript.summary, toolCalls: transcript.toolCalls };
  const noise = noiseOf(run, v);
  const repeated = passAtK(run.reader.taskResults(v.id, { attempt: 'all' }));
  if (json) {
    printJson({
      run: run.id,
      variant: v,
      parentScore: parent?.score ?? null,
      ...noise,
      passAtK: repeated,
      metaAgent: meta,
      flags,
    });
    return;
  }
  const delta =
    v.score !== null && parent?.score != null ? ` (${signed(v.score - parent.score)} on its parent)` : '';
  const lines = [
    `variant ${v.id} of run ${run.id}: ${v.outcome}, score ${fmtAcceptedScore(v.score, v.acceptance)}${delta}`,
    `parent: ${v.parent === null ? 'none (the initial agent)' : v.parent}${v.selectionReason ? ` (${v.selectionReason})` : ''}`,
    ...acceptanceLine(v.acceptance),
    `commit: ${v.commit ?? 'none'}`,
    `changed: ${v.changedFiles.length === 0 ? '-' : v.changedFiles.join(', ')}`,
    ...noiseLines(noise),
    ...repeated.map(
      (p) =>
        `pass@k, ${p.domain} ${p.split} (${p.attempts} attempts at each of ${p.tasks} tasks): ` +
        Object.entries(p.passAt)
          .map(([k, value]) => `pass@${k} ${fmtScore(value)}`)
          .join(', '),
    ),
  ];
  if (v.failureReason !== null) lines.push(`failure: ${v.failureReason}`);
  // Flags never select anything: they say where a score may come from gaming the grader.
  for (const flag of flags) lines.push(`flag ${flag.kind}: ${flag.detail}`);
  lines.push(`cost: ${fmtUsd(v.costUsd)} in ${v.llmCalls} model call(s)`);
  const columns = scoreColumns([v]);
  if (columns.length > 0) {
    lines.push(
      '',
      renderTable(
        ['domain', 'split', 'stage', 'score', 'correct', 'wrong', 'parse failures', 'errors', 'tasks'],
        columns.map(({ domain, split }) => {
          const s = v.scores[domain]![split]!;
          const cells = [s.correct, s.wrong, s.parseFailures, s.errors].map(String);
          return [
            domain,
            split,
            s.stage,
            fmtSplitScore(s, v.acceptance),
            ...cells,
            `${s.nTasks}/${s.nTotal}`,
          ];
        }),
      ),
    );
  }
  lines.push('');
  if (meta === null)
    lines.push(v.parent === null ? 'MetaAgent: none (the initial agent)' : 'MetaAgent: left no transcript');
  else
    lines.push(
      `MetaAgent (${meta.status}, ${meta.toolCalls ?? '?'} tool calls): ${meta.summary ?? '(no summary)'}`,
    );
  out(lines.join('\n'));
}

/** What the run knows of this variant's score under noise (see scoreStanding). */
function noiseOf(run: OpenedRun, v: VariantView) {
  return scoreStanding(
    v,
    v.id === 0 ? null : (run.reader.variant(0)?.score ?? null),
    run.reader.confirmedScores(),
    run.reader.noiseFloor(),
    run.reader.run()?.best?.id ?? null,
  );
}

function noiseLines(noise: ReturnType<typeof noiseOf>): string[] {
  const lines: string[] = [];
  if (noise.confirmed !== null)
    lines.push(
      `confirmed: ${fmtScore(noise.confirmed.score)} on ${noise.confirmed.attempts.length} fresh attempts at the ` +
        `validation split (raw ${fmtScore(noise.confirmed.raw)})${noise.reportedBest ? ": the run's reported best" : ''}`,
    );
  if (noise.noiseFloor !== null) {
    const floor = `±${noise.noiseFloor.spread.toFixed(3)} (variant 0 on ${noise.noiseFloor.scores.length} attempts: ${noise.noiseFloor.scores.map(fmtScore).join(', ')})`;
    lines.push(`noise floor: ${floor}`);
    if (noise.gainOverInitial !== null && noise.gainOverInitial > 0)
      lines.push(
        `over variant 0: ${signed(noise.gainOverInitial)}, ${noise.withinNoise ? 'within noise' : 'beyond the noise floor'}`,
      );
  }
  return lines;
}
