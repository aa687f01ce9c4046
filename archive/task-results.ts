import { z } from 'zod';
import { TAMPER_MARK } from '../system/grade-marks.ts';
import { type Db, type Decode, flagColumn, now } from './database.ts';
import type { Redactor } from './redact.ts';

export const TASK_OUTCOMES = ['correct', 'wrong', 'parse_failure', 'error'] as const;
export type TaskOutcome = (typeof TASK_OUTCOMES)[number];

/** What a TaskAgent's answer to one task came to: stored per variant and cached across variants. */
export interface TaskOutcomeRecord {
  outcome: TaskOutcome;
  prediction: unknown;
  rawOutput: string;
  score: number;
  error: string | null;
  /** What the grader said beside the score (e.g. "3/4 tests passed"). */
  detail?: string | null;
  /** The test output the grader saw (graders that run tests). */
  log?: string | null;
  latencyMs: number | null;
  costUsd: number;
}

export interface TaskResultInput extends TaskOutcomeRecord {
  /** Tokens of the model calls for the task (see `costUsd`); 0 when reused; unknown (null) when not given. */
  inputTokens?: number | null | undefined;
  outputTokens?: number | null | undefined;
  variantId: number;
  domain: string;
  split: string;
  taskId: string;
  /** Which attempt at the task this is (0 first; default 0). */
  attempt?: number;
  reused: boolean;
  codeHash: string;
  taskModel: string;
}

/** One task's result for one variant, as stored in `task_results` (the prediction as stored JSON text). */
export const TaskResultRow = z
  .object({
    variant_id: z.number(),
    domain: z.string(),
    split: z.string(),
    task_id: z.string(),
    attempt: z.number().optional(),
    outcome: z.enum(TASK_OUTCOMES),
    prediction: z.string().nullable(),
    raw_output: z.string().nullable(),
    score: z.number(),
    error: z.string().nullable(),
    detail: z.string().nullable().optional(),
    log: z.string().nullable().optional(),
    latency_ms: z.number().nullable(),
    cost_usd: z.number(),
    input_tokens: z.number().nullable().optional(),
    output_tokens: z.number().nullable().optional(),
    reused: flagColumn,
    code_hash: z.string(),
    task_model: z.string(),
    created_at: z.string(),
  })
  .transform((r) => ({
    variantId: r.variant_id,
    domain: r.domain,
    split: r.split,
    taskId: r.task_id,
    attempt: r.attempt ?? 0,
    outcome: r.outcome,
    prediction: r.prediction,
    rawOutput: r.raw_output,
    score: r.score,
    error: r.error,
    detail: r.detail ?? null,
    log: r.log ?? null,
    latencyMs: r.latency_ms,
    costUsd: r.cost_usd,
    /** Null for a result stored before tokens were counted. */
    inputTokens: r.input_tokens ?? null,
    outputTokens: r.output_tokens ?? null,
    reused: r.reused,
    codeHash: r.code_hash,
    taskModel: r.task_model,
    createdAt: r.created_at,
  }));
export type TaskResultRow = z.output<typeof TaskResultRow>;

/** What a task came to for a variant, without its texts: enough to compare variants task by task. */
const TaskOutcomeRow = z
  .object({
    variant_id: z.number(),
    domain: z.string(),
    split: z.string(),
    task_id: z.string(),
    attempt: z.number().nullable().optional(),
    outcome: z.enum(TASK_OUTCOMES),
  })
  .transform((r) => ({
    variantId: r.variant_id,
    domain: r.domain,
    split: r.split,
    taskId: r.task_id,
    attempt: r.attempt ?? 0,
    outcome: r.outcome,
  }));
export type TaskOutcomeRow = z.output<typeof TaskOutcomeRow>;

export interface TaskResultFilter {
  domain?: string;
  split?: string;
  /** Only the results that are not correct. */
  failedOnly?: boolean;
  /** One attempt's results (default 0, the first: one result per task), or every attempt's. */
  attempt?: number | 'all';
}

export function taskResultQueries(db: Db, decode: Decode) {
  return {
    listTaskResults(variantId: number, filter: TaskResultFilter = {}): TaskResultRow[] {
      return db
        .prepare(
          `SELECT * FROM task_results WHERE variant_id = ? AND (? IS NULL OR domain = ?) AND (? IS NULL OR split = ?)
             AND (? = 0 OR outcome != 'correct') AND (? IS NULL OR attempt = ?)
           ORDER BY domain, split, task_id, attempt`,
        )
        .all(
          variantId,
          filter.domain ?? null,
          filter.domain ?? null,
          filter.split ?? null,
          filter.split ?? null,
          filter.failedOnly ? 1 : 0,
          attemptOf(filter),
          attemptOf(filter),
        )
        .map((row) => decode(TaskResultRow, row, `a task result of variant ${variantId}`));
    },
    /** Every variant's outcome on every task and attempt (no texts), by variant, task and attempt. */
    listTaskOutcomes(): TaskOutcomeRow[] {
      return db
        .prepare(
          `SELECT variant_id, domain, split, task_id, attempt, outcome FROM task_results
           ORDER BY variant_id, domain, split, task_id, attempt`,
        )
        .all()
        .map((row) => decode(TaskOutcomeRow, row, 'a task result'));
    },
    /** Per variant, the tasks whose answer the grader caught tampering with it (system/grade-marks.ts). */
    tamperedTasks(): Map<number, number> {
      const rows = db
        .prepare(
          `SELECT variant_id AS id, COUNT(DISTINCT domain || '/' || task_id) AS n FROM task_results
           WHERE substr(detail, 1, ${TAMPER_MARK.length}) = ? GROUP BY variant_id`,
        )
        .all(TAMPER_MARK) as { id: number; n: number }[];
      return new Map(rows.map((r) => [r.id, r.n]));
    },
  };
}

const attemptOf = (filter: TaskResultFilter): number | null =>
  filter.attempt === 'all' ? null : (filter.attempt ?? 0);

export function taskResultWrites(db: Db, redact: Redactor) {
  const redactOrNull = (text: string | null | undefined): string | null =>
    text === null || text === undefined ? null : redact(text);
  const insert = db.prepare(`
    INSERT OR REPLACE INTO task_results
      (variant_id, domain, split, task_id, attempt, outcome, prediction, raw_output, score, error, latency_ms,
       cost_usd, reused, code_hash, task_model, created_at, detail, log, input_tokens, output_tokens)
    VALUES (@variantId, @domain, @split, @taskId, @attempt, @outcome, @prediction, @rawOutput, @score, @error,
       @latencyMs, @costUsd, @reused, @codeHash, @taskModel, @createdAt, @detail, @log, @inputTokens, @outputTokens)`);
  return {
    putTaskResults: db.transaction((rows: TaskResultInput[]) => {
      for (const r of rows) {
        insert.run({
          ...r,
          attempt: r.attempt ?? 0,
          prediction: r.prediction === undefined ? null : redact(JSON.stringify(r.prediction)),
          rawOutput: redactOrNull(r.rawOutput),
          error: redactOrNull(r.error),
          detail: redactOrNull(r.detail),
          log: redactOrNull(r.log),
          inputTokens: r.inputTokens ?? null,
          outputTokens: r.outputTokens ?? null,
          reused: r.reused ? 1 : 0,
          createdAt: now(),
        });
      }
    }),
  };
}
