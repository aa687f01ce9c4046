import type { ArchiveReader } from '../archive/index.ts';

/** One batch of `--batch` as a run's page shows it. */
export interface BatchView {
  id: number;
  variantId: number;
  /** The provider's id for it; null while it was written but not yet submitted. */
  providerBatchId: string | null;
  /** Ours: `submitting`, `pending`, `ended`, `abandoned`. */
  state: string;
  /** The provider's word for it at the last poll (`in_progress`, `completed`, `expired`, ...). */
  providerState: string | null;
  /** The evaluation's round it belongs to (1 for the first); null when no event says. */
  round: number | null;
  requests: number;
  done: number;
  failed: number;
  /** Seconds from its submission to its end, or to now while it is pending. */
  waitedSec: number;
}

/** A run's batches, what went through them and what that saved; null when the run used no batch. */
export interface RunBatches {
  batches: BatchView[];
  /** The model calls the ledger charged at the batch price. */
  calls: number;
  costUsd: number;
  /** What those calls would have cost more as ordinary calls (from each collected batch's event). */
  savedUsd: number;
}

/** The page's view of a run's batches (see RunBatches), its pending ones' wait counted to `now`. */
export function runBatches(reader: ArchiveReader, now: number): RunBatches | null {
  const rows = reader.batches();
  const spend = reader.batchSpend();
  if (rows.length === 0 && spend.calls === 0) return null;
  const events = reader.eventsOf(['batch']);
  const rounds = new Map(events.map((e) => [e.data.batch, e.data.round]));
  const saved = events.reduce((sum, e) => sum + (e.data.savedUsd ?? 0), 0);
  return {
    batches: rows.map((b) => {
      const from = Date.parse(b.submittedAt ?? b.createdAt);
      const to = b.endedAt === null ? now : Date.parse(b.endedAt);
      return {
        id: b.id,
        variantId: b.variantId,
        providerBatchId: b.providerBatchId,
        state: b.state,
        providerState: b.providerState,
        round: rounds.get(b.id) ?? null,
        requests: b.requests,
        done: b.done,
        failed: b.failed,
        waitedSec: Math.max(0, Math.round((to - from) / 1000)),
      };
    }),
    calls: spend.calls,
    costUsd: spend.costUsd,
    savedUsd: saved,
  };
}
