import { acceptanceQueries, acceptanceWrites } from './acceptance.ts';
import { batchQueries, batchWrites } from './batches.ts';
import { confirmedScoreQueries, confirmedScoreWrites } from './confirmed-scores.ts';
import { type Db, openWritable, strictDecode } from './database.ts';
import { evaluationQueries, evaluationWrites } from './evaluations.ts';
import { eventQueries, eventWriter, eventWrites } from './events.ts';
import { modelCallQueries, modelCallWrites } from './model-calls.ts';
import { createRedactor } from './redact.ts';
import { runQueries, runWrites } from './runs.ts';
import { taskResultQueries, taskResultWrites } from './task-results.ts';
import { VariantRow, variantQueries, variantWrites } from './variants.ts';

export { type EvaluationInput, EvaluationRow } from './evaluations.ts';
export {
  type ArchiveEvent,
  EVENT_KINDS,
  type EventData,
  type EventInput,
  type EventKind,
  eventsOfKinds,
  type MovedStep,
  type StepEventInput,
  type UnreadEvent,
} from './event-kinds.ts';
export { EventRow } from './events.ts';
export { type CallTotals, type LlmCallInput, LlmCallRow, type SpendPoint } from './model-calls.ts';
export { type NewRun, RunRow } from './runs.ts';
export {
  TASK_OUTCOMES,
  type TaskOutcome,
  type TaskOutcomeRecord,
  type TaskResultFilter,
  type TaskResultInput,
  TaskResultRow,
} from './task-results.ts';
export {
  FAILURE_CAUSES,
  type FailureCause,
  isFinalStep,
  type NewVariant,
  StoredVariantRow,
  VARIANT_STATUSES,
  VARIANT_STEPS,
  type VariantPatch,
  VariantRow,
  type VariantStatus,
  type VariantStep,
} from './variants.ts';

export type Archive = ReturnType<typeof openArchive>;

/**
 * Opens (creating if needed) a run's archive and brings its schema up to date: every table's reads and
 * writes, each row decoded once to its typed camelCase shape. Every text an agent could have shaped
 * (outputs, errors, failure reasons, event data) is redacted on the way in: key-shaped strings and the given
 * secret values never reach the file.
 */
export function openArchive(file: string, options: { secrets?: readonly string[] } = {}) {
  const redact = createRedactor(options.secrets);
  const db: Db = openWritable(file);
  return {
    file,
    /** The SQLite handle, for the archive's own tests; code outside `archive/` uses the methods. */
    db,
    redact,
    /** Runs `fn` in one transaction: every write in it is kept, or none. */
    transaction<T>(fn: () => T): T {
      return db.transaction(fn)();
    },
    ...runQueries(db, strictDecode),
    ...runWrites(db),
    ...variantQueries(db, strictDecode, VariantRow),
    ...variantWrites(db, redact, eventWriter(db, redact)),
    ...evaluationQueries(db, strictDecode),
    ...evaluationWrites(db),
    ...taskResultQueries(db, strictDecode),
    ...taskResultWrites(db, redact),
    ...acceptanceQueries(db, strictDecode),
    ...acceptanceWrites(db),
    ...confirmedScoreQueries(db, strictDecode),
    ...confirmedScoreWrites(db),
    ...modelCallQueries(db, strictDecode),
    ...modelCallWrites(db, redact),
    ...batchQueries(db, strictDecode),
    ...batchWrites(db, redact),
    ...eventQueries(db, strictDecode),
    ...eventWrites(db, redact),
    close(): void {
      db.close();
    },
  };
}
