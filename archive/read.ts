import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { z } from 'zod';
import { acceptanceQueries } from './acceptance.ts';
import { type BatchRow, batchQueries } from './batches.ts';
import { confirmedScoreQueries, reportedBest } from './confirmed-scores.ts';
import { type Db, type Decode, openReadOnly } from './database.ts';
import { evaluationQueries } from './evaluations.ts';
import type { ArchiveEvent, EventKind, UnreadEvent } from './event-kinds.ts';
import { eventQueries } from './events.ts';
import { type CallSpend, modelCallQueries } from './model-calls.ts';
import { runLockHolder } from './run-folder.ts';
import { runQueries } from './runs.ts';
import {
  type TaskOutcomeRow,
  type TaskResultFilter,
  type TaskResultRow,
  taskResultQueries,
} from './task-results.ts';
import { StoredVariantRow, variantColumnNames, variantQueries } from './variants.ts';
import {
  type GenerationSpend,
  type LlmCallView,
  lineageOf,
  type RunView,
  runView,
  type SpendPoint,
  type VariantView,
  variantView,
  variantViews,
} from './views.ts';

export { type ArchiveEvent, type EventKind, eventsOfKinds, type UnreadEvent } from './event-kinds.ts';
export {
  bestVariant,
  foldScores,
  type GenerationSpend,
  type LlmCallView,
  lineageOf,
  type RunState,
  type RunView,
  runState,
  type Scores,
  type SpendPoint,
  type SplitScore,
  type VariantOutcome,
  type VariantView,
  variantOutcome,
} from './views.ts';

/**
 * A run archive that cannot be read because of what the file holds (or does not): not SQLite, damaged,
 * not an archive, or a row this version cannot read. The message names the file and says what is wrong.
 */
export class UnreadableArchiveError extends Error {
  override name = 'UnreadableArchiveError';
  constructor(
    readonly file: string,
    readonly why: string,
  ) {
    super(`${file} is not a readable run archive (${why})`);
  }
}

/** What the file holds that this version cannot read; becomes an UnreadableArchiveError naming the file. */
class Fault extends Error {}

/** SQLite's complaints about the file itself, as opposed to, say, a lock held too long. */
const FILE_FAULT = /^SQLITE_(NOTADB|CORRUPT|IOERR|CANTOPEN|ERROR|FORMAT)/;

/** What is wrong with the file, when `error` is the file's fault; null for anything else. */
function faultOf(error: unknown): string | null {
  if (error instanceof Fault) return error.message;
  if (error instanceof Database.SqliteError && FILE_FAULT.test(error.code)) return error.message;
  return null;
}

const asUnreadable = (file: string, error: unknown): unknown => {
  const why = faultOf(error);
  return why === null ? error : new UnreadableArchiveError(file, why);
};

/** The reader's decoding: `schema.parse(raw)`, or a Fault naming the row (`what`), the field and its value. */
const readerDecode: Decode = <T>(schema: z.ZodType<T>, raw: unknown, what: string): T => {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path[0];
  const value =
    field !== undefined && typeof raw === 'object' && raw !== null
      ? (raw as Record<PropertyKey, unknown>)[field]
      : undefined;
  throw new Fault(
    `${what} has ${String(field ?? 'a value')} ${JSON.stringify(value) ?? 'missing'}, which this version cannot read: ` +
      (issue?.message ?? 'invalid').replace(/^Invalid option: /, ''),
  );
};

export type ArchiveReader = ReturnType<typeof openArchiveReader>;

/**
 * Opens a run's archive for reading only: never creates the file, never migrates, never writes, so it
 * is safe beside a run that is still writing (WAL lets a reader see the last committed state).
 * Throws an UnreadableArchiveError when the file does not exist or is not an archive, and every method
 * does when it meets a part of the file it cannot read.
 */
export function openArchiveReader(file: string) {
  try {
    return guarded(file, openReader(file));
  } catch (error) {
    throw asUnreadable(file, error);
  }
}

/** `reader` with every method turning a fault of the file into an UnreadableArchiveError. */
function guarded<T extends object>(file: string, reader: T): T {
  const wrapped = { ...reader };
  for (const [key, value] of Object.entries(reader)) {
    if (typeof value !== 'function') continue;
    Object.assign(wrapped, {
      [key]: (...args: unknown[]) => {
        try {
          return value.apply(reader, args);
        } catch (error) {
          throw asUnreadable(file, error);
        }
      },
    });
  }
  return wrapped;
}

/** The file opened read-only, once it is known to hold a variants table. */
function openChecked(file: string): Db {
  if (!existsSync(file)) throw new Fault('there is no such file');
  const db = openReadOnly(file);
  try {
    if (!variantColumnNames(db).has('id')) throw new Fault('it has no variants table');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

// Over 80 lines: the reader's methods, each a line or two over the same table queries.
function openReader(file: string) {
  const db = openChecked(file);
  const runs = runQueries(db, readerDecode);
  const variants = variantQueries(db, readerDecode, StoredVariantRow);
  const evaluations = evaluationQueries(db, readerDecode);
  const results = taskResultQueries(db, readerDecode);
  const calls = modelCallQueries(db, readerDecode);
  const events = eventQueries(db, readerDecode);
  const noise = confirmedScoreQueries(db, readerDecode);
  const batches = batchQueries(db, readerDecode);

  const accepted = acceptanceQueries(db, readerDecode);

  const reader = {
    file,
    run(): RunView | null {
      const row = runs.getRun();
      if (row === undefined) return null;
      const held = runLockHolder(path.dirname(file)) !== null;
      const view = runView(row, reader.variants(), calls.llmTotals(), held);
      // A run with no confirmed score keeps the plain best, `{id, score}`.
      const confirmed = noise.listConfirmedScores();
      return confirmed.length === 0 ? view : { ...view, best: reportedBest(view.best, confirmed) };
    },
    variants(): VariantView[] {
      const all = evaluations.listEvaluations();
      return variantViews(
        variants.listVariants(),
        all,
        calls.llmTotalsByVariant(),
        accepted.listAcceptance(),
      );
    },
    variant(id: number): VariantView | null {
      const row = variants.getVariant(id);
      if (row === undefined) return null;
      return variantView(
        row,
        evaluations.listEvaluations(id),
        calls.llmTotals(id),
        accepted.getAcceptance(id),
      );
    },
    lineage(id: number): VariantView[] {
      return lineageOf(reader.variants(), id);
    },
    taskResults(variantId: number, filter: TaskResultFilter = {}): TaskResultRow[] {
      return results.listTaskResults(variantId, filter);
    },
    /** Every variant's outcome on every task and attempt, without the texts (see archive/regressions.ts). */
    taskOutcomes(): TaskOutcomeRow[] {
      return results.listTaskOutcomes();
    },
    /** Per variant with any, how many of its tasks' answers tampered with the grader (each scored 0). */
    tamperedTasks(): Map<number, number> {
      return results.tamperedTasks();
    },
    /** How each child was decided against its parent (`--accept sequential`), by variant id. */
    acceptance() {
      return accepted.listAcceptance();
    },
    /** The confirmed scores of `--confirm-top` (none when the run had none, or the file predates them). */
    confirmedScores() {
      return noise.listConfirmedScores();
    },
    /** Variant 0's noise floor (`--noise-floor`), or null. */
    noiseFloor() {
      return noise.getNoiseFloor();
    },
    llmCalls(variantId?: number): LlmCallView[] {
      return calls.listLlmCalls(variantId);
    },
    /** The models the ledger recorded, by role, with their number of calls. */
    modelsUsed() {
      return calls.modelsUsed();
    },
    /** Events after `afterId` (all by default), oldest first; those this version cannot read are left out. */
    events(afterId = 0): ArchiveEvent[] {
      return events.listEvents(afterId);
    },
    /** The events of `kinds`, oldest first, each with its data parsed by its kind's schema. */
    eventsOf<K extends EventKind>(kinds: readonly K[]): ArchiveEvent<K>[] {
      return events.eventsOf(kinds);
    },
    /** The rows of the event log this version cannot read (a kind it does not know, data that does not match). */
    unreadEvents(): UnreadEvent[] {
      return events.unreadEvents();
    },
    /** The batches of `--batch`, oldest first; none when the run used none. */
    batches(): BatchRow[] {
      return batches.listBatches();
    },
    /** The model calls answered through a batch endpoint: count, spend and tokens. */
    batchSpend(): CallSpend {
      return calls.batchSpend();
    },
    spendOverTime(): SpendPoint[] {
      return calls.spendOverTime();
    },
    /** Spend per generation, with the run's running total (see GenerationSpend). */
    spendByGeneration(): GenerationSpend[] {
      return calls.spendByGeneration();
    },
    /** When the run last wrote an event or a model call (ISO time); null when it has written neither. */
    lastActivityAt(): string | null {
      const times = [events.lastEventAt(), calls.lastCallAt()].filter((t): t is string => t !== null);
      return times.sort().at(-1) ?? null;
    },
    /**
     * A value that changes whenever the run writes something a reader shows: new events, variants, a
     * variant's step, evaluations or model calls, the run's status. Cheap enough to poll.
     */
    changeMark(): string {
      const row = db
        .prepare(
          // st: a weighted sum of the variants' steps, which any one step change alters.
          `SELECT (SELECT COALESCE(MAX(id), 0) FROM events) AS e, (SELECT COUNT(*) FROM variants) AS v,
             (SELECT TOTAL(instr('selected editing gating staged full done failed', step) * (id + 1))
                FROM variants) AS st,
             (SELECT COUNT(*) FROM evaluations) AS ev, (SELECT COALESCE(MAX(id), 0) FROM llm_calls) AS c,
             (SELECT status FROM runs LIMIT 1) AS s`,
        )
        .get() as Record<string, unknown>;
      return `${row.e}.${row.v}.${row.st}.${row.ev}.${row.c}.${row.s}`;
    },
    /** What SQLite finds wrong when it reads every page of the file (slow on a large archive); null when sound. */
    damage(): string | null {
      const first = (db.pragma('quick_check(1)') as { quick_check: string }[])[0]?.quick_check;
      return first === 'ok' ? null : (first ?? 'SQLite could not check it');
    },
    close(): void {
      db.close();
    },
  };
  return reader;
}
