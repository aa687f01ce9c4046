import { z } from 'zod';
import { type Db, type Decode, now } from './database.ts';

/**
 * How each child was decided against its parent under `--accept sequential` (docs/acceptance.md): `better`
 * (the child is better, at error rate alpha), `worse` (its evaluation stopped early: its score is an estimate
 * from the tasks used) or `undecided` (every task used without a decision). `evidence` is the e-value against
 * "the child is no better" (better at 1/alpha); `futility` the e-value against "the child is at least as good"
 * (worse at 1/futility-alpha). `tasks` of `of`: task results the decision used, of the full evaluation's (train
 * and val, every attempt); `paired` of them had the parent's result on the same task to be paired with.
 */
export const ACCEPTANCE_DECISIONS = ['better', 'worse', 'undecided'] as const;

export const AcceptanceRow = z
  .object({
    variant_id: z.number(),
    parent_id: z.number(),
    decision: z.enum(ACCEPTANCE_DECISIONS),
    evidence: z.number(),
    futility: z.number(),
    tasks: z.number(),
    of: z.number(),
    paired: z.number(),
    created_at: z.string(),
  })
  .transform((r) => ({
    variantId: r.variant_id,
    parentId: r.parent_id,
    decision: r.decision,
    evidence: r.evidence,
    futility: r.futility,
    tasks: r.tasks,
    of: r.of,
    paired: r.paired,
    createdAt: r.created_at,
  }));
export type Acceptance = z.output<typeof AcceptanceRow>;
export type AcceptanceInput = Omit<Acceptance, 'createdAt'>;

/** What is shown of a decision beside a variant: `{decision, evidence, tasks, of}` and the rest. */
export type AcceptanceView = Omit<Acceptance, 'variantId' | 'createdAt'>;

/** Whether the file has the table (an archive a reader opens may predate it: then it has none). */
const hasTable = (db: Db): boolean =>
  db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'acceptance'`).get() !== undefined;

export function acceptanceQueries(db: Db, decode: Decode) {
  return {
    /** Every child's decision, by variant id (none when the run accepted in full, or the file predates them). */
    listAcceptance(): Map<number, Acceptance> {
      if (!hasTable(db)) return new Map();
      const rows = db
        .prepare('SELECT * FROM acceptance ORDER BY variant_id')
        .all()
        .map((row) => decode(AcceptanceRow, row, 'an acceptance decision'));
      return new Map(rows.map((r) => [r.variantId, r]));
    },
    getAcceptance(variantId: number): Acceptance | null {
      if (!hasTable(db)) return null;
      const row = db.prepare('SELECT * FROM acceptance WHERE variant_id = ?').get(variantId);
      return row === undefined ? null : decode(AcceptanceRow, row, 'an acceptance decision');
    },
  };
}

export function acceptanceWrites(db: Db) {
  return {
    /** Drops a child's decision (its full evaluation was cut short by the budget: not scored, not decided). */
    discardAcceptance(variantId: number): void {
      db.prepare('DELETE FROM acceptance WHERE variant_id = ?').run(variantId);
    },
    putAcceptance(a: AcceptanceInput): void {
      db.prepare(
        `INSERT OR REPLACE INTO acceptance
           (variant_id, parent_id, decision, evidence, futility, tasks, of, paired, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(a.variantId, a.parentId, a.decision, a.evidence, a.futility, a.tasks, a.of, a.paired, now());
    },
  };
}

/** The view of a stored decision shown beside its variant; null for a variant decided in full. */
export function acceptanceView(a: Acceptance | null | undefined): AcceptanceView | null {
  if (a === null || a === undefined) return null;
  const { variantId: _v, createdAt: _c, ...view } = a;
  return view;
}
