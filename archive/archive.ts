import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { MIGRATIONS } from './migrations.ts';
import { createRedactor, redactDeep } from './redact.ts';

/**
 * A variant's `step` is the generation step it is in (DESIGN §7): where a resumed run continues.
 * Its `status` is the verdict once the generation has ended: what readers rank and filter by.
 */
export const VARIANT_STEPS = ['selected', 'editing', 'gating', 'staged', 'full', 'done', 'failed'] as const;
export type VariantStep = (typeof VARIANT_STEPS)[number];
/** The generation has ended: nothing moves the variant on from these steps. */
export const isFinalStep = (step: string): step is 'done' | 'failed' => step === 'done' || step === 'failed';
/** `pending` until the generation ends. */
export const VARIANT_STATUSES = ['pending', 'evaluated', 'staged_only', 'rejected', 'failed'] as const;
export type VariantStatus = (typeof VARIANT_STATUSES)[number];
/**
 * Why a generation failed, recorded when it fails: `agent` (the parent's MetaAgent failed by itself, which
 * disqualifies the parent), `budget` (the gateway refused this variant's calls for the run's budget),
 * `timeout` (a limit the harness set), `infrastructure` (every task of its evaluation failed before
 * answering: the sandbox, a limit or the workers stopped them, so it has no score), `harness` (a model that
 * could not be reached; archives of earlier versions also hold git and disk failures here, which a run now
 * leaves at their step to be redone).
 */
export const FAILURE_CAUSES = ['agent', 'budget', 'timeout', 'harness', 'infrastructure'] as const;
export type FailureCause = (typeof FAILURE_CAUSES)[number];
export const TASK_OUTCOMES = ['correct', 'wrong', 'parse_failure', 'error'] as const;
export type TaskOutcome = (typeof TASK_OUTCOMES)[number];

const json = z.string().transform((text) => JSON.parse(text) as unknown);
const flag = z.number().transform((n) => n !== 0);

export const RunRow = z.object({
  id: z.string(),
  created_at: z.string(),
  harness_version: z.string(),
  seed: z.number(),
  meta_model: z.string(),
  task_model: z.string(),
  simulated: flag,
  domains: json.pipe(z.array(z.string())),
  config: json,
  status: z.string(),
  finished_at: z.string().nullable(),
});
export type RunRow = z.infer<typeof RunRow>;

export const VariantRow = z.object({
  id: z.number(),
  parent_id: z.number().nullable(),
  commit_sha: z.string().nullable(),
  step: z.enum(VARIANT_STEPS),
  status: z.enum(VARIANT_STATUSES),
  valid_parent: flag,
  failure_reason: z.string().nullable(),
  diff_stat: z.string().nullable(),
  task_code_hash: z.string().nullable(),
  selection_reason: z.string().nullable(),
  /** The score parent selection ranks this variant by (DESIGN §6); null until it is evaluated. */
  selection_score: z.number().nullable(),
  /** The commit the generation started from, stored when its parent is selected. */
  parent_commit: z.string().nullable(),
  failure_cause: z.enum(FAILURE_CAUSES).nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
export type VariantRow = z.infer<typeof VariantRow>;

export const EvaluationRow = z.object({
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
});
export type EvaluationRow = z.infer<typeof EvaluationRow>;

/** What a TaskAgent's answer to one task came to: stored per variant and cached across variants. */
export interface TaskOutcomeRecord {
  outcome: TaskOutcome;
  prediction: unknown;
  rawOutput: string;
  score: number;
  error: string | null;
  /** What the grader said beside the score (e.g. "3/4 tests passed"). */
  detail?: string | null;
  latencyMs: number | null;
  costUsd: number;
}

export interface TaskResultInput extends TaskOutcomeRecord {
  variantId: number;
  domain: string;
  split: string;
  taskId: string;
  reused: boolean;
  codeHash: string;
  taskModel: string;
}

export const TaskResultRow = z.object({
  variant_id: z.number(),
  domain: z.string(),
  split: z.string(),
  task_id: z.string(),
  outcome: z.enum(TASK_OUTCOMES),
  prediction: z.string().nullable(),
  raw_output: z.string().nullable(),
  score: z.number(),
  error: z.string().nullable(),
  detail: z.string().nullable().optional(),
  latency_ms: z.number().nullable(),
  cost_usd: z.number(),
  reused: flag,
  code_hash: z.string(),
  task_model: z.string(),
  created_at: z.string(),
});
export type TaskResultRow = z.infer<typeof TaskResultRow>;

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
}

const now = (): string => new Date().toISOString();

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

export type Archive = ReturnType<typeof openArchive>;

/**
 * Opens (creating if needed) a run's archive and brings its schema up to date. Every text an agent could
 * have shaped (outputs, errors, failure reasons, event data) is redacted on the way in: key-shaped strings
 * and the given secret values never reach the file.
 */
export function openArchive(file: string, options: { secrets?: readonly string[] } = {}) {
  const redact = createRedactor(options.secrets);
  const redactOrNull = (text: string | null | undefined): string | null =>
    text === null || text === undefined ? null : redact(text);
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // With WAL, NORMAL syncs at checkpoints rather than at every commit: a killed process loses nothing it
  // committed (the OS holds it), only a power cut may drop the last commits, never the file's consistency.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  migrate(db);

  const insertTaskResult = db.prepare(`
    INSERT OR REPLACE INTO task_results
      (variant_id, domain, split, task_id, outcome, prediction, raw_output, score, error, latency_ms,
       cost_usd, reused, code_hash, task_model, created_at, detail)
    VALUES (@variantId, @domain, @split, @taskId, @outcome, @prediction, @rawOutput, @score, @error,
       @latencyMs, @costUsd, @reused, @codeHash, @taskModel, @createdAt, @detail)`);
  // One row per model call: prepared once, not at every call.
  const insertLlmCallRow =
    db.prepare(`INSERT INTO llm_calls (ts, variant_id, role, model, input_tokens, output_tokens, cache_read_tokens,
           cache_write_tokens, reasoning_tokens, cost_usd, latency_ms, status, error, attempts, retried, replayed,
           adapted)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const putTaskResults = db.transaction((rows: TaskResultInput[]) => {
    for (const r of rows) {
      insertTaskResult.run({
        ...r,
        prediction: r.prediction === undefined ? null : redact(JSON.stringify(r.prediction)),
        rawOutput: redactOrNull(r.rawOutput),
        error: redactOrNull(r.error),
        detail: redactOrNull(r.detail),
        reused: r.reused ? 1 : 0,
        createdAt: now(),
      });
    }
  });

  const columns: Record<keyof VariantPatch, string> = {
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
  /** Applies `patch`; with `from`, only while the variant is in that step. True when a row changed. */
  function updateVariant(id: number, patch: VariantPatch, from?: VariantStep): boolean {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(patch)) {
      const column = columns[key as keyof VariantPatch];
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

  return {
    file,
    db,
    redact,
    createRun(run: {
      id: string;
      harnessVersion: string;
      seed: number;
      metaModel: string;
      taskModel: string;
      simulated: boolean;
      domains: string[];
      config: unknown;
    }): void {
      db.prepare(
        `INSERT INTO runs (id, created_at, harness_version, seed, meta_model, task_model, simulated, domains, config)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        run.id,
        now(),
        run.harnessVersion,
        run.seed,
        run.metaModel,
        run.taskModel,
        run.simulated ? 1 : 0,
        JSON.stringify(run.domains),
        JSON.stringify(run.config),
      );
    },
    /** How the run's agent processes are confined: sandbox mode and limits (JSON), for every later reader. */
    recordSandbox(sandbox: unknown): void {
      db.prepare('UPDATE runs SET sandbox = ?').run(JSON.stringify(sandbox));
    },
    getRun(): RunRow | undefined {
      const row = db.prepare('SELECT * FROM runs LIMIT 1').get();
      return row === undefined ? undefined : RunRow.parse(row);
    },
    /** A resumed run: running again, with the configuration it now runs under. */
    reopenRun(config: unknown): void {
      db.prepare("UPDATE runs SET status = 'running', finished_at = NULL, config = ?").run(
        JSON.stringify(config),
      );
    },
    finishRun(status: 'done' | 'failed' | 'stopped'): void {
      db.prepare('UPDATE runs SET status = ?, finished_at = ?').run(status, now());
    },
    insertVariant(v: {
      id: number;
      parentId: number | null;
      step: VariantStep;
      selectionReason?: string;
      parentCommit?: string | null;
    }): void {
      db.prepare(
        `INSERT INTO variants (id, parent_id, step, selection_reason, parent_commit, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ).run(v.id, v.parentId, v.step, v.selectionReason ?? null, v.parentCommit ?? null, now());
    },
    updateVariant,
    /**
     * Moves a variant from the step `from` to `to` with `patch`, and logs it, in one transaction. Applies only
     * while the variant is still in `from`, so two processes can never both advance it: false when it was not.
     */
    transitionVariant: db.transaction(
      (id: number, from: VariantStep, to: VariantStep, patch: VariantPatch = {}, event: unknown = {}) => {
        const changed = updateVariant(id, { ...patch, step: to }, from);
        if (!changed) return false;
        db.prepare('INSERT INTO events (ts, variant_id, type, data) VALUES (?, ?, ?, ?)').run(
          now(),
          id,
          to,
          JSON.stringify({ from, ...(event as object) }),
        );
        return true;
      },
    ),
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
      const row = db
        .prepare(
          `SELECT COALESCE(SUM(attempts - (status = 'ok')), 0) AS faults, COALESCE(SUM(attempts - 1), 0) AS retries
           FROM llm_calls WHERE variant_id = ? AND attempts > 0`,
        )
        .get(variantId) as { faults: number; retries: number };
      return row;
    },
    getVariant(id: number): VariantRow | undefined {
      const row = db.prepare('SELECT * FROM variants WHERE id = ?').get(id);
      return row === undefined ? undefined : VariantRow.parse(row);
    },
    /** Every variant's id and step, unvalidated and cheap: for callers that keep finished rows themselves. */
    variantSteps(): { id: number; step: VariantStep }[] {
      return db.prepare('SELECT id, step FROM variants ORDER BY id').all() as {
        id: number;
        step: VariantStep;
      }[];
    },
    listVariants(): VariantRow[] {
      return db
        .prepare('SELECT * FROM variants ORDER BY id')
        .all()
        .map((row) => VariantRow.parse(row));
    },
    putEvaluation(e: Omit<EvaluationRow, 'created_at'>): void {
      db.prepare(
        `INSERT OR REPLACE INTO evaluations
           (variant_id, domain, split, stage, score, n_tasks, n_total, correct, wrong, parse_failures, errors, created_at)
         VALUES (@variant_id, @domain, @split, @stage, @score, @n_tasks, @n_total, @correct, @wrong, @parse_failures,
           @errors, @created_at)`,
      ).run({ ...e, created_at: now() });
    },
    listEvaluations(variantId?: number): EvaluationRow[] {
      const rows =
        variantId === undefined
          ? db.prepare('SELECT * FROM evaluations ORDER BY variant_id, domain, split, stage').all()
          : db
              .prepare('SELECT * FROM evaluations WHERE variant_id = ? ORDER BY domain, split, stage')
              .all(variantId);
      return rows.map((row) => EvaluationRow.parse(row));
    },
    /** Drops a stage's evaluation rows of a variant: a stage cut short must not read as a score. */
    discardEvaluations(variantId: number, stage: EvaluationRow['stage']): void {
      db.prepare('DELETE FROM evaluations WHERE variant_id = ? AND stage = ?').run(variantId, stage);
    },
    putTaskResults,
    listTaskResults(variantId: number, filter: { domain?: string; split?: string } = {}): TaskResultRow[] {
      return db
        .prepare(
          `SELECT * FROM task_results WHERE variant_id = ? AND (? IS NULL OR domain = ?) AND (? IS NULL OR split = ?)
           ORDER BY domain, split, task_id`,
        )
        .all(
          variantId,
          filter.domain ?? null,
          filter.domain ?? null,
          filter.split ?? null,
          filter.split ?? null,
        )
        .map((row) => TaskResultRow.parse(row));
    },
    insertLlmCall(c: LlmCallInput): void {
      insertLlmCallRow.run(
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
      );
    },
    llmTotals(): { calls: number; costUsd: number } {
      const row = db
        .prepare('SELECT COUNT(*) AS calls, COALESCE(SUM(cost_usd), 0) AS cost FROM llm_calls')
        .get() as {
        calls: number;
        cost: number;
      };
      return { calls: row.calls, costUsd: row.cost };
    },
    logEvent(variantId: number | null, type: string, data: unknown = {}): void {
      db.prepare('INSERT INTO events (ts, variant_id, type, data) VALUES (?, ?, ?, ?)').run(
        now(),
        variantId,
        type,
        JSON.stringify(redactDeep(data, redact)),
      );
    },
    close(): void {
      db.close();
    },
  };
}

function migrate(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = new Set(
    db
      .prepare('SELECT name FROM migrations')
      .all()
      .map((row) => (row as { name: string }).name),
  );
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.name)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?)').run(migration.name, now());
    })();
  }
}
