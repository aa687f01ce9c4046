import { z } from 'zod';
import { type Db, type Decode, flagColumn, now } from './database.ts';
import type { EventWriter, MovedStep, StepEventArgs } from './event-kinds.ts';
import type { Redactor } from './redact.ts';
import {
  FAILURE_CAUSES,
  type FailureCause,
  isFinalStep,
  VARIANT_STATUSES,
  VARIANT_STEPS,
  type VariantStatus,
  type VariantStep,
} from './variant-states.ts';

export {
  FAILURE_CAUSES,
  type FailureCause,
  isFinalStep,
  VARIANT_STATUSES,
  VARIANT_STEPS,
  type VariantStatus,
  type VariantStep,
} from './variant-states.ts';

const variantColumns = z.object({
  id: z.number(),
  parent_id: z.number().nullable(),
  commit_sha: z.string().nullable(),
  step: z.enum(VARIANT_STEPS),
  status: z.enum(VARIANT_STATUSES),
  valid_parent: flagColumn,
  failure_reason: z.string().nullable(),
  diff_stat: z.string().nullable(),
  task_code_hash: z.string().nullable(),
  selection_reason: z.string().nullable(),
  selection_score: z.number().nullable(),
  parent_commit: z.string().nullable(),
  failure_cause: z.enum(FAILURE_CAUSES).nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});

function decodeVariant<S extends string>(r: Omit<z.output<typeof variantColumns>, 'step'> & { step: S }) {
  return {
    id: r.id,
    parentId: r.parent_id,
    commitSha: r.commit_sha,
    step: r.step,
    status: r.status,
    validParent: r.valid_parent,
    failureReason: r.failure_reason,
    /** `{ files, insertions, deletions }` as JSON, once the edit is committed. */
    diffStat: r.diff_stat,
    taskCodeHash: r.task_code_hash,
    selectionReason: r.selection_reason,
    /**
     * The score parent selection ranks this variant by; null until it is evaluated (docs/architecture.md,
     * 'Splits and scores').
     */
    selectionScore: r.selection_score,
    /** The commit the generation started from, stored when its parent is selected. */
    parentCommit: r.parent_commit,
    failureCause: r.failure_cause,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
  };
}

export const VariantRow = variantColumns.transform((r) => decodeVariant(r));
export type VariantRow = z.output<typeof VariantRow>;

/** Read leniently: a reader must keep working when the harness adds a step it does not know yet. */
export const StoredVariantRow = variantColumns
  .extend({ step: z.string() })
  .transform((r) => decodeVariant(r));
export type StoredVariantRow = z.output<typeof StoredVariantRow>;

export type VariantPatch = Partial<{
  step: VariantStep;
  status: VariantStatus;
  commitSha: string;
  validParent: boolean;
  failureReason: string | null;
  failureCause: FailureCause | null;
  diffStat: string;
  taskCodeHash: string;
  selectionScore: number | null;
}>;

export interface NewVariant {
  id: number;
  parentId: number | null;
  step: VariantStep;
  selectionReason?: string;
  parentCommit?: string | null;
  commitSha?: string;
  taskCodeHash?: string;
}

/** The columns of `variants` in this file; empty when it has no such table. */
export function variantColumnNames(db: Db): Set<string> {
  return new Set((db.prepare('PRAGMA table_info(variants)').all() as { name: string }[]).map((c) => c.name));
}

/**
 * The select that reads every variant column this version knows, from an archive of any version:
 * columns added by later migrations read as NULL in an archive written before them (never migrated by a
 * reader), and archives written before migration 007 call the step column `state`.
 */
function selectVariants(columns: ReadonlySet<string>): string {
  const added = ['selection_score', 'parent_commit', 'failure_cause'].filter((c) => !columns.has(c));
  const step = columns.has('step') ? '' : ', state AS step';
  return `SELECT *${step}${added.map((c) => `, NULL AS ${c}`).join('')} FROM variants`;
}

/** Reads variants, each decoded with `schema` (strict for the harness, lenient for readers). */
export function variantQueries<T>(db: Db, decode: Decode, schema: z.ZodType<T>) {
  const select = selectVariants(variantColumnNames(db));
  return {
    getVariant(id: number): T | undefined {
      const raw = db.prepare(`${select} WHERE id = ?`).get(id);
      return raw === undefined ? undefined : decode(schema, raw, `variant ${id}`);
    },
    listVariants(): T[] {
      return db
        .prepare(`${select} ORDER BY id`)
        .all()
        .map((raw) => decode(schema, raw, `variant ${rowId(raw)}`));
    },
    /** Every variant's id and step, unvalidated and cheap: for callers that keep finished rows themselves. */
    variantSteps(): { id: number; step: VariantStep }[] {
      return db.prepare('SELECT id, step FROM variants ORDER BY id').all() as {
        id: number;
        step: VariantStep;
      }[];
    },
  };
}

export const rowId = (raw: unknown): string => String((raw as { id?: unknown } | undefined)?.id ?? '?');

const COLUMNS: Record<keyof VariantPatch, string> = {
  step: 'step',
  status: 'status',
  commitSha: 'commit_sha',
  validParent: 'valid_parent',
  failureReason: 'failure_reason',
  failureCause: 'failure_cause',
  diffStat: 'diff_stat',
  taskCodeHash: 'task_code_hash',
  selectionScore: 'selection_score',
};

/** `recordEvent` writes the event of each move (see eventWriter). */
export function variantWrites(db: Db, redact: Redactor, recordEvent: EventWriter) {
  /** Applies `patch`; with `from`, only while the variant is in that step. True when a row changed. */
  function updateVariant(id: number, patch: VariantPatch, from?: VariantStep): boolean {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(patch)) {
      const column = COLUMNS[key as keyof VariantPatch];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = ?`);
      values.push(
        typeof value === 'boolean' ? (value ? 1 : 0) : typeof value === 'string' ? redact(value) : value,
      );
    }
    if (patch.step !== undefined && isFinalStep(patch.step)) {
      sets.push('finished_at = ?');
      values.push(now());
    }
    if (sets.length === 0) return false;
    const guard = from === undefined ? '' : ' AND step = ?';
    const result = db
      .prepare(`UPDATE variants SET ${sets.join(', ')} WHERE id = ?${guard}`)
      .run(...values, id, ...(from === undefined ? [] : [from]));
    return result.changes === 1;
  }

  const moveVariant = db.transaction(
    (id: number, from: VariantStep, to: MovedStep, patch: VariantPatch, event: object): boolean => {
      const changed = updateVariant(id, { ...patch, step: to }, from);
      if (changed) recordEvent(id, to, event);
      return changed;
    },
  );

  return {
    insertVariant(v: NewVariant): void {
      db.prepare(
        `INSERT INTO variants (id, parent_id, step, selection_reason, parent_commit, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ).run(v.id, v.parentId, v.step, v.selectionReason ?? null, v.parentCommit ?? null, now());
      const stored = {
        ...(v.commitSha === undefined ? {} : { commitSha: v.commitSha }),
        ...(v.taskCodeHash === undefined ? {} : { taskCodeHash: v.taskCodeHash }),
      };
      updateVariant(v.id, stored);
    },
    /** Removes a variant that nothing refers to yet (no evaluation, result or child). */
    deleteVariant(id: number): void {
      db.prepare('DELETE FROM variants WHERE id = ?').run(id);
    },
    updateVariant,
    /**
     * Moves a variant from the step `from` to `to` with `patch`, and records it as an event of kind `to` (with
     * `from` and `event`), in one transaction. Applies only while the variant is still in `from`, so two
     * processes can never both advance it: false when it was not.
     */
    transitionVariant<To extends MovedStep>(
      id: number,
      from: VariantStep,
      to: To,
      patch: VariantPatch = {},
      ...event: StepEventArgs<To>
    ): boolean {
      return moveVariant(id, from, to, patch, { ...event[0], from });
    },
  };
}
