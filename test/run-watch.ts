import type Database from 'better-sqlite3';
import { expect } from 'vitest';
import { readArchive } from './kill-points.ts';
import { type CliResult, runCli } from './run-cli.ts';

/** What a test watches of a run from outside while it goes, read from its archive (WAL: never blocking it). */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `hyperagents control RUN ...` on the runs of `runsDir`. */
export const controlIn =
  (runsDir: string) =>
  (...words: string[]) =>
    runCli('hyperagents', ['control', ...words, '--runs', runsDir]);

/** The generations (variant 0 left out), in order, with their step. */
export const generations = (runDir: string) =>
  (readArchive(runDir, (db: Database.Database) =>
    db.prepare('SELECT id, step FROM variants WHERE id > 0 ORDER BY id').all(),
  ) ?? []) as { id: number; step: string }[];
export const ended = (v: { step: string }) => v.step === 'done' || v.step === 'failed';
export const inFlight = (runDir: string) => generations(runDir).filter((v) => !ended(v)).length;

/** What the run's ledger says it spent, in USD. */
export const spentUsd = (runDir: string): number =>
  (
    readArchive(runDir, (db: Database.Database) =>
      db.prepare('SELECT COALESCE(SUM(cost_usd), 0) AS usd FROM llm_calls').get(),
    ) as { usd: number } | null
  )?.usd ?? 0;

export const eventsOf = (runDir: string, type: string) =>
  (
    (readArchive(runDir, (db: Database.Database) =>
      db.prepare('SELECT data FROM events WHERE type = ? ORDER BY id').all(type),
    ) ?? []) as { data: string }[]
  ).map((e) => JSON.parse(e.data) as Record<string, unknown>);

export async function until(what: () => boolean, timeoutMs = 300_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(100);
  }
}

/** Failure reasons of the generations that failed, to tell one a stop cut short from one that failed by itself. */
export const failureReasons = (runDir: string): string[] =>
  (
    (readArchive(runDir, (db: Database.Database) =>
      db.prepare("SELECT failure_reason FROM variants WHERE step = 'failed'").all(),
    ) ?? []) as { failure_reason: string | null }[]
  ).map((r) => r.failure_reason ?? '');

/**
 * The rest of a "pause, SIGKILL, --resume" check, once `resumed` (the resumed process) is started: it reports
 * the pause as carried, finishes the generations under way and starts none; then a budget `margin` USD above
 * the spend and a `resume` control let it spend up to the budget and stop there. Returns the budget set.
 */
export async function resumedWhilePaused(
  runDir: string,
  runId: string,
  resumed: { done: Promise<CliResult> },
  control: (...words: string[]) => Promise<CliResult>,
  margin: number,
): Promise<number> {
  const atKill = generations(runDir).length;
  await until(() => eventsOf(runDir, 'resumed').length === 1);
  expect(eventsOf(runDir, 'resumed')[0]!.carried).toMatchObject({ paused: true });
  await until(() => inFlight(runDir) === 0);
  await sleep(3000);
  expect(generations(runDir).length).toBe(atKill);

  const budget = spentUsd(runDir) + margin;
  expect((await control(runId, 'budget', budget.toFixed(4))).code).toBe(0);
  expect((await control(runId, 'resume')).code).toBe(0);
  const result = await resumed.done;
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toMatch(/budget reached: \$\d+\.\d{4} of \$\d+\.\d{4} spent/);
  expect(generations(runDir).length).toBeGreaterThan(atKill);
  expect(generations(runDir).every(ended)).toBe(true);
  // At most one reply over: far less than one more generation's evaluation.
  expect(spentUsd(runDir)).toBeLessThan(budget + 0.05);
  return budget;
}
