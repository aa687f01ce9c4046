import type { Archive, FailureCause, VariantRow, VariantStatus } from '../../archive/index.ts';

/**
 * The writes that start and end a generation outside its step table, each one guarded transaction: a
 * generation starts at `selected`, variant 0 is seeded at `full`, and a failure always records its cause.
 */

/**
 * Starts generation `id` from its parent at the step `selected`, with the event that says why that parent.
 * Throws when the variant is already stored: a generation starts once.
 */
export function startGeneration(
  archive: Archive,
  start: { id: number; parent: number; reason: string; parentCommit: string },
): void {
  archive.transaction(() => {
    archive.insertVariant({
      id: start.id,
      parentId: start.parent,
      step: 'selected',
      selectionReason: start.reason,
      parentCommit: start.parentCommit,
    });
    archive.recordEvent(start.id, 'selected', { parent: start.parent, reason: start.reason });
  });
}

/**
 * Stores variant 0, the initial agent, at the step `full` (it has no edit and no gate), with its commit and
 * task-code hash. A variant 0 stored without a commit (by an earlier version killed while seeding it) is
 * replaced; one with a commit is never touched.
 */
export function seedVariantZero(
  archive: Archive,
  seed: { commit: string; codeHash: string; reason: string },
): void {
  archive.transaction(() => {
    const stored = archive.getVariant(0);
    if (stored?.commitSha != null) throw new Error('variant 0 is already stored with its commit');
    if (stored !== undefined) archive.deleteVariant(0);
    archive.insertVariant({
      id: 0,
      parentId: null,
      step: 'full',
      selectionReason: seed.reason,
      commitSha: seed.commit,
      taskCodeHash: seed.codeHash,
    });
  });
}

/**
 * Ends a generation as failed from the step it is in, with the reason and its cause. A failure of the
 * parent's MetaAgent by itself (cause `agent`) also marks the parent as no longer a valid parent. False
 * when the variant was no longer in that step.
 */
export function failVariant(
  ctx: { archive: Archive },
  variant: VariantRow,
  status: Extract<VariantStatus, 'rejected' | 'failed'>,
  reason: string,
  cause: FailureCause | null,
): boolean {
  return ctx.archive.transaction(() => {
    const failed = ctx.archive.transitionVariant(
      variant.id,
      variant.step,
      'failed',
      { status, failureReason: reason, failureCause: cause, validParent: false },
      { status, reason, cause },
    );
    if (failed && cause === 'agent' && variant.parentId !== null) {
      ctx.archive.updateVariant(variant.parentId, { validParent: false });
    }
    return failed;
  });
}
