import { z } from 'zod';
import { type Db, type Decode, now } from './database.ts';

/** One split's score of a variant in one domain at one stage, as stored in `evaluations`. */
export const EvaluationRow = z
  .object({
    variant_id: z.number(),
    domain: z.string(),
    split: z.enum(['train', 'val', 'test']),
    stage: z.enum(['staged', 'full']),
    score: z.number(),
    n_tasks: z.number(),
    n_total: z.number(),
    correct: z.number(),
    wrong: z.number(),
    parse_failures: z.number(),
    errors: z.number(),
    created_at: z.string(),
  })
  .transform((r) => ({
    variantId: r.variant_id,
    domain: r.domain,
    split: r.split,
    stage: r.stage,
    score: r.score,
    /** Tasks evaluated; `nTotal` the split's tasks (a staged sample evaluates fewer). */
    nTasks: r.n_tasks,
    nTotal: r.n_total,
    correct: r.correct,
    wrong: r.wrong,
    parseFailures: r.parse_failures,
    errors: r.errors,
    createdAt: r.created_at,
  }));
export type EvaluationRow = z.output<typeof EvaluationRow>;
export type EvaluationInput = Omit<EvaluationRow, 'createdAt'>;

const what = (raw: unknown): string =>
  `an evaluation of variant ${(raw as { variant_id?: unknown } | undefined)?.variant_id}`;

export function evaluationQueries(db: Db, decode: Decode) {
  return {
    /** Every evaluation, or one variant's, ordered by variant, domain, split and stage. */
    listEvaluations(variantId?: number): EvaluationRow[] {
      const rows =
        variantId === undefined
          ? db.prepare('SELECT * FROM evaluations ORDER BY variant_id, domain, split, stage').all()
          : db
              .prepare('SELECT * FROM evaluations WHERE variant_id = ? ORDER BY domain, split, stage')
              .all(variantId);
      return rows.map((raw) => decode(EvaluationRow, raw, what(raw)));
    },
  };
}

export function evaluationWrites(db: Db) {
  return {
    putEvaluation(e: EvaluationInput): void {
      db.prepare(
        `INSERT OR REPLACE INTO evaluations
           (variant_id, domain, split, stage, score, n_tasks, n_total, correct, wrong, parse_failures, errors, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        e.variantId,
        e.domain,
        e.split,
        e.stage,
        e.score,
        e.nTasks,
        e.nTotal,
        e.correct,
        e.wrong,
        e.parseFailures,
        e.errors,
        now(),
      );
    },
    /** Drops a stage's evaluation rows of a variant: a stage cut short must not read as a score. */
    discardEvaluations(variantId: number, stage: EvaluationRow['stage']): void {
      db.prepare('DELETE FROM evaluations WHERE variant_id = ? AND stage = ?').run(variantId, stage);
    },
  };
}
