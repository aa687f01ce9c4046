import path from 'node:path';
import {
  archiveFile,
  listRunIds,
  openArchiveReader,
  type RunView,
  UnreadableArchiveError,
  type VariantView,
} from '../../archive/index.ts';
import { unreadableArchive } from '../shared/run-ref.ts';
import { resumeCommand } from '../shared/self-command.ts';
import { fmtScore, fmtUsd, renderTable } from '../shared/text-table.ts';
import { UsageError } from '../shared/usage-error.ts';
import { withRun } from './archive-refs.ts';

/** `archive list` and `archive best`: views over every run of a runs folder. They read, never write. */

const toJson = (value: unknown): string => JSON.stringify(value, null, 2);

/** A run folder whose archive cannot be read: listed as such, never left out. */
export interface UnreadableRun {
  id: string;
  state: 'unreadable';
  archive: string;
  error: string;
}

function readRuns(runsDir: string): (RunView | UnreadableRun)[] {
  const runs: (RunView | UnreadableRun)[] = [];
  for (const id of listRunIds(runsDir)) {
    const file = archiveFile(path.join(runsDir, id));
    try {
      const reader = openArchiveReader(file);
      try {
        const run = reader.run();
        if (run !== null) runs.push(run);
      } finally {
        reader.close();
      }
    } catch (error) {
      if (!(error instanceof UnreadableArchiveError)) throw error;
      runs.push({ id, state: 'unreadable', archive: file, error: error.why });
    }
  }
  return runs;
}

const isUnreadable = (run: RunView | UnreadableRun): run is UnreadableRun => run.state === 'unreadable';

/**
 * Generations made out of those asked for: `3/10`. Variants past the number asked for (a run resumed with
 * fewer --generations than it had started) are counted beside it: `2/2 +1 beyond`. Pure.
 */
export function generationsCell(run: Pick<RunView, 'generations' | 'generationsPlanned'>): string {
  if (run.generationsPlanned === null) return String(run.generations);
  const within = Math.min(run.generations, run.generationsPlanned);
  const beyond = run.generations - within;
  return `${within}/${run.generationsPlanned}${beyond > 0 ? ` +${beyond} beyond` : ''}`;
}

/** The run list of `archive list`: a table, or JSON. A run whose archive cannot be read says so. */
export function runList(runsDir: string, json: boolean): string {
  const runs = readRuns(runsDir);
  if (json) return toJson(runs);
  if (runs.length === 0) return `No runs in ${runsDir}. Start one with hyperagents generate-loop.`;
  const table = renderTable(
    ['run', 'state', 'model', 'domains', 'generations', 'best', 'spend'],
    runs.map((r) =>
      isUnreadable(r)
        ? [r.id, r.state, '-', '-', '-', '-', '-']
        : [
            r.id,
            r.state,
            r.simulated ? `${r.model} (simulated)` : r.model,
            r.domains.join(','),
            generationsCell(r),
            r.best === null ? '-' : `${fmtScore(r.best.score)} (variant ${r.best.id})`,
            fmtUsd(r.costUsd),
          ],
    ),
  );
  const notes = runs
    .filter(isUnreadable)
    .map((r) => `run ${r.id}: ${unreadableArchive(r.archive, r.error).message}`);
  const interrupted = runs.filter((r) => r.state === 'interrupted');
  if (interrupted.length > 0) {
    notes.push(
      [
        `interrupted: the process running ${interrupted.length === 1 ? 'this run' : 'these runs'} ended without ` +
          'stopping it (killed, or the machine went down). Continue with:',
        ...interrupted.map((r) => `  ${resumeCommand(path.join(runsDir, r.id))}`),
      ].join('\n'),
    );
  }
  return notes.length === 0 ? table : `${table}\n\n${notes.join('\n')}`;
}

/**
 * The score `best` ranks by: the stored selection score; with --domain, that domain's score on --split
 * (default val, else train); with only --split, the mean over the run's domains on that split. Pure.
 */
export function rankScore(
  v: VariantView,
  domains: readonly string[],
  by: { domain?: string | undefined; split?: string | undefined },
): number | null {
  if (v.score === null) return null;
  if (by.domain !== undefined) {
    const splits = v.scores[by.domain];
    const s = by.split === undefined ? (splits?.val ?? splits?.train) : splits?.[by.split];
    return s?.score ?? null;
  }
  if (by.split !== undefined) {
    const values = domains.map((d) => v.scores[d]?.[by.split!]?.score);
    if (values.length === 0 || values.some((x) => x === undefined)) return null;
    return (values as number[]).reduce((a, b) => a + b, 0) / values.length;
  }
  return v.score;
}

/**
 * The ranking of `archive best` over the runs named (default: every run under `runsDir`). A run named
 * whose archive cannot be read is refused; one met among every run is passed over, with a `warn`ing.
 */
export function bestVariants(
  runsDir: string,
  refs: readonly string[],
  by: { domain?: string | undefined; split?: string | undefined; top: number },
  json: boolean,
  warn: (line: string) => void,
): string {
  const named = refs.length > 0;
  const ranked: {
    run: string;
    model: string;
    variant: number;
    score: number;
    outcome: string;
    /** The score shown is the confirmed one (`--confirm-top`), with the raw one beside it. */
    confirmed: boolean;
    rawScore: number | null;
    /** The variant is its run's reported best. */
    reportedBest: boolean;
  }[] = [];
  const domains = new Set<string>();
  // A confirmed score replaces the raw one only in the ranking by selection score (no --domain or --split).
  const bySelection = by.domain === undefined && by.split === undefined;
  for (const ref of named ? refs : listRunIds(runsDir)) {
    try {
      withRun(runsDir, ref, (run) => {
        const info = run.reader.run();
        const confirmed = new Map(run.reader.confirmedScores().map((c) => [c.variantId, c.confirmedScore]));
        for (const d of info?.domains ?? []) domains.add(d);
        for (const v of run.reader.variants()) {
          const raw = rankScore(v, info?.domains ?? [], by);
          if (raw === null) continue;
          const sure = bySelection ? confirmed.get(v.id) : undefined;
          ranked.push({
            run: run.id,
            model: info?.model ?? '?',
            variant: v.id,
            score: sure ?? raw,
            outcome: v.outcome,
            confirmed: sure !== undefined,
            rawScore: sure === undefined ? null : raw,
            reportedBest: info?.best?.id === v.id,
          });
        }
      });
    } catch (error) {
      if (named || !(error instanceof UsageError)) throw error;
      warn(`passed over run ${ref}: ${error.message}`);
    }
  }
  if (by.domain !== undefined && domains.size > 0 && !domains.has(by.domain)) {
    throw new UsageError(
      `--domain ${by.domain}: no run ${named ? 'named' : 'there'} has that domain (they have ${[...domains].sort().join(', ')}).`,
    );
  }
  ranked.sort((a, b) => b.score - a.score || a.run.localeCompare(b.run) || a.variant - b.variant);
  const top = ranked.slice(0, by.top);
  if (json) return toJson(top);
  if (top.length === 0) return 'No evaluated variants match.';
  if (!top.some((r) => r.confirmed))
    return renderTable(
      ['run', 'variant', 'score', 'status', 'model'],
      top.map((r) => [r.run, String(r.variant), fmtScore(r.score), r.outcome, r.model]),
    );
  // A run with confirmed scores: which score each row shows, and which variant each run reports as its best.
  return renderTable(
    ['run', 'variant', 'score', 'shows', 'raw', 'status', 'model'],
    top.map((r) => [
      r.run,
      String(r.variant) + (r.reportedBest ? ' (reported best)' : ''),
      fmtScore(r.score),
      r.confirmed ? 'confirmed' : 'raw',
      r.rawScore === null ? '-' : fmtScore(r.rawScore),
      r.outcome,
      r.model,
    ]),
  );
}
