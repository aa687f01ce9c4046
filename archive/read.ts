import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { EvaluationRow, RunRow, TaskResultRow, VariantRow } from './archive.ts';
import { runLockHolder } from './run-folder.ts';

/**
 * How far a run got, as a reader shows it. `interrupted`: it was running when its process died (SIGKILL,
 * a reboot) and it has not been resumed since; `generate-loop --resume` continues it.
 */
export type RunState = 'running' | 'interrupted' | 'done' | 'stopped' | 'failed';

/** How a variant ended, as a reader shows it: the harness's `step`/`status` pair folded into one word. */
export type VariantOutcome = 'in_progress' | 'evaluated' | 'staged_only' | 'rejected' | 'failed';

/** One split's score of a domain: the full evaluation when there is one, else the staged sample. */
export interface SplitScore {
  score: number;
  stage: 'staged' | 'full';
  nTasks: number;
  nTotal: number;
  correct: number;
  wrong: number;
  parseFailures: number;
  errors: number;
}

/** domain → split → score. Domain names are opaque strings (`arithmetic`, `dataset:qa.csv`, ...). */
export type Scores = Record<string, Record<string, SplitScore>>;

export interface VariantView {
  id: number;
  /** The generation that made it; variant ids are generation numbers. */
  generation: number;
  parent: number | null;
  commit: string | null;
  outcome: VariantOutcome;
  step: string;
  status: string;
  validParent: boolean;
  failureReason: string | null;
  selectionReason: string | null;
  /** The stored score parent selection ranks by (null until evaluated). */
  score: number | null;
  scores: Scores;
  changedFiles: string[];
  costUsd: number;
  llmCalls: number;
  createdAt: string;
  finishedAt: string | null;
}

export interface RunView {
  id: string;
  createdAt: string;
  finishedAt: string | null;
  state: RunState;
  model: string;
  metaModel: string;
  taskModel: string;
  simulated: boolean;
  domains: string[];
  seed: number;
  harnessVersion: string;
  config: unknown;
  /** Generations asked for, when the stored config says. */
  generationsPlanned: number | null;
  /** Variants in the archive beside variant 0. */
  generations: number;
  best: { id: number; score: number } | null;
  costUsd: number;
  llmCalls: number;
}

export interface LlmCallView {
  id: number;
  ts: string;
  variantId: number | null;
  role: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number;
  latencyMs: number;
  status: string;
  error: string | null;
}

export interface EventView {
  id: number;
  ts: string;
  variantId: number | null;
  type: string;
  data: unknown;
}

/** Cumulative spend after each model call, in time order. */
export interface SpendPoint {
  ts: string;
  costUsd: number;
}

const LlmCallRow = z.object({
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
});

/** Read leniently: a reader must keep working when the harness adds a step it does not know yet. */
const ReadVariantRow = VariantRow.extend({ step: z.string() });
type ReadVariantRow = z.infer<typeof ReadVariantRow>;

const EventRow = z.object({
  id: z.number(),
  ts: z.string(),
  variant_id: z.number().nullable(),
  type: z.string(),
  data: z.string(),
});

/** The state of a run from its stored status and whether a live process holds its folder (run.lock). Pure. */
export function runState(status: string, held = true): RunState {
  if (status === 'done' || status === 'stopped' || status === 'failed') return status;
  return held ? 'running' : 'interrupted';
}

export function variantOutcome(v: { step: string; status: string }): VariantOutcome {
  if (v.step === 'failed') return v.status === 'rejected' ? 'rejected' : 'failed';
  if (v.step !== 'done') return 'in_progress';
  return v.status === 'staged_only' ? 'staged_only' : 'evaluated';
}

/** Folds evaluation rows into domain → split → score, preferring the full stage over the staged one. */
export function foldScores(rows: readonly EvaluationRow[]): Scores {
  const scores: Scores = {};
  for (const r of rows) {
    const byDomain = scores[r.domain] ?? {};
    scores[r.domain] = byDomain;
    const known = byDomain[r.split];
    if (known !== undefined && known.stage === 'full' && r.stage === 'staged') continue;
    byDomain[r.split] = {
      score: r.score,
      stage: r.stage,
      nTasks: r.n_tasks,
      nTotal: r.n_total,
      correct: r.correct,
      wrong: r.wrong,
      parseFailures: r.parse_failures,
      errors: r.errors,
    };
  }
  return scores;
}

function changedFiles(diffStat: string | null): string[] {
  if (diffStat === null) return [];
  try {
    const parsed = z.object({ files: z.array(z.string()) }).safeParse(JSON.parse(diffStat));
    return parsed.success ? parsed.data.files : [];
  } catch {
    return [];
  }
}

/** The best evaluated variant by stored selection score; ties go to the earlier variant. Pure. */
export function bestVariant(variants: readonly Pick<VariantView, 'id' | 'score'>[]): {
  id: number;
  score: number;
} | null {
  let best: { id: number; score: number } | null = null;
  for (const v of variants) {
    if (v.score !== null && (best === null || v.score > best.score)) best = { id: v.id, score: v.score };
  }
  return best;
}

/** The path from the root to `id` (root first); empty when `id` is unknown. Pure. */
export function lineageOf<T extends { id: number; parent: number | null }>(
  variants: readonly T[],
  id: number,
): T[] {
  const byId = new Map(variants.map((v) => [v.id, v]));
  const path: T[] = [];
  const seen = new Set<number>();
  let at = byId.get(id);
  while (at !== undefined && !seen.has(at.id)) {
    seen.add(at.id);
    path.unshift(at);
    at = at.parent === null ? undefined : byId.get(at.parent);
  }
  return path;
}

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

/** `schema.parse(raw)`, or a Fault naming the row (`what`), the field and the value found there. */
function parseRow<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
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
}

const rowId = (raw: unknown): string => String((raw as { id?: unknown } | undefined)?.id ?? '?');

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

function openReader(file: string) {
  if (!existsSync(file)) throw new Fault('there is no such file');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  let variantColumns: Set<string>;
  try {
    variantColumns = new Set(
      (db.prepare('PRAGMA table_info(variants)').all() as { name: string }[]).map((c) => c.name),
    );
  } catch (error) {
    db.close();
    throw error;
  }
  if (!variantColumns.has('id')) {
    db.close();
    throw new Fault('it has no variants table');
  }
  // Archives written before migration 003 have no stored selection score: read it as not evaluated.
  // Columns added by later migrations read as NULL in an archive written before them (never migrated here).
  const added = ['selection_score', 'parent_commit', 'failure_cause'].filter((c) => !variantColumns.has(c));
  // Archives written before migration 007 call the step column `state`.
  const step = variantColumns.has('step') ? '' : ', state AS step';
  const selectVariants = `SELECT *${step}${added.map((c) => `, NULL AS ${c}`).join('')} FROM variants`;

  const costByVariant = (): Map<number | null, { cost: number; calls: number }> => {
    const rows = db
      .prepare(
        'SELECT variant_id, COALESCE(SUM(cost_usd), 0) AS cost, COUNT(*) AS calls FROM llm_calls GROUP BY variant_id',
      )
      .all() as { variant_id: number | null; cost: number; calls: number }[];
    return new Map(rows.map((r) => [r.variant_id, { cost: r.cost, calls: r.calls }]));
  };

  const toView = (
    row: ReadVariantRow,
    evaluations: readonly EvaluationRow[],
    cost: { cost: number; calls: number } | undefined,
  ): VariantView => ({
    id: row.id,
    generation: row.id,
    parent: row.parent_id,
    commit: row.commit_sha,
    outcome: variantOutcome(row),
    step: row.step,
    status: row.status,
    validParent: row.valid_parent,
    failureReason: row.failure_reason,
    selectionReason: row.selection_reason,
    score: row.selection_score,
    scores: foldScores(evaluations),
    changedFiles: changedFiles(row.diff_stat),
    costUsd: cost?.cost ?? 0,
    llmCalls: cost?.calls ?? 0,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  });

  const reader = {
    file,
    run(): RunView | null {
      const raw = db.prepare('SELECT * FROM runs LIMIT 1').get();
      if (raw === undefined) return null;
      const row = parseRow(RunRow, raw, 'the run');
      const variants = reader.variants();
      const totals = db
        .prepare('SELECT COUNT(*) AS calls, COALESCE(SUM(cost_usd), 0) AS cost FROM llm_calls')
        .get() as { calls: number; cost: number };
      const planned = z.object({ generations: z.number() }).safeParse(row.config);
      return {
        id: row.id,
        createdAt: row.created_at,
        finishedAt: row.finished_at,
        state: runState(row.status, runLockHolder(path.dirname(file)) !== null),
        model: row.meta_model === row.task_model ? row.meta_model : `${row.meta_model} / ${row.task_model}`,
        metaModel: row.meta_model,
        taskModel: row.task_model,
        simulated: row.simulated,
        domains: row.domains,
        seed: row.seed,
        harnessVersion: row.harness_version,
        config: row.config,
        generationsPlanned: planned.success ? planned.data.generations : null,
        generations: variants.filter((v) => v.id !== 0).length,
        best: bestVariant(variants),
        costUsd: totals.cost,
        llmCalls: totals.calls,
      };
    },
    variants(): VariantView[] {
      const evaluations = new Map<number, EvaluationRow[]>();
      for (const raw of db
        .prepare('SELECT * FROM evaluations ORDER BY variant_id, domain, split, stage')
        .all()) {
        const e = parseRow(
          EvaluationRow,
          raw,
          `an evaluation of variant ${(raw as { variant_id?: unknown }).variant_id}`,
        );
        const list = evaluations.get(e.variant_id) ?? [];
        list.push(e);
        evaluations.set(e.variant_id, list);
      }
      const costs = costByVariant();
      return db
        .prepare(`${selectVariants} ORDER BY id`)
        .all()
        .map((raw) => {
          const row = parseRow(ReadVariantRow, raw, `variant ${rowId(raw)}`);
          return toView(row, evaluations.get(row.id) ?? [], costs.get(row.id));
        });
    },
    variant(id: number): VariantView | null {
      const raw = db.prepare(`${selectVariants} WHERE id = ?`).get(id);
      if (raw === undefined) return null;
      const row = parseRow(ReadVariantRow, raw, `variant ${id}`);
      const evaluations = db
        .prepare('SELECT * FROM evaluations WHERE variant_id = ?')
        .all(id)
        .map((e) => parseRow(EvaluationRow, e, `an evaluation of variant ${id}`));
      const cost = db
        .prepare(
          'SELECT COALESCE(SUM(cost_usd), 0) AS cost, COUNT(*) AS calls FROM llm_calls WHERE variant_id = ?',
        )
        .get(id) as { cost: number; calls: number };
      return toView(row, evaluations, cost);
    },
    lineage(id: number): VariantView[] {
      return lineageOf(reader.variants(), id);
    },
    taskResults(
      variantId: number,
      filter: { domain?: string; split?: string; failedOnly?: boolean } = {},
    ): TaskResultRow[] {
      return db
        .prepare(
          `SELECT * FROM task_results WHERE variant_id = ? AND (? IS NULL OR domain = ?) AND (? IS NULL OR split = ?)
             AND (? = 0 OR outcome != 'correct') ORDER BY domain, split, task_id`,
        )
        .all(
          variantId,
          filter.domain ?? null,
          filter.domain ?? null,
          filter.split ?? null,
          filter.split ?? null,
          filter.failedOnly ? 1 : 0,
        )
        .map((row) => parseRow(TaskResultRow, row, `a task result of variant ${variantId}`));
    },
    llmCalls(variantId?: number): LlmCallView[] {
      const rows =
        variantId === undefined
          ? db.prepare('SELECT * FROM llm_calls ORDER BY id').all()
          : db.prepare('SELECT * FROM llm_calls WHERE variant_id = ? ORDER BY id').all(variantId);
      return rows.map((raw) => {
        const r = parseRow(LlmCallRow, raw, `model call ${rowId(raw)}`);
        return {
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
        };
      });
    },
    /** Events after `afterId` (all by default), oldest first. */
    events(afterId = 0): EventView[] {
      return db
        .prepare('SELECT * FROM events WHERE id > ? ORDER BY id')
        .all(afterId)
        .map((raw) => {
          const r = parseRow(EventRow, raw, `event ${rowId(raw)}`);
          let data: unknown = r.data;
          try {
            data = JSON.parse(r.data);
          } catch {}
          return { id: r.id, ts: r.ts, variantId: r.variant_id, type: r.type, data };
        });
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
    /**
     * A value that changes whenever the run writes something a reader shows: new events, variants,
     * evaluations or model calls. Cheap enough to poll.
     */
    changeMark(): string {
      const row = db
        .prepare(
          `SELECT (SELECT COALESCE(MAX(id), 0) FROM events) AS e, (SELECT COUNT(*) FROM variants) AS v,
             (SELECT COUNT(*) FROM evaluations) AS ev, (SELECT COALESCE(MAX(id), 0) FROM llm_calls) AS c,
             (SELECT status FROM runs LIMIT 1) AS s`,
        )
        .get() as Record<string, unknown>;
      return `${row.e}.${row.v}.${row.ev}.${row.c}.${row.s}`;
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
