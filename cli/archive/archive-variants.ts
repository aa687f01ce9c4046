import type { RunView, Scores, VariantView } from '../../archive/index.ts';
import { resumeCommand } from '../shared/self-command.ts';
import { fmtUsd, renderTable } from '../shared/text-table.ts';
import { ACCEPTANCE_LEGEND, acceptanceCell, fmtAcceptedScore, fmtSplitScore } from './archive-acceptance.ts';
import { out, printJson } from './archive-output.ts';
import type { OpenedRun } from './archive-refs.ts';

/** "domain split" column keys present in any variant, in a stable order. */
export function scoreColumns(variants: readonly { scores: Scores }[]): { domain: string; split: string }[] {
  const keys = new Map<string, { domain: string; split: string }>();
  for (const v of variants)
    for (const [domain, splits] of Object.entries(v.scores))
      for (const split of Object.keys(splits)) keys.set(`${domain}\u0000${split}`, { domain, split });
  return [...keys.values()].sort(
    (a, b) => a.domain.localeCompare(b.domain) || a.split.localeCompare(b.split),
  );
}

/** `archive list RUN`: the run's variants, with a score column per domain and split. */
export function listVariants(run: OpenedRun, json: boolean): void {
  const variants = run.reader.variants();
  const info = run.reader.run();
  const tampered = run.reader.tamperedTasks();
  if (json) {
    printJson({ run: info, variants: variants.map((v) => ({ ...v, tampered: tampered.get(v.id) ?? 0 })) });
    return;
  }
  const columns = scoreColumns(variants);
  // Shown only for a run that has any: answers the grader caught tampering with it (archive show says more).
  const flagged = tampered.size > 0;
  // A variant under way in a run that is not running stays where it is until the run is resumed.
  const unfinished = info !== null && info.state !== 'running';
  // Shown only for a run that decided its children sequentially (--accept sequential).
  const sequential = variants.some((v) => v.acceptance !== null);
  const table = renderTable(
    [
      'id',
      'parent',
      'status',
      'score',
      ...columns.map((c) => `${c.domain} ${c.split}`),
      ...(sequential ? ['accepted'] : []),
      'cost',
      ...(flagged ? ['tampering'] : []),
    ],
    variants.map((v) => [
      String(v.id),
      v.parent === null ? '-' : String(v.parent),
      unfinished && v.outcome === 'in_progress' ? 'unfinished' : v.outcome,
      fmtAcceptedScore(v.score, v.acceptance),
      ...columns.map((c) => fmtSplitScore(v.scores[c.domain]?.[c.split], v.acceptance)),
      ...(sequential ? [acceptanceCell(v.acceptance)] : []),
      fmtUsd(v.costUsd),
      ...(flagged ? [tasksCaught(tampered.get(v.id))] : []),
    ]),
  );
  const notes = flagged
    ? [
        '',
        'tampering: answers that tried to pass without solving the task (each scored 0); ' +
          `hyperagents archive show ${info?.id ?? 'RUN'}:ID says what the grader caught.`,
      ]
    : [];
  const legend = sequential ? ['', ACCEPTANCE_LEGEND] : [];
  out(
    [table, ...legend, ...notes, ...(info === null ? [] : unfinishedNotes(run.dir, info, variants))].join(
      '\n',
    ),
  );
}

const tasksCaught = (n: number | undefined): string =>
  n === undefined ? '-' : `${n} task${n === 1 ? '' : 's'}`;

/** What the variant list says under its table about a run that stopped with variants unfinished. Pure. */
export function unfinishedNotes(
  runDir: string,
  run: Pick<RunView, 'state' | 'generationsPlanned'>,
  variants: readonly Pick<VariantView, 'id' | 'outcome'>[],
): string[] {
  if (run.state === 'running') return [];
  const open = variants.filter((v) => v.outcome === 'in_progress').map((v) => v.id);
  const planned = run.generationsPlanned;
  const beyond = planned === null ? [] : open.filter((id) => id > planned);
  const within = open.filter((id) => !beyond.includes(id));
  const notes: string[] = [];
  if (run.state === 'interrupted')
    notes.push(
      'The run was interrupted: the process running it ended without stopping it. Continue it with: ' +
        resumeCommand(runDir),
    );
  else if (within.length > 0)
    notes.push(
      `Variant ${within.join(', ')} stopped before its end; continue the run with: ${resumeCommand(runDir)}`,
    );
  if (beyond.length > 0) {
    notes.push(
      `Variant ${beyond.join(', ')} was started before the run was resumed with --generations ${planned} and is ` +
        `left unfinished; to finish it: ${resumeCommand(runDir)} --generations ${Math.max(...beyond)}`,
    );
  }
  return notes.length === 0 ? [] : ['', ...notes];
}
