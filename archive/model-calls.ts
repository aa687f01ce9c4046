import { z } from 'zod';
import type { Db, Decode } from './database.ts';
import type { Redactor } from './redact.ts';
import { rowId } from './variants.ts';

export interface LlmCallInput {
  ts: string;
  variantId: number | null;
  role: string;
  model: string;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number; reasoning: number };
  costUsd: number;
  latencyMs: number;
  status: string;
  error?: string | undefined;
  /** Provider attempts: 1 plus retries; 0 when no provider was called (refused or replayed). Default 1. */
  attempts?: number | undefined;
  /** The errors that were retried before the call's outcome. */
  retried?: string[] | undefined;
  /** Answered from a recording (`--replay`) instead of a model. */
  replayed?: boolean | undefined;
  /** What was changed in the request to fit the model. */
  adapted?: string[] | undefined;
  /** The task the call was made for (its domain and id), as the caller named it (unchecked); absent when it named none. */
  task?: { domain: string; id: string } | undefined;
  /** The model the provider said served the call (e.g. "gpt-4o-2024-08-06"); absent when it named none. */
  reportedModel?: string | undefined;
  /** Answered through the provider's batch endpoint (`--batch`), at its batch price. */
  batch?: boolean | undefined;
}

/** One model call in the ledger (`llm_calls`), as readers show it. */
export const LlmCallRow = z
  .object({
    id: z.number(),
    ts: z.string(),
    variant_id: z.number().nullable(),
    role: z.string(),
    model: z.string(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    cache_read_tokens: z.number(),
    cache_write_tokens: z.number(),
    reasoning_tokens: z.number(),
    cost_usd: z.number(),
    latency_ms: z.number(),
    status: z.string(),
    error: z.string().nullable(),
    task_domain: z.string().nullable().optional(),
    task_id: z.string().nullable().optional(),
    reported_model: z.string().nullable().optional(),
  })
  .transform((r) => ({
    id: r.id,
    ts: r.ts,
    variantId: r.variant_id,
    role: r.role,
    model: r.model,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    cacheReadTokens: r.cache_read_tokens,
    cacheWriteTokens: r.cache_write_tokens,
    reasoningTokens: r.reasoning_tokens,
    costUsd: r.cost_usd,
    latencyMs: r.latency_ms,
    status: r.status,
    error: r.error,
    taskDomain: r.task_domain ?? null,
    taskId: r.task_id ?? null,
    reportedModel: r.reported_model ?? null,
  }));
export type LlmCallRow = z.output<typeof LlmCallRow>;

/** Spend and call count. */
export interface CallTotals {
  calls: number;
  costUsd: number;
}

/** What some model calls came to: calls, spend and tokens (input and output). */
export interface CallSpend extends CallTotals {
  inputTokens: number;
  outputTokens: number;
}

/** What one task's model calls came to. */
export type TaskSpend = CallSpend;

/** Cumulative spend after each model call, in time order. */
export interface SpendPoint {
  ts: string;
  costUsd: number;
}

/**
 * Spend of one generation's model calls and the run's spend up to and including it. `generation` null: the
 * calls of no variant (the first contact with a model), counted before generation 0.
 */
export interface GenerationSpend {
  generation: number | null;
  calls: number;
  costUsd: number;
  cumulativeUsd: number;
  /** The generation's spend split by the calls' role (`meta`, `task`, `select`, ...), and by model. */
  byRole: Record<string, number>;
  byModel: Record<string, number>;
}

const SPEND_COLUMNS = `COUNT(*) AS calls, COALESCE(SUM(cost_usd), 0) AS cost, COALESCE(SUM(input_tokens), 0) AS input,
  COALESCE(SUM(output_tokens), 0) AS output`;
type SpendRow = { calls: number; cost: number; input: number; output: number };
const callSpend = (r: SpendRow): CallSpend => ({
  calls: r.calls,
  costUsd: r.cost,
  inputTokens: r.input,
  outputTokens: r.output,
});

/**
 * Folds per-(variant, role, model) sums, in variant order, into one point per generation with the running
 * total. Pure.
 */
export function foldGenerationSpend(
  rows: readonly { variant_id: number | null; role: string; model: string; calls: number; cost: number }[],
): GenerationSpend[] {
  const points: GenerationSpend[] = [];
  let total = 0;
  for (const r of rows) {
    let point = points.at(-1);
    if (point === undefined || point.generation !== r.variant_id) {
      point = {
        generation: r.variant_id,
        calls: 0,
        costUsd: 0,
        cumulativeUsd: total,
        byRole: {},
        byModel: {},
      };
      points.push(point);
    }
    total += r.cost;
    point.calls += r.calls;
    point.costUsd += r.cost;
    point.cumulativeUsd = total;
    point.byRole[r.role] = (point.byRole[r.role] ?? 0) + r.cost;
    point.byModel[r.model] = (point.byModel[r.model] ?? 0) + r.cost;
  }
  return points;
}

/**
 * One model of the ledger in one role, and how many calls were made to it; `reported`: the models its provider
 * said served them, with their calls, most first (calls that named none, failed ones among them, are not in it).
 */
export interface ModelUse {
  model: string;
  role: string;
  calls: number;
  reported: { model: string; calls: number }[];
}

/** Folds per-(model, role, reported model) counts into one ModelUse per model and role, most calls first. Pure. */
export function foldModelUses(
  rows: readonly { model: string; role: string; reported: string | null; calls: number }[],
): ModelUse[] {
  const uses = new Map<string, ModelUse>();
  for (const r of rows) {
    const key = JSON.stringify([r.model, r.role]);
    const use = uses.get(key) ?? { model: r.model, role: r.role, calls: 0, reported: [] };
    uses.set(key, use);
    use.calls += r.calls;
    if (r.reported !== null) use.reported.push({ model: r.reported, calls: r.calls });
  }
  const byCalls = <T extends { model: string; calls: number }>(a: T, b: T): number =>
    b.calls - a.calls || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);
  for (const use of uses.values()) use.reported.sort(byCalls);
  return [...uses.values()].sort((a, b) => byCalls(a, b) || (a.role < b.role ? -1 : 1));
}

// Over 80 lines: the ledger's read queries, one method each over the same handle and columns.
export function modelCallQueries(db: Db, decode: Decode) {
  // An archive written before migration 012 has no reported_model (a reader never migrates): it reads as NULL.
  const columns = new Set(
    (db.prepare('PRAGMA table_info(llm_calls)').all() as { name: string }[]).map((c) => c.name),
  );
  const reportedColumn = columns.has('reported_model') ? 'reported_model' : 'NULL';
  // Before migration 013 no call went through a batch.
  const batchColumn = columns.has('batch') ? 'batch' : '0';
  return {
    /** The calls charged through a provider's batch endpoint (`--batch`): count, spend and tokens. */
    batchSpend(): CallSpend {
      return callSpend(
        db.prepare(`SELECT ${SPEND_COLUMNS} FROM llm_calls WHERE ${batchColumn} = 1`).get() as SpendRow,
      );
    },
    /** Model calls of one role in the ledger, and how many of them the gateway refused for the budget. */
    callCounts(role: string, variantId?: number): { calls: number; budgetRefusals: number } {
      const row = db
        .prepare(
          `SELECT COUNT(*) AS calls, COALESCE(SUM(status = 'budget_exceeded'), 0) AS refused FROM llm_calls
           WHERE role = ? AND (? IS NULL OR variant_id = ?)`,
        )
        .get(role, variantId ?? null, variantId ?? null) as { calls: number; refused: number };
      return { calls: row.calls, budgetRefusals: row.refused };
    },
    /**
     * How the provider behind one variant's model calls failed: `faults` are failed attempts (each retried
     * one, and the last of a call that failed), `retries` the attempts after a call's first.
     */
    llmFaults(variantId: number): { faults: number; retries: number } {
      return db
        .prepare(
          `SELECT COALESCE(SUM(attempts - (status = 'ok')), 0) AS faults, COALESCE(SUM(attempts - 1), 0) AS retries
           FROM llm_calls WHERE variant_id = ? AND attempts > 0`,
        )
        .get(variantId) as { faults: number; retries: number };
    },
    /** The models the ledger recorded, with the role, number of calls and reported models of each, most calls first. */
    modelsUsed(): ModelUse[] {
      const rows = db
        .prepare(
          `SELECT model, role, ${reportedColumn} AS reported, COUNT(*) AS calls FROM llm_calls
           GROUP BY model, role, reported`,
        )
        .all() as { model: string; role: string; reported: string | null; calls: number }[];
      return foldModelUses(rows);
    },
    /** The whole run's calls, spend and tokens, or one variant's. */
    llmTotals(variantId?: number): CallSpend {
      const row = (
        variantId === undefined
          ? db.prepare(`SELECT ${SPEND_COLUMNS} FROM llm_calls`).get()
          : db.prepare(`SELECT ${SPEND_COLUMNS} FROM llm_calls WHERE variant_id = ?`).get(variantId)
      ) as SpendRow;
      return callSpend(row);
    },
    /** Calls, spend and tokens of each variant (null: calls of no variant). */
    llmTotalsByVariant(): Map<number | null, CallSpend> {
      const rows = db
        .prepare(`SELECT variant_id, ${SPEND_COLUMNS} FROM llm_calls GROUP BY variant_id`)
        .all() as (SpendRow & { variant_id: number | null })[];
      return new Map(rows.map((r) => [r.variant_id, callSpend(r)]));
    },
    listLlmCalls(variantId?: number): LlmCallRow[] {
      const rows =
        variantId === undefined
          ? db.prepare('SELECT * FROM llm_calls ORDER BY id').all()
          : db.prepare('SELECT * FROM llm_calls WHERE variant_id = ? ORDER BY id').all(variantId);
      return rows.map((raw) => decode(LlmCallRow, raw, `model call ${rowId(raw)}`));
    },
    /**
     * One point per generation that made calls, in generation order (calls of no variant first), its spend
     * summed by role and by model in SQL: the points do not grow with the calls.
     */
    spendByGeneration(): GenerationSpend[] {
      const rows = db
        .prepare(
          `SELECT variant_id, role, model, COUNT(*) AS calls, COALESCE(SUM(cost_usd), 0) AS cost FROM llm_calls
           GROUP BY variant_id, role, model ORDER BY variant_id IS NOT NULL, variant_id, role, model`,
        )
        .all() as { variant_id: number | null; role: string; model: string; calls: number; cost: number }[];
      return foldGenerationSpend(rows);
    },
    /**
     * What one variant's TaskAgent calls for one task cost (every attempt's, failed ones included): the
     * calls the TaskAgent named the task in. Calls naming no task, or another, are not counted.
     */
    taskSpend(variantId: number, task: { domain: string; id: string }): TaskSpend {
      const row = db
        .prepare(
          `SELECT ${SPEND_COLUMNS} FROM llm_calls
           WHERE variant_id = ? AND task_domain = ? AND task_id = ? AND role = 'task'`,
        )
        .get(variantId, task.domain, task.id) as SpendRow;
      return callSpend(row);
    },
    /** When the newest model call was made (ISO time), null before the first. */
    lastCallAt(): string | null {
      const row = db.prepare('SELECT MAX(ts) AS ts FROM llm_calls').get() as { ts: string | null };
      return row.ts;
    },
    spendOverTime(): SpendPoint[] {
      const rows = db.prepare('SELECT ts, cost_usd FROM llm_calls ORDER BY ts, id').all() as {
        ts: string;
        cost_usd: number;
      }[];
      let total = 0;
      return rows.map((r) => {
        total += r.cost_usd;
        return { ts: r.ts, costUsd: total };
      });
    },
  };
}

export function modelCallWrites(db: Db, redact: Redactor) {
  const redactOrNull = (text: string | null | undefined): string | null =>
    text === null || text === undefined ? null : redact(text);
  // One row per model call: prepared once, not at every call.
  const insert =
    db.prepare(`INSERT INTO llm_calls (ts, variant_id, role, model, input_tokens, output_tokens, cache_read_tokens,
           cache_write_tokens, reasoning_tokens, cost_usd, latency_ms, status, error, attempts, retried, replayed,
           adapted, task_domain, task_id, reported_model, batch)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  return {
    insertLlmCall(c: LlmCallInput): void {
      insert.run(
        c.ts,
        c.variantId,
        c.role,
        c.model,
        c.usage.input,
        c.usage.output,
        c.usage.cacheRead,
        c.usage.cacheWrite,
        c.usage.reasoning,
        c.costUsd,
        c.latencyMs,
        c.status,
        redactOrNull(c.error),
        c.attempts ?? 1,
        c.retried === undefined || c.retried.length === 0 ? null : redact(JSON.stringify(c.retried)),
        c.replayed ? 1 : 0,
        c.adapted === undefined || c.adapted.length === 0 ? null : JSON.stringify(c.adapted),
        c.task?.domain ?? null,
        c.task?.id ?? null,
        c.reportedModel ?? null,
        c.batch ? 1 : 0,
      );
    },
  };
}
