import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { RunFigures } from '../../archive/index.ts';
import { archiveFile, baselineRecordFile, openArchiveReader } from '../../archive/index.ts';
import { UsageError } from '../shared/usage-error.ts';
import { heldOutScores, searchSpend } from './experiment-held-out.ts';
import { type StartedRun, startRun } from './experiment-runs.ts';

/**
 * Budget-matched baselines of `hyperagents experiment`: a configuration whose options are a baseline's
 * name instead of generate-loop options. `best-of-k` spends what the reference configuration's run of
 * the same seed spent (its tasks on the simulated model, its dollars on a real one) on attempts of
 * variant 0 alone, and reports the attempt with the best selection score: what the money buys without
 * evolution. An attempt is variant 0 evaluated under another seed, so each of its answers is drawn (on a
 * real model: asked) afresh; the first attempt has the run's seed, as the evolving run's variant 0 has.
 */
export const BASELINES = ['best-of-k'] as const;
export type BaselineName = (typeof BASELINES)[number];

/**
 * The baseline a configuration (an ExperimentConfig of experiment-args.ts, which calls this while it parses)
 * names, or null for one of generate-loop options. Refuses an unknown name.
 */
export function baselineOf(config: { name: string; args: readonly string[] }): BaselineName | null {
  const [first, ...rest] = config.args;
  if (first === undefined || first.startsWith('-')) return null;
  if (!(BASELINES as readonly string[]).includes(first) || rest.length > 0) {
    throw new UsageError(
      `--config ${config.name}=${config.args.join(' ')}: "${config.args.join(' ')}" is neither generate-loop ` +
        `options (they start with "-") nor a baseline. Known baselines: ${BASELINES.join(', ')}, e.g. ` +
        `--config baseline=best-of-k.`,
    );
  }
  return first as BaselineName;
}

/** The seed of attempt `n` (1-based) of a baseline run with seed `seed`. */
export function attemptSeed(seed: number, n: number): number {
  return seed + 100_000 * (n - 1);
}

/** The run's shared generate-loop options for one attempt: no generations, the test split evaluated. */
export function attemptArgs(loopArgs: readonly string[]): string[] {
  const dropped = new Set(['--generations', '--parallel', '--eval-test']);
  const out: string[] = [];
  for (let i = 0; i < loopArgs.length; i++) {
    const word = loopArgs[i]!;
    const flag = word.split('=')[0]!;
    if (!dropped.has(flag)) out.push(word);
    else if (!word.includes('=') && flag !== '--eval-test') i++;
  }
  return [...out, '--generations', '0', '--eval-test'];
}

const Attempt = z.object({
  seed: z.number().int(),
  /** Variant 0's selection score under that seed (null: it was not scored). */
  score: z.number().nullable(),
  test: z.number().nullable(),
  tasks: z.number().int(),
  costUsd: z.number(),
});
type Attempt = z.infer<typeof Attempt>;

/** baseline.json in a baseline run's folder: its budget and attempts; `done` once the budget is spent. */
const Record_ = z.object({
  baseline: z.enum(BASELINES),
  budget: z.object({ unit: z.enum(['tasks', 'usd']), amount: z.number() }),
  attempts: z.array(Attempt),
  done: z.boolean(),
});
type BaselineRecord = z.infer<typeof Record_>;

export function readBaseline(runDir: string): BaselineRecord | null {
  try {
    const parsed = Record_.safeParse(JSON.parse(readFileSync(baselineRecordFile(runDir), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function writeBaseline(runDir: string, record: BaselineRecord): void {
  mkdirSync(runDir, { recursive: true });
  const tmp = `${baselineRecordFile(runDir)}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(tmp, baselineRecordFile(runDir));
}

/** The index of the attempt with the best score (ties: the earliest), or null when none scored. */
function chosen(attempts: readonly Attempt[]): number | null {
  let best: number | null = null;
  attempts.forEach((a, i) => {
    if (a.score !== null && (best === null || a.score > (attempts[best]!.score ?? -1))) best = i;
  });
  return best;
}

/**
 * A finished baseline run as the experiment summary reads it: each attempt as a "generation", so its
 * best-so-far curve is best-of-k's; held out: the chosen attempt's test score against the first's.
 */
export function baselineFigures(runDir: string, id: string, seed: number): RunFigures | null {
  const record = readBaseline(runDir);
  if (record === null || !record.done) return null;
  const pick = chosen(record.attempts);
  return {
    id,
    seed,
    scores: record.attempts.map((a) => a.score),
    tasksByGeneration: record.attempts.map((a) => a.tasks),
    costUsd: record.attempts.reduce((s, a) => s + a.costUsd, 0),
    heldOut: {
      best: pick === null ? null : (record.attempts[pick]?.test ?? null),
      initial: record.attempts[0]?.test ?? null,
    },
  };
}

export interface BaselineJob {
  runDir: string;
  /** The reference configuration's finished run of the same seed, whose spend is matched. */
  referenceDir: string;
  seed: number;
  loopArgs: readonly string[];
  logBase: string;
  log(line: string): void;
  /** Told of each attempt's process, so a stop reaches it. */
  started(run: StartedRun | null): void;
  signal: AbortSignal;
}

/** What the reference run spent, in the unit matched: tasks on the simulated model, else dollars. */
function budgetOf(referenceDir: string): BaselineRecord['budget'] {
  const reader = openArchiveReader(archiveFile(referenceDir));
  try {
    const spend = searchSpend(reader);
    const simulated = reader.run()?.simulated ?? true;
    return simulated || spend.costUsd <= 0
      ? { unit: 'tasks', amount: spend.tasks }
      : { unit: 'usd', amount: spend.costUsd };
  } finally {
    reader.close();
  }
}

function attemptResult(attemptDir: string, seed: number): Attempt | null {
  if (!existsSync(archiveFile(attemptDir))) return null;
  const reader = openArchiveReader(archiveFile(attemptDir));
  try {
    if (reader.run()?.state !== 'done') return null;
    const spend = searchSpend(reader);
    const held = heldOutScores(reader);
    const v0 = reader.variants().find((v) => v.id === 0);
    return { seed, score: v0?.score ?? null, test: held.initial, tasks: spend.tasks, costUsd: spend.costUsd };
  } finally {
    reader.close();
  }
}

/**
 * Runs (or resumes) one baseline run: attempts until the next one would spend more than the budget
 * left (at least one). Returns whether it finished; a stop or a failed attempt leaves it to be resumed.
 */
export async function runBaseline(job: BaselineJob): Promise<boolean> {
  const record: BaselineRecord = readBaseline(job.runDir) ?? {
    baseline: 'best-of-k',
    budget: budgetOf(job.referenceDir),
    attempts: [],
    done: false,
  };
  writeBaseline(job.runDir, record);
  const attemptsDir = path.join(job.runDir, 'attempts');
  mkdirSync(attemptsDir, { recursive: true });
  const spent = (a: Attempt) => (record.budget.unit === 'tasks' ? a.tasks : a.costUsd);
  while (!record.done) {
    const used = record.attempts.reduce((s, a) => s + spent(a), 0);
    const last = record.attempts.at(-1);
    if (last !== undefined && used + spent(last) > record.budget.amount) {
      record.done = true;
      writeBaseline(job.runDir, record);
      break;
    }
    if (job.signal.aborted) return false;
    const n = record.attempts.length + 1;
    const seed = attemptSeed(job.seed, n);
    const id = `attempt-${n}`;
    const attemptDir = path.join(attemptsDir, id);
    let result = attemptResult(attemptDir, seed);
    if (result === null) {
      const common = [...attemptArgs(job.loopArgs), '--seed', String(seed), '--json', '--quiet'];
      const args = existsSync(attemptDir)
        ? [...common, '--resume', attemptDir]
        : [...common, '--out', attemptsDir, '--run-id', id];
      const run = startRun(args, job.logBase);
      job.started(run);
      const code = await run.done;
      job.started(null);
      result = code === 0 ? attemptResult(attemptDir, seed) : null;
      if (result === null) return false;
    }
    record.attempts.push(result);
    writeBaseline(job.runDir, record);
    const unit = record.budget.unit === 'tasks' ? 'tasks' : 'USD';
    job.log(
      `${path.basename(job.runDir)}: attempt ${n} scored ${result.score ?? '-'} ` +
        `(${record.attempts.reduce((s, a) => s + spent(a), 0)} of ${record.budget.amount} ${unit} spent)`,
    );
  }
  return true;
}
