import { type Archive, isFinalStep, variantRepoDir } from '../../archive/index.ts';
import { failVariant, type TokenIssuer } from '../generation/index.ts';
import { describeHarnessError, InitialAgentError } from '../process/index.ts';
import { ModelUnreachableError } from './first-contact.ts';
import type { RunAlerts } from './run-alerts.ts';
import { type ControlWatch, overBudget, STOPPED_AFTER } from './run-controls.ts';
import { budgetMessage, type RunSummary } from './run-summary.ts';

/**
 * A failure of the harness itself (disk, database, git, a ledger row it could not write) halts the run as an
 * interrupt does: every generation stops at its step, writing nothing more, to be redone by --resume; the run
 * then fails with the first such error.
 */
export function haltOnFailure(): { fail(error: Error): void; failure(): Error | null; halted: AbortSignal } {
  const halt = new AbortController();
  let first: Error | null = null;
  return {
    fail(error) {
      first ??= error;
      halt.abort();
    },
    failure: () => first,
    halted: halt.signal,
  };
}

/** The error a failed run ends with: the user's (unreachable model, initial agent) as it is, else described. */
export function runFailure(error: unknown, runDir: string): unknown {
  if (error instanceof ModelUnreachableError || error instanceof InitialAgentError) return error;
  const message = describeHarnessError(error, variantRepoDir(runDir));
  return error instanceof Error && error.message === message ? error : new Error(message, { cause: error });
}

/**
 * Ends the run when a model could not be reached by its first calls; the variant those calls were for
 * is failed with that reason (its results are the infrastructure's failures, not answers).
 */
export function stopIfUnreachable(archive: Archive, id: number, unreachable: string | null): void {
  if (unreachable === null) return;
  const variant = archive.getVariant(id);
  if (variant !== undefined)
    failVariant({ archive }, variant, 'failed', `model unreachable: ${unreachable}`, 'harness');
  throw new ModelUnreachableError(unreachable);
}

/**
 * Why the run stopped before its end, recorded as a run event: an interrupt, the budget (with what was
 * spent and held; a `budget` control's when one was given), or a `stop-after` control; null when it ran to
 * its end.
 */
export function recordStop(
  archive: Archive,
  interrupted: boolean,
  gateway: Pick<TokenIssuer, 'budgetReached' | 'budgetStop'>,
  spentUsd: number,
  configBudgetUsd: number | null,
  controls: ControlWatch,
): string | null {
  if (interrupted) {
    archive.recordEvent(null, 'interrupted', {});
    return 'interrupted';
  }
  const told = controls.state();
  const budgetUsd = told.budgetUsd ?? configBudgetUsd;
  if (gateway.budgetReached() || overBudget(told.budgetUsd, spentUsd)) {
    const stop = gateway.budgetStop();
    archive.recordEvent(null, 'budget_reached', {
      spentUsd,
      budgetUsd,
      heldUsd: stop?.heldUsd ?? 0,
      nextCallUsd: stop?.nextUsd ?? null,
    });
    return budgetMessage(spentUsd, budgetUsd, stop);
  }
  if (!told.stopAfter) return null;
  archive.recordEvent(null, 'stopped_after', { spentUsd });
  return STOPPED_AFTER;
}

/** Tells the run's alerts how it ended; a stop that is neither an interrupt nor a stop-after is the budget's. */
export function alertEnd(alerts: RunAlerts | null, stopped: string | null, summary: RunSummary): void {
  if (stopped !== null && stopped !== 'interrupted' && stopped !== STOPPED_AFTER) alerts?.budgetReached();
  alerts?.ended({
    state: stopped === null ? 'done' : 'stopped',
    reason: stopped,
    best: summary.best === null ? null : { id: summary.best.id, score: summary.best.score },
    generations: summary.generations,
  });
}

/**
 * Records a run that ended on `error` (stopped when interrupted, else failed) and tells its alerts; returns
 * the error the run ends with (see runFailure).
 */
export function recordFailure(
  archive: Archive,
  error: unknown,
  interrupted: boolean,
  runDir: string,
  alerts: RunAlerts | null,
): unknown {
  try {
    archive.finishRun(interrupted ? 'stopped' : 'failed');
  } catch {
    // The archive cannot be written (a full disk): the run reads as unfinished, and a resume continues it.
  }
  const failedWith = runFailure(error, runDir);
  const message = failedWith instanceof Error ? failedWith.message : String(failedWith);
  if (!interrupted) alerts?.harnessError(message);
  alerts?.ended({
    state: interrupted ? 'stopped' : 'failed',
    reason: message,
    best: null,
    generations: finishedGenerations(archive),
  });
  return failedWith;
}

/** The generations of a run that ended, or null when the archive cannot be read. */
function finishedGenerations(archive: Archive): number | null {
  try {
    return archive.listVariants().filter((v) => v.id > 0 && isFinalStep(v.step)).length;
  } catch {
    return null;
  }
}
