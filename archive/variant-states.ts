/** The steps, statuses and failure causes a variant can have: the words the archive stores and the events carry. */

/**
 * A variant's `step` is the generation step it is in: where a resumed run continues (docs/architecture.md,
 * 'The generation as a table of steps').
 * Its `status` is the verdict once the generation has ended: what readers rank and filter by.
 */
export const VARIANT_STEPS = ['selected', 'editing', 'gating', 'staged', 'full', 'done', 'failed'] as const;
export type VariantStep = (typeof VARIANT_STEPS)[number];
/** The generation has ended: nothing moves the variant on from these steps. */
export const isFinalStep = (step: string): step is 'done' | 'failed' => step === 'done' || step === 'failed';
/** `pending` until the generation ends. */
export const VARIANT_STATUSES = ['pending', 'evaluated', 'staged_only', 'rejected', 'failed'] as const;
export type VariantStatus = (typeof VARIANT_STATUSES)[number];
/**
 * Why a generation failed, recorded when it fails: `agent` (the parent's MetaAgent failed by itself, which
 * disqualifies the parent), `budget` (the gateway refused this variant's calls for the run's budget),
 * `timeout` (a limit the harness set), `infrastructure` (every task of its evaluation failed before
 * answering: the sandbox, a limit or the workers stopped them, so it has no score), `harness` (a model that
 * could not be reached; archives of earlier versions also hold git and disk failures here, which a run now
 * leaves at their step to be redone).
 */
export const FAILURE_CAUSES = ['agent', 'budget', 'timeout', 'harness', 'infrastructure'] as const;
export type FailureCause = (typeof FAILURE_CAUSES)[number];
