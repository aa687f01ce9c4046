import { mkdirSync } from 'node:fs';
import {
  type FailureCause,
  isFinalStep,
  type MovedStep,
  type StepEventInput,
  type VariantPatch,
  type VariantRow,
  type VariantStatus,
  type VariantStep,
} from '../../archive/archive.ts';
import { freeBytes, LOW_DISK_BYTES } from '../process/index.ts';
import { type GenerationSession, openSession } from './generation-session.ts';
import { evaluateFull, evaluateStaged, gate, prepareEdit, runEdit } from './generation-steps.ts';
import { logDir, type RunContext } from './run-context.ts';
import { failVariant } from './transitions.ts';

type NextStep = Exclude<MovedStep, 'done' | 'failed'>;

/** What a step decided: the next step with what it learned, or the end of the generation. */
export type StepOutcome =
  | { kind: 'next'; to: NextStep; patch?: VariantPatch; event?: StepEventInput<NextStep> }
  | { kind: 'done'; status: Extract<VariantStatus, 'evaluated' | 'staged_only'>; score: number | null }
  | {
      kind: 'failed';
      status: Extract<VariantStatus, 'rejected' | 'failed'>;
      reason: string;
      cause: FailureCause | null;
    }
  /** The run was interrupted (or halted) during the step: nothing is written, and a resume redoes the step. */
  | { kind: 'interrupted' };

/** One step: reads the variant as stored, does the step's work, and says where the generation goes next. */
export type Step = (ctx: RunContext, variant: VariantRow, session: GenerationSession) => Promise<StepOutcome>;

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
