import { z } from 'zod';
import { type Db, type Decode, now } from './database.ts';

/**
 * What a run learned about its scores' noise: the confirmed score of each `--confirm-top` variant (the mean
 * of fresh attempts on the validation split, beside the raw score it was ranked by; the attempts themselves
 * are task results under their attempt numbers) and variant 0's noise floor (`--noise-floor`: its validation
 * score on each of k attempts, and their spread).
 */
export const ConfirmedScoreRow = z
  .object({
    variant_id: z.number(),
    raw_score: z.number(),
    confirmed_score: z.number(),
    first_attempt: z.number(),
    attempts: z.number(),
    scores: z.string(),
    created_at: z.string(),
  })
  .transform((r) => ({
    variantId: r.variant_id,
    rawScore: r.raw_score,
    confirmedScore: r.confirmed_score,
    firstAttempt: r.first_attempt,
    attempts: r.attempts,
    /** The validation score of each fresh attempt, in attempt order. */
    scores: z.array(z.number()).parse(JSON.parse(r.scores)),
    createdAt: r.created_at,
  }));
export type ConfirmedScore = z.output<typeof ConfirmedScoreRow>;

export const NoiseFloorRow = z
  .object({ spread: z.number(), scores: z.string(), created_at: z.string() })
  .transform((r) => ({
    /** The sample standard deviation of `scores`. */
    spread: r.spread,
    /** Variant 0's validation score on each attempt, attempt 0 first. */
    scores: z.array(z.number()).parse(JSON.parse(r.scores)),
    createdAt: r.created_at,
  }));
export type NoiseFloor = z.output<typeof NoiseFloorRow>;

/** Whether the file has the tables (an archive a reader opens may predate them: then it has none). */
const hasTable = (db: Db, name: string): boolean =>
  db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;

export function confirmedScoreQueries(db: Db, decode: Decode) {
  return {
    listConfirmedScores(): ConfirmedScore[] {
      if (!hasTable(db, 'confirmed_scores')) return [];
      return db
        .prepare('SELECT * FROM confirmed_scores ORDER BY variant_id')
        .all()
        .map((row) => decode(ConfirmedScoreRow, row, 'a confirmed score'));
    },
    getNoiseFloor(): NoiseFloor | null {
      if (!hasTable(db, 'noise_floor')) return null;
      const row = db.prepare('SELECT * FROM noise_floor WHERE id = 0').get();
      return row === undefined ? null : decode(NoiseFloorRow, row, 'the noise floor');
    },
  };
}

export function confirmedScoreWrites(db: Db) {
  return {
    putConfirmedScore(c: Omit<ConfirmedScore, 'createdAt'>): void {
      db.prepare(
        `INSERT OR REPLACE INTO confirmed_scores
           (variant_id, raw_score, confirmed_score, first_attempt, attempts, scores, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        c.variantId,
        c.rawScore,
        c.confirmedScore,
        c.firstAttempt,
        c.attempts,
        JSON.stringify(c.scores),
        now(),
      );
    },
    putNoiseFloor(scores: readonly number[]): void {
      db.prepare(
        'INSERT OR REPLACE INTO noise_floor (id, spread, scores, created_at) VALUES (0, ?, ?, ?)',
      ).run(spreadOf(scores), JSON.stringify(scores), now());
    },
  };
}

/** The sample standard deviation (0 for fewer than two scores). */
export function spreadOf(scores: readonly number[]): number {
  if (scores.length < 2) return 0;
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  return Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / (scores.length - 1));
}

/**
 * The run's reported best: without confirmed scores, the highest raw score; with them, the highest confirmed
 * score among the confirmed variants (the lowest id among equals).
 */
export function reportedBest(
  raw: { id: number; score: number } | null,
  confirmed: readonly ConfirmedScore[],
): { id: number; score: number; rawScore: number; confirmed: boolean } | null {
  let best: ConfirmedScore | null = null;
  for (const c of confirmed) if (best === null || c.confirmedScore > best.confirmedScore) best = c;
  if (best !== null)
    return { id: best.variantId, score: best.confirmedScore, rawScore: best.rawScore, confirmed: true };
  return raw === null ? null : { ...raw, rawScore: raw.score, confirmed: false };
}

/**
 * What a run knows of one variant's score under noise: its confirmed score (`--confirm-top`) and whether it is
 * the run's reported best; the run's noise floor (`--noise-floor`) and whether the variant's gain over variant
 * 0 lies within it (a gain above 0 and below the spread). Pure.
 */
export function scoreStanding(
  variant: { id: number; score: number | null },
  initialScore: number | null,
  confirmed: readonly ConfirmedScore[],
  floor: NoiseFloor | null,
  bestId: number | null,
) {
  const mine = confirmed.find((c) => c.variantId === variant.id) ?? null;
  const gain =
    variant.id !== 0 && variant.score !== null && initialScore !== null ? variant.score - initialScore : null;
  return {
    confirmed:
      mine === null ? null : { score: mine.confirmedScore, raw: mine.rawScore, attempts: mine.scores },
    reportedBest: bestId === variant.id,
    noiseFloor: floor === null ? null : { spread: floor.spread, scores: floor.scores },
    gainOverInitial: gain,
    withinNoise: floor === null || gain === null ? null : gain > 0 && gain < floor.spread,
  };
}
export type ScoreStanding = ReturnType<typeof scoreStanding>;
