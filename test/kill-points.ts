import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { RunSummary } from '../harness/run/index.ts';
import { type CliResult, PROJECT_ROOT } from './run-cli.ts';

/** A run of generate-loop as a child process, so that a test can kill it. */
export interface RunningCli {
  child: ChildProcess;
  done: Promise<CliResult>;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): RunningCli {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'generate-loop.mjs'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

/** Reads the archive of a running run (WAL: readers never block the writer). Null before it exists. */
export function readArchive<T>(runDir: string, read: (db: Database.Database) => T): T | null {
  const file = path.join(runDir, 'archive.sqlite');
  if (!existsSync(file)) return null;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    return read(db);
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

const ORDER = ['selected', 'editing', 'gating', 'staged', 'full', 'done', 'failed'];

/** A point to kill a run at: variant `variant` has reached `step` (and, for evaluations, stored results). */
export interface KillPoint {
  variant: number;
  step: string;
}

/** True once the run has reached the kill point or gone past it. */
export function reached(db: Database.Database, point: KillPoint): boolean {
  const row = db.prepare('SELECT step FROM variants WHERE id = ?').get(point.variant) as
    | { step: string }
    | undefined;
  if (row === undefined) return false;
  const at = ORDER.indexOf(row.step);
  const want = ORDER.indexOf(point.step);
  if (at > want) return true;
  if (at < want) return false;
  switch (point.step) {
    case 'editing':
      return eventCount(db, point.variant, 'meta_started') > eventCount(db, point.variant, 'meta_finished');
    case 'staged':
      return resultCount(db, point.variant) > 0;
    case 'full':
      return resultCount(db, point.variant) > stagedResults(db, point.variant);
    default:
      return true;
  }
}

const eventCount = (db: Database.Database, id: number, type: string): number =>
  (
    db.prepare('SELECT COUNT(*) AS n FROM events WHERE variant_id = ? AND type = ?').get(id, type) as {
      n: number;
    }
  ).n;
const resultCount = (db: Database.Database, id: number): number =>
  (db.prepare('SELECT COUNT(*) AS n FROM task_results WHERE variant_id = ?').get(id) as { n: number }).n;
const stagedResults = (db: Database.Database, id: number): number =>
  (
    db
      .prepare(
        "SELECT COALESCE(SUM(n_tasks), 0) AS n FROM evaluations WHERE variant_id = ? AND stage = 'staged'",
      )
      .get(id) as { n: number }
  ).n;

/** Where each variant was when the run was killed: its step, and whether its MetaAgent was mid-run. */
export function positions(
  runDir: string,
): { variant: number; step: string; midMeta: boolean; results: number }[] {
  return (
    readArchive(runDir, (db) =>
      (db.prepare('SELECT id, step FROM variants ORDER BY id').all() as { id: number; step: string }[])
        .filter((v) => v.step !== 'done' && v.step !== 'failed')
        .map((v) => ({
          variant: v.id,
          step: v.step,
          midMeta: eventCount(db, v.id, 'meta_started') > eventCount(db, v.id, 'meta_finished'),
          results: resultCount(db, v.id),
        })),
    ) ?? []
  );
}

/** Polls the archive until `point` is reached (true) or the run ends first (false). Never times out by itself. */
export async function waitFor(runDir: string, run: RunningCli, point: KillPoint): Promise<boolean> {
  let ended = false;
  void run.done.then(() => {
    ended = true;
  });
  for (;;) {
    if (ended) return false;
    if (readArchive(runDir, (db) => reached(db, point)) === true) return true;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

/** The kill points of a run: every step each variant of an uninterrupted run with the same seed went through. */
export function stepsOf(runDir: string): KillPoint[] {
  return (
    readArchive(runDir, (db) =>
      (
        db
          .prepare(
            "SELECT variant_id AS variant, type AS step FROM events WHERE type IN ('selected', 'editing', 'gating', 'staged', 'full') ORDER BY id",
          )
          .all() as KillPoint[]
      ).filter((p, i, all) => all.findIndex((q) => q.variant === p.variant && q.step === p.step) === i),
    ) ?? []
  );
}

/** What must be equal between a resumed run and an uninterrupted one. */
export function outcome(summary: RunSummary) {
  return summary.variants.map((v) => ({
    id: v.id,
    parent: v.parent,
    status: v.status,
    validParent: v.validParent,
    score: v.score,
    scores: v.scores,
  }));
}

/** Task-role model calls in a run's ledger. */
export const taskCalls = (runDir: string): number =>
  readArchive(
    runDir,
    (db) => (db.prepare("SELECT COUNT(*) AS n FROM llm_calls WHERE role = 'task'").get() as { n: number }).n,
  ) ?? 0;

/**
 * Checks every variant row against the variant repo: a variant has a commit exactly when its branch
 * `variant-<id>` exists and points at it, the commit's parent is the parent variant's commit (also stored as
 * `parent_commit`), and the stored task-code hash is that of the commit's tree. Returns the disagreements.
 */
export function repoDisagreements(runDir: string): string[] {
  const gitDir = path.join(runDir, 'variants.git');
  const git = (...args: string[]): string =>
    execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' });
  const branches = new Map(
    git('for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads/')
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  const rows =
    readArchive(runDir, (db) =>
      db.prepare('SELECT id, parent_id, commit_sha, parent_commit, step FROM variants ORDER BY id').all(),
    ) ?? [];
  const variants = rows as {
    id: number;
    parent_id: number | null;
    commit_sha: string | null;
    parent_commit: string | null;
    step: string;
  }[];
  const problems: string[] = [];
  for (const v of variants) {
    if (v.id === 0) continue;
    const branch = branches.get(`variant-${v.id}`) ?? null;
    if (branch !== v.commit_sha) problems.push(`variant ${v.id}: branch ${branch}, row ${v.commit_sha}`);
    const parent = variants.find((p) => p.id === v.parent_id);
    if (v.parent_commit !== parent?.commit_sha)
      problems.push(`variant ${v.id}: parent_commit differs from its parent's commit`);
    if (v.commit_sha !== null && git('rev-parse', `${v.commit_sha}^`).trim() !== v.parent_commit) {
      problems.push(`variant ${v.id}: its commit's parent is not the parent variant's commit`);
    }
  }
  const worktrees = git('worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '));
  if (worktrees.length > 1) problems.push(`worktrees left: ${worktrees.join(', ')}`);
  return problems;
}
