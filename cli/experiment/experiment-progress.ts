import { archiveFile, bestVariant, openArchiveReader, type VariantView } from '../../archive/index.ts';
import { fmtScore } from '../shared/text-table.ts';

/** How one finished variant of a run reads in the experiment's progress. Pure. */
function outcomeText(v: VariantView): string {
  const score = v.score === null ? '' : ` ${fmtScore(v.score)}`;
  switch (v.outcome) {
    case 'evaluated':
      return `evaluated${score}`;
    case 'staged_only':
      return `staged only${score}`;
    case 'rejected':
      return 'rejected by the gate';
    case 'failed':
      return `failed${v.failureReason === null ? '' : ` (${v.failureReason})`}`;
    case 'in_progress':
      return 'in progress';
  }
}

/**
 * The progress lines for the variants of run `id` that ended since the last call (their ids are not in
 * `reported`), in id order: `full-s1: generation 3/10 evaluated 0.375 (best 0.400, variant 2)`. Pure.
 */
export function finishedGenerationLines(
  id: string,
  variants: readonly VariantView[],
  planned: number | null,
  reported: ReadonlySet<number>,
): { lines: string[]; ids: number[] } {
  const ended = variants.filter((v) => v.outcome !== 'in_progress' && !reported.has(v.id));
  const lines = ended.map((v) => {
    const sofar = bestVariant(variants.filter((o) => o.id <= v.id && o.outcome !== 'in_progress'));
    const best = sofar === null ? '' : ` (best ${fmtScore(sofar.score)}, variant ${sofar.id})`;
    const what = v.id === 0 ? 'initial agent' : `generation ${v.id}${planned === null ? '' : `/${planned}`}`;
    return `${id}: ${what} ${outcomeText(v)}${v.id === 0 ? '' : best}`;
  });
  return { lines, ids: ended.map((v) => v.id) };
}

/** "42 s", "3 min 05 s", "1 h 02 min". Pure. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** "best 0.425 (variant 7), 10 generations" for a run's archive. */
export function bestOf(runDir: string): string {
  try {
    const reader = openArchiveReader(archiveFile(runDir));
    try {
      const run = reader.run();
      if (run === null) return 'no archive';
      const best =
        run.best === null ? 'no score' : `best ${fmtScore(run.best.score)} (variant ${run.best.id})`;
      return `${best}, ${run.generations} generation(s)`;
    } finally {
      reader.close();
    }
  } catch {
    return 'its archive cannot be read';
  }
}

/** How often a running run's archive is read for progress, and how long a run may say nothing. */
const WATCH_MS = 1000;
const QUIET_MS = 60_000;

/**
 * Progress of one run as it goes, read from its archive (the run itself is --quiet): a line per variant
 * as it ends (from this start on), and a line when nothing has ended for a minute.
 */
export function watchRun(id: string, runDir: string, log: (line: string) => void): { stop(): void } {
  const reported = new Set<number>();
  let lastLine = Date.now();
  const poll = (print = true): void => {
    let lines: string[] = [];
    let underWay: number[] = [];
    let planned: number | null = null;
    try {
      const reader = openArchiveReader(archiveFile(runDir));
      try {
        const variants = reader.variants();
        planned = reader.run()?.generationsPlanned ?? null;
        const fresh = finishedGenerationLines(id, variants, planned, reported);
        for (const v of fresh.ids) reported.add(v);
        lines = fresh.lines;
        underWay = variants.filter((v) => v.outcome === 'in_progress').map((v) => v.id);
      } finally {
        reader.close();
      }
    } catch {
      // No archive yet, or caught mid-write: read it next time.
    }
    if (!print) return;
    for (const line of lines) log(line);
    if (lines.length > 0) lastLine = Date.now();
    else if (Date.now() - lastLine >= QUIET_MS) {
      const what =
        underWay.length === 0
          ? 'starting'
          : `generation ${underWay.join(', ')}${planned === null ? '' : `/${planned}`} under way`;
      log(`${id}: ${what}, ${formatDuration(Date.now() - lastLine)} since its last result`);
      lastLine = Date.now();
    }
  };
  // What a resumed run had finished before is not news.
  poll(false);
  const timer = setInterval(poll, WATCH_MS);
  return {
    stop() {
      clearInterval(timer);
      poll();
    },
  };
}
