import { mkdirSync } from 'node:fs';
import { isFinalStep, type VariantRow, type VariantStep } from '../../archive/index.ts';
import { freeBytes, LOW_DISK_BYTES } from '../process/index.ts';
import { openSession } from './generation-session.ts';
import {
  evaluateFull,
  evaluateStaged,
  gate,
  prepareEdit,
  runEdit,
  type Step,
  type StepOutcome,
} from './generation-steps.ts';
import { logDir, type RunContext } from './run-context.ts';
import { failVariant } from './transitions.ts';

/**
 * The generation as a table (docs/architecture.md, 'The generation as a table of steps'): every step that is
 * not final has the `Step` that leaves it.
 */
export const STEPS: Record<Exclude<VariantStep, 'done' | 'failed'>, Step> = {
  selected: prepareEdit,
  editing: runEdit,
  gating: gate,
  staged: evaluateStaged,
  full: evaluateFull,
};

/**
 * Advances a generation from the step it is in to its end, one guarded transition per step. Called for a
 * new generation and for one a killed run left half-way alike. Returns without writing once the run is
 * interrupted: the step under way is then redone by a resume.
 */
export async function advanceGeneration(ctx: RunContext, id: number): Promise<void> {
  mkdirSync(logDir(ctx, id), { recursive: true });
  const session = openSession(ctx, id);
  try {
    for (;;) {
      const variant = ctx.archive.getVariant(id);
      if (variant === undefined) throw new Error(`variant ${id} is not in the archive`);
      if (isFinalStep(variant.step)) return;
      const outcome = await STEPS[variant.step](ctx, variant, session);
      if (outcome.kind === 'interrupted' || ctx.signal.aborted) return;
      if (outcome.kind === 'failed' && outcome.cause !== 'budget') assertRoomOnDisk(ctx, id, outcome.reason);
      if (!record(ctx, variant, outcome)) {
        throw new Error(`variant ${id} left the step "${variant.step}" while this process was running it`);
      }
    }
  } finally {
    await session.close();
  }
}

/**
 * A generation's failure is recorded only while the run's disk has room: an agent, a build or a typecheck that
 * met a full disk fails as if by its own fault, and a failure is final. On a full disk this throws instead (a
 * harness error: the run halts, and a resume redoes the step once room is made).
 */
export function assertRoomOnDisk(ctx: Pick<RunContext, 'runDir'>, id: number, reason: string): void {
  const free = freeBytes(ctx.runDir);
  if (free >= LOW_DISK_BYTES) return;
  throw Object.assign(
    new Error(`variant ${id}'s failure ("${reason}") may be the full disk's, so it is not recorded`),
    { code: 'ENOSPC' },
  );
}

/** Writes one step's outcome as one guarded transaction; false when the variant was no longer in that step. */
function record(ctx: RunContext, variant: VariantRow, outcome: StepOutcome): boolean {
  const { archive } = ctx;
  const id = variant.id;
  switch (outcome.kind) {
    case 'next':
      return archive.transitionVariant(
        id,
        variant.step,
        outcome.to,
        outcome.patch ?? {},
        outcome.event ?? {},
      );
    case 'done': {
      const done = archive.transitionVariant(
        id,
        variant.step,
        'done',
        { status: outcome.status, validParent: true, selectionScore: outcome.score },
        { status: outcome.status, score: outcome.score },
      );
      if (done) ctx.progress(`variant ${id}: ${outcome.status}`);
      return done;
    }
    case 'failed': {
      const failed = failVariant(ctx, variant, outcome.status, outcome.reason, outcome.cause);
      if (failed) ctx.progress(`variant ${id}: ${outcome.status}: ${outcome.reason}`);
      return failed;
    }
    case 'interrupted':
      throw new Error(`variant ${id}: an interrupted step is never recorded`);
    default: {
      const never: never = outcome;
      throw new Error(`unknown step outcome ${JSON.stringify(never)}`);
    }
  }
}
