import { isFinalStep, variantRepoDir } from '../../archive/index.ts';
import { StageUnfinishedError } from '../evaluation/index.ts';
import {
  advanceGeneration,
  chooseParent,
  failVariant,
  type RunContext,
  selectionLag,
  startGeneration,
} from '../generation/index.ts';
import { describeHarnessError } from '../process/index.ts';
import { ModelUnreachableError } from './first-contact.ts';
import { type ControlWatch, overBudget, whilePaused } from './run-controls.ts';
import { progressLine } from './run-summary.ts';

/**
 * Starts generations 1..N in order, at most `parallel` at once. Generation g starts once a slot is free and
 * every generation up to g − selectionLag(parallel) has finished, and its parent is drawn from those, so the
 * archive does not depend on which generation ended first. A harness error (git, disk, database) is handed
 * to `fail`, which halts the run: the generation it struck stays at its step, as an interrupted one does, so
 * that --resume redoes it and the run goes on as it would have without the fault.
 */
export async function schedule(
  ctx: RunContext,
  spent: () => number,
  unreachable: () => string | null,
  fail: (error: Error) => void,
  controls: ControlWatch,
): Promise<void> {
  const { archive, config } = ctx;
  const running = new Map<number, Promise<void>>();
  let failed = false;
  const stopping = (): boolean => {
    if (failed || ctx.signal.aborted || ctx.gateway.budgetReached()) return true;
    const told = controls.poll();
    return told.stopAfter || overBudget(told.budgetUsd, spent());
  };
  const harnessError = (id: number | null, error: unknown): void => {
    if (ctx.signal.aborted) return;
    const message = describeHarnessError(error, variantRepoDir(ctx.runDir));
    failed = true;
    fail(error instanceof Error ? error : new Error(message));
    // Its step said what happened, and the archive has it.
    if (error instanceof StageUnfinishedError) return;
    ctx.progress(`${id === null ? 'run' : `variant ${id}`}: harness error: ${message}`);
    try {
      archive.recordEvent(id, 'harness_error', { message });
    } catch {
      // The archive cannot be written either (a full disk): the terminal has the message.
    }
  };
  const launch = (id: number): void => {
    const run = advanceGeneration(ctx, id)
      .catch((error: unknown) => harnessError(id, error))
      .finally(() => {
        running.delete(id);
        const cannotReach = failed ? null : unreachable();
        if (cannotReach !== null) {
          const variant = archive.getVariant(id);
          const reason = `model unreachable: ${cannotReach}`;
          if (variant !== undefined && !isFinalStep(variant.step))
            failVariant(ctx, variant, 'failed', reason, 'harness');
          failed = true;
          fail(new ModelUnreachableError(cannotReach));
        }
        if (!ctx.signal.aborted) ctx.progress(progressLine(ctx, id, spent()));
      });
    running.set(id, run);
  };
  // Choosing a parent and inserting the variant write to the archive too: a failure there halts the run alike.
  try {
    for (let id = 1; id <= config.generations && !stopping(); id++) {
      const existing = archive.getVariant(id);
      if (existing !== undefined && isFinalStep(existing.step)) continue;
      for (;;) {
        const horizon = id - selectionLag(config.parallel);
        const full = running.size >= config.parallel;
        const waiting = [...running].filter(([other]) => full || other <= horizon).map(([, p]) => p);
        if (waiting.length === 0) break;
        await Promise.race(waiting);
      }
      if (stopping()) break;
      // A pause holds new generations; one a kill interrupted was under way, and goes on like the others.
      if (existing === undefined) await whilePaused(ctx, controls, stopping);
      if (stopping()) break;
      if (existing === undefined) {
        const parent = await chooseParent(ctx, id);
        const parentCommit = archive.getVariant(parent.id)?.commitSha ?? null;
        if (parentCommit === null) throw new Error(`parent ${parent.id} has no commit`);
        startGeneration(archive, { id, parent: parent.id, reason: parent.reason, parentCommit });
        ctx.progress(`variant ${id}: parent ${parent.id} (${parent.reason})`);
      } else {
        ctx.progress(`variant ${id}: resumed at the step "${existing.step}"`);
      }
      launch(id);
    }
  } catch (error) {
    harnessError(null, error);
  }
  await Promise.all(running.values());
}
