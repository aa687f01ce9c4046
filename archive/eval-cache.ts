import Database from 'better-sqlite3';
import { z } from 'zod';
import { TASK_OUTCOMES, type TaskOutcomeRecord } from './archive.ts';

/**
 * Task results shared by every run under one `--out` folder, keyed by what determines them:
 * the TaskAgent's code hash, domain, split, task id, a hash of the task's content, the grader's version,
 * task model, the hash of the task settings it ran under (tool calls, time, memory, output, sandbox...: every
 * setting that changes a task's result, see docs/architecture.md "Task settings"), seed and attempt (a
 * second attempt at a task is a second answer, never the first one again). A variant whose task-side code
 * is unchanged (or the initial agent, evaluated once by setup) reuses them instead of calling a model; two
 * datasets with the same ids, a task whose text changed, a changed grader, or other settings never do.
 */
export interface CacheKey {
  codeHash: string;
  domain: string;
  split: string;
  taskId: string;
  taskHash: string;
  graderVersion: string;
  taskModel: string;
  /** The hash of the task settings the result was made under (taskSettingsHash). */
  settingsHash: string;
  seed: number;
  /** Which attempt at the task (0 first). */
  attempt: number;
}

export interface CachedResult extends TaskOutcomeRecord {
  /** A workspace task's final folder as collected (JSON), so that a reuse is graded again like a reply. */
  workspace?: unknown;
}

const Row = z.object({
  outcome: z.enum(TASK_OUTCOMES),
  prediction: z.string().nullable(),
  raw_output: z.string(),
  score: z.number(),
  error: z.string().nullable(),
  latency_ms: z.number().nullable(),
  cost_usd: z.number(),
  detail: z.string().nullable(),
  log: z.string().nullable(),
  workspace: z.string().nullable(),
});

export type EvalCache = ReturnType<typeof openEvalCache>;

export function openEvalCache(file: string) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // As the archive's: no sync at every commit (WAL keeps the file consistent; a killed process loses nothing).
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // Tables of older versions stay in the file, unread: `results` and `results_v2` lack the task and grader
  // hashes, and `results_v3` the task settings, so none of their results is known to be made under the
  // settings of a run now.
  db.exec(`CREATE TABLE IF NOT EXISTS results_v4 (
    code_hash TEXT NOT NULL, domain TEXT NOT NULL, split TEXT NOT NULL, task_id TEXT NOT NULL,
    task_hash TEXT NOT NULL, grader_version TEXT NOT NULL, task_model TEXT NOT NULL,
    settings_hash TEXT NOT NULL, seed INTEGER NOT NULL, attempt INTEGER NOT NULL,
    outcome TEXT NOT NULL, prediction TEXT, raw_output TEXT NOT NULL, score REAL NOT NULL, error TEXT,
    latency_ms INTEGER, cost_usd REAL NOT NULL, created_at TEXT NOT NULL, detail TEXT, log TEXT, workspace TEXT,
    PRIMARY KEY (code_hash, domain, split, task_id, task_hash, grader_version, task_model, settings_hash, seed,
      attempt))`);
  const get = db.prepare(
    `SELECT outcome, prediction, raw_output, score, error, latency_ms, cost_usd, detail, log, workspace FROM results_v4
     WHERE code_hash = @codeHash AND domain = @domain AND split = @split AND task_id = @taskId
       AND task_hash = @taskHash AND grader_version = @graderVersion AND task_model = @taskModel
       AND settings_hash = @settingsHash AND seed = @seed AND attempt = @attempt`,
  );
  const put = db.prepare(
    `INSERT OR REPLACE INTO results_v4 (code_hash, domain, split, task_id, task_hash, grader_version,
       task_model, settings_hash, seed, attempt, outcome, prediction, raw_output, score, error, latency_ms, cost_usd, created_at,
       detail, log, workspace)
     VALUES (@codeHash, @domain, @split, @taskId, @taskHash, @graderVersion, @taskModel, @settingsHash, @seed,
       @attempt, @outcome,
       @prediction, @rawOutput, @score, @error, @latencyMs, @costUsd, @createdAt, @detail, @log, @workspace)`,
  );
  return {
    get(key: CacheKey): CachedResult | undefined {
      const raw = get.get(key);
      if (raw === undefined) return undefined;
      const row = Row.parse(raw);
      return {
        outcome: row.outcome,
        prediction: row.prediction === null ? undefined : (JSON.parse(row.prediction) as unknown),
        rawOutput: row.raw_output,
        score: row.score,
        error: row.error,
        latencyMs: row.latency_ms,
        costUsd: row.cost_usd,
        ...(row.detail === null ? {} : { detail: row.detail }),
        ...(row.log === null ? {} : { log: row.log }),
        ...(row.workspace === null ? {} : { workspace: JSON.parse(row.workspace) as unknown }),
      };
    },
    /** Only model outcomes are cached; infrastructure errors are never reused. */
    put(key: CacheKey, result: CachedResult): void {
      put.run({
        ...key,
        outcome: result.outcome,
        rawOutput: result.rawOutput,
        score: result.score,
        error: result.error,
        latencyMs: result.latencyMs,
        costUsd: result.costUsd,
        prediction: result.prediction === undefined ? null : JSON.stringify(result.prediction),
        detail: result.detail ?? null,
        log: result.log ?? null,
        workspace: result.workspace === undefined ? null : JSON.stringify(result.workspace),
        createdAt: new Date().toISOString(),
      });
    },
    close(): void {
      db.close();
    },
  };
}
