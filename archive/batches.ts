import { z } from 'zod';
import { type Db, type Decode, now } from './database.ts';
import type { Redactor } from './redact.ts';

/**
 * The batches of `--batch` and the requests asked in them (docs/batch.md). A request is written when its task
 * asks it (`waiting`), given its batch and custom id before the batch is submitted (`submitted`), and ends
 * `answered` (its answer kept) or `failed` (the batch did not answer it, nor the ordinary call after).
 */
export const BATCH_STATES = ['submitting', 'pending', 'ended', 'abandoned'] as const;
export const BATCH_REQUEST_STATUSES = ['waiting', 'submitted', 'answered', 'failed'] as const;

export const BatchRow = z
  .object({
    id: z.number(),
    variant_id: z.number(),
    model: z.string(),
    provider_batch_id: z.string().nullable(),
    state: z.enum(BATCH_STATES),
    provider_state: z.string().nullable(),
    created_at: z.string(),
    submitted_at: z.string().nullable(),
    ended_at: z.string().nullable(),
    requests: z.number(),
    done: z.number(),
    failed: z.number(),
  })
  .transform((r) => ({
    id: r.id,
    variantId: r.variant_id,
    model: r.model,
    providerBatchId: r.provider_batch_id,
    state: r.state,
    providerState: r.provider_state,
    createdAt: r.created_at,
    submittedAt: r.submitted_at,
    endedAt: r.ended_at,
    requests: r.requests,
    done: r.done,
    failed: r.failed,
  }));
export type BatchRow = z.output<typeof BatchRow>;

export const BatchRequestRow = z
  .object({
    id: z.number(),
    variant_id: z.number(),
    domain: z.string(),
    task_id: z.string(),
    attempt: z.number(),
    call_index: z.number(),
    request_hash: z.string(),
    model: z.string(),
    request: z.string(),
    batch_id: z.number().nullable(),
    custom_id: z.string().nullable(),
    status: z.enum(BATCH_REQUEST_STATUSES),
    answer: z.string().nullable(),
    error: z.string().nullable(),
  })
  .transform((r) => ({
    id: r.id,
    variantId: r.variant_id,
    domain: r.domain,
    taskId: r.task_id,
    attempt: r.attempt,
    callIndex: r.call_index,
    requestHash: r.request_hash,
    model: r.model,
    request: r.request,
    batchId: r.batch_id,
    customId: r.custom_id,
    status: r.status,
    answer: r.answer,
    error: r.error,
  }));
export type BatchRequestRow = z.output<typeof BatchRequestRow>;

/** One task attempt's calls (the key of its record across rounds). */
export interface BatchTaskKey {
  variantId: number;
  domain: string;
  taskId: string;
  attempt: number;
}

export interface BatchRequestInput extends BatchTaskKey {
  callIndex: number;
  requestHash: string;
  model: string;
  /** The request as JSON, exactly as it will be submitted. */
  request: string;
}

/** What the page and the progress line show of a run's batches: spend and savings come from the ledger. */
export interface BatchTotals {
  batches: number;
  pending: number;
  requests: number;
}

export function batchQueries(db: Db, decode: Decode) {
  const requests = (sql: string, ...args: unknown[]): BatchRequestRow[] =>
    db
      .prepare(sql)
      .all(...args)
      .map((raw) => decode(BatchRequestRow, raw, 'batch_requests row'));
  const batches = (sql: string, ...args: unknown[]): BatchRow[] =>
    db
      .prepare(sql)
      .all(...args)
      .map((raw) => decode(BatchRow, raw, 'batches row'));
  return {
    /** The record of one task attempt's calls, by call index. */
    batchRequestsOf(key: BatchTaskKey): BatchRequestRow[] {
      return requests(
        `SELECT * FROM batch_requests WHERE variant_id = ? AND domain = ? AND task_id = ? AND attempt = ?
         ORDER BY call_index`,
        key.variantId,
        key.domain,
        key.taskId,
        key.attempt,
      );
    },
    /** The variant's requests asked by its tasks and not yet in a batch. */
    waitingBatchRequests(variantId: number): BatchRequestRow[] {
      return requests(
        `SELECT * FROM batch_requests WHERE variant_id = ? AND status = 'waiting' ORDER BY id`,
        variantId,
      );
    },
    requestsOfBatch(batchId: number): BatchRequestRow[] {
      return requests('SELECT * FROM batch_requests WHERE batch_id = ? ORDER BY id', batchId);
    },
    /** The variant's batches not yet collected (`submitting`: written, maybe never submitted). */
    openBatches(variantId: number): BatchRow[] {
      return batches(
        `SELECT * FROM batches WHERE variant_id = ? AND state IN ('submitting', 'pending') ORDER BY id`,
        variantId,
      );
    },
    /** Every batch of the run, oldest first (none in an archive written before batches existed). */
    listBatches(): BatchRow[] {
      const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'batches'`).get();
      return table === undefined ? [] : batches('SELECT * FROM batches ORDER BY id');
    },
  };
}

// Over 80 lines: the batch tables' writes, one method each over the same handle.
export function batchWrites(db: Db, redact: Redactor) {
  const insertRequest = db.prepare(
    `INSERT INTO batch_requests (variant_id, domain, task_id, attempt, call_index, request_hash, model, request,
       status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'waiting', ?)`,
  );
  const assign = db.prepare(
    `UPDATE batch_requests SET batch_id = ?, custom_id = ?, status = 'submitted' WHERE id = ? AND status = 'waiting'`,
  );
  return {
    addBatchRequest(input: BatchRequestInput): void {
      insertRequest.run(
        input.variantId,
        input.domain,
        input.taskId,
        input.attempt,
        input.callIndex,
        input.requestHash,
        input.model,
        redact(input.request),
        now(),
      );
    },
    /**
     * Writes a batch (state `submitting`) and gives each request its custom id, in one transaction, before the
     * batch is submitted. Returns the batch's id.
     */
    createBatch(
      variantId: number,
      model: string,
      members: readonly { id: number; customId: string }[],
    ): number {
      return db.transaction(() => {
        const id = Number(
          db
            .prepare(
              `INSERT INTO batches (variant_id, model, state, created_at, requests) VALUES (?, ?, 'submitting', ?, ?)`,
            )
            .run(variantId, model, now(), members.length).lastInsertRowid,
        );
        for (const m of members) assign.run(id, m.customId, m.id);
        return id;
      })();
    },
    markBatchSubmitted(id: number, providerBatchId: string): void {
      db.prepare(
        `UPDATE batches SET provider_batch_id = ?, state = 'pending', submitted_at = ? WHERE id = ?`,
      ).run(providerBatchId, now(), id);
    },
    /** A batch written but not submitted (the run stopped in between, or the provider refused it): its requests wait again. */
    abandonBatch(id: number, reason: string): void {
      db.transaction(() => {
        db.prepare(
          `UPDATE batches SET state = 'abandoned', provider_state = ?, ended_at = ? WHERE id = ?`,
        ).run(redact(reason), now(), id);
        db.prepare(
          `UPDATE batch_requests SET batch_id = NULL, custom_id = NULL, status = 'waiting' WHERE batch_id = ?`,
        ).run(id);
      })();
    },
    updateBatchProgress(id: number, p: { providerState: string; done: number; failed: number }): void {
      db.prepare('UPDATE batches SET provider_state = ?, done = ?, failed = ? WHERE id = ?').run(
        p.providerState,
        p.done,
        p.failed,
        id,
      );
    },
    endBatch(id: number, p: { providerState: string; done: number; failed: number }): void {
      db.prepare(
        `UPDATE batches SET state = 'ended', provider_state = ?, done = ?, failed = ?, ended_at = ? WHERE id = ?`,
      ).run(p.providerState, p.done, p.failed, now(), id);
    },
    /** The answer a request got (its response as JSON), kept for the task's later rounds. */
    answerBatchRequest(id: number, answer: string): void {
      db.prepare(`UPDATE batch_requests SET status = 'answered', answer = ?, error = NULL WHERE id = ?`).run(
        redact(answer),
        id,
      );
    },
    failBatchRequest(id: number, error: string): void {
      db.prepare(`UPDATE batch_requests SET status = 'failed', error = ? WHERE id = ?`).run(
        redact(error),
        id,
      );
    },
  };
}
