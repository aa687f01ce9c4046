import { type Archive, type EventInput, type EventKind, isFinalStep } from '../../archive/index.ts';
import type { ModelHealthEvent } from '../../llm/index.ts';
import type { TasksProgress } from '../generation/index.ts';

/**
 * What a run reports while it goes, for a progress display (the harness itself prints nothing). Stages
 * are the generation steps a variant's `step` goes through in the archive; a `step` event names what
 * happens inside one (the gate's typecheck, the smoke task); `llm_call` is each model call as the ledger
 * records it.
 */
export type RunEvent =
  /** `controlSecret`: the run's secret, which the page's controls accept for this run (see `serve`). */
  | { type: 'run_started'; generations: number; controlSecret?: string }
  | { type: 'stage'; variant: number; stage: string }
  | { type: 'step'; variant: number; step: string }
  | { type: 'llm_call'; variant: number | null; role: string; costUsd: number }
  | TasksProgress
  | {
      type: 'variant_done';
      variant: number;
      status: string;
      score: number | null;
      /** Why a variant that did not finish evaluated failed or was rejected. */
      reason?: string | null;
    }
  /**
   * `--batch`: a batch of the variant's TaskAgent requests, at submission, at each poll and when collected:
   * the provider's word for its state, requests done of its total, and the seconds it has waited
   * (`sinceMs`: when it was submitted, ms since the epoch, so a display can count on between polls).
   */
  | {
      type: 'batch';
      variant: number;
      batch: number;
      state: string;
      done: number;
      total: number;
      waitedSec: number;
      sinceMs: number;
    }
  /** A model call whose provider failed `faults` attempts, `retries` of which were tried again. */
  | { type: 'model_faults'; variant: number | null; faults: number; retries: number }
  | ModelHealthEvent;

/** Archive events that start a step worth showing: the name shown for each. */
const STEPS: Partial<Record<EventKind, string>> = {
  meta_started: 'MetaAgent editing',
  meta_finished: 'committing the edit',
  entry_points_loaded: 'smoke task',
};

/**
 * The archive, telling `emit` of every generation step a variant enters and of what starts inside one, as
 * it is written: whoever moves a variant on (the generation steps) reports progress without knowing of it.
 */
export function observeArchive(archive: Archive, emit: (event: RunEvent) => void): Archive {
  const entered = (id: number, step: string): void => {
    emit({ type: 'stage', variant: id, stage: step });
    if (step === 'gating') emit({ type: 'step', variant: id, step: 'typecheck' });
    if (isFinalStep(step)) {
      const row = archive.getVariant(id);
      emit({
        type: 'variant_done',
        variant: id,
        status: row?.status ?? step,
        score: row?.step === 'done' ? (row.selectionScore ?? null) : null,
        reason: row?.failureReason ?? null,
      });
    }
  };
  return {
    ...archive,
    insertVariant(v) {
      archive.insertVariant(v);
      entered(v.id, v.step);
    },
    updateVariant(id, patch, from) {
      const changed = archive.updateVariant(id, patch, from);
      if (changed && patch.step !== undefined) entered(id, patch.step);
      return changed;
    },
    transitionVariant(id, from, to, patch, ...event) {
      const moved = archive.transitionVariant(id, from, to, patch, ...event);
      if (moved) entered(id, to);
      return moved;
    },
    recordEvent(variantId, kind, data) {
      archive.recordEvent(variantId, kind, data);
      const step = STEPS[kind];
      if (variantId !== null && step !== undefined) emit({ type: 'step', variant: variantId, step });
      if (variantId !== null && kind === 'batch') {
        const b = data as EventInput<'batch'>;
        const { batch, state, done, total, waitedSec } = b;
        const sinceMs = Date.now() - waitedSec * 1000;
        emit({ type: 'batch', variant: variantId, batch, state, done, total, waitedSec, sinceMs });
      }
    },
  };
}
