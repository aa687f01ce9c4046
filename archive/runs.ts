import { z } from 'zod';
import { type Db, type Decode, flagColumn, jsonColumn, now } from './database.ts';

/** The run an archive holds (one a file), as stored in `runs`. */
export const RunRow = z
  .object({
    id: z.string(),
    created_at: z.string(),
    harness_version: z.string(),
    seed: z.number(),
    meta_model: z.string(),
    task_model: z.string(),
    simulated: flagColumn,
    domains: jsonColumn.pipe(z.array(z.string())),
    config: jsonColumn,
    status: z.string(),
    finished_at: z.string().nullable(),
  })
  .transform((r) => ({
    id: r.id,
    createdAt: r.created_at,
    harnessVersion: r.harness_version,
    seed: r.seed,
    metaModel: r.meta_model,
    taskModel: r.task_model,
    simulated: r.simulated,
    domains: r.domains,
    config: r.config,
    status: r.status,
    finishedAt: r.finished_at,
  }));
export type RunRow = z.output<typeof RunRow>;

export interface NewRun {
  id: string;
  harnessVersion: string;
  seed: number;
  metaModel: string;
  taskModel: string;
  simulated: boolean;
  domains: string[];
  config: unknown;
}

/** Reads the run; `decode` decides what a row this version cannot read becomes. */
export function runQueries(db: Db, decode: Decode) {
  return {
    getRun(): RunRow | undefined {
      const raw = db.prepare('SELECT * FROM runs LIMIT 1').get();
      return raw === undefined ? undefined : decode(RunRow, raw, 'the run');
    },
  };
}

export function runWrites(db: Db) {
  return {
    createRun(run: NewRun): void {
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
    /** A resumed run: running again, with the configuration it now runs under. */
    reopenRun(config: unknown): void {
      db.prepare("UPDATE runs SET status = 'running', finished_at = NULL, config = ?").run(
        JSON.stringify(config),
      );
    },
    finishRun(status: 'done' | 'failed' | 'stopped'): void {
      db.prepare('UPDATE runs SET status = ?, finished_at = ?').run(status, now());
    },
  };
}
