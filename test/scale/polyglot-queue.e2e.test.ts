import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { LANGUAGE_NAMES, type LanguageName, readExercises } from '../../domains/index.ts';
import { PREFIX, PROJECT_VERSION, type TaskJob, taskQueueOf } from '../../queue/index.ts';
import { outcome, readArchive } from '../kill-points.ts';
import { type CliResult, PROJECT_ROOT } from '../run-cli.ts';
import { results, summaryOf, variantDiffs } from './run-rows.ts';
import { scaleRun } from './scale-run.ts';
import type { RunningWorker } from './workers.ts';

/**
 * The Polyglot experiment through the queue: the six-language fixtures, one generation, two workers (one
 * SIGKILLed in the middle of a job), and a coordinator that has no toolchain at all: it runs in a mount
 * namespace where every compiler and interpreter a grader uses is /dev/null (so neither PATH nor an absolute
 * path finds one). Its archive must be the single-machine run's. Then every reference solution of the
 * fixtures goes through the queue (a scripted TaskAgent writes it) and passes, as `domains test` says it
 * does on one machine.
 */
const EXERCISES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism');
const RUN_ARGS = [
  ...['--domains', `exercism:${EXERCISES}`, '--model', 'sim', '--seed', '1', '--generations', '1'],
  // The test split too: the fixtures' Go exercises are all in it.
  ...['--eval-workers', '2', '--eval-test', '--json'],
];
const TOOLCHAINS = ['python3', 'go', 'cargo', 'rustc', 'javac', 'java', 'g++', 'c++', 'cmake'];

const scale = scaleRun('polyglot-queue', RUN_ARGS);

/** generate-loop as a coordinator with no toolchain: each one's file (links followed) hidden behind /dev/null. */
function toolchainFreeCoordinator(args: string[]): { child: ChildProcess; done: Promise<CliResult> } {
  const hidden = new Set(
    TOOLCHAINS.map((name) => path.join('/usr/bin', name))
      .filter((file) => existsSync(file))
      .map((file) => realpathSync(file)),
  );
  const masks = [...hidden].flatMap((file) => ['--ro-bind', '/dev/null', file]);
  const child = spawn(
    '/usr/bin/bwrap',
    [
      ...['--dev-bind', '/', '/', ...masks, '--'],
      ...['/usr/bin/env', 'PATH=/usr/bin:/bin', process.execPath],
      ...[path.join(PROJECT_ROOT, 'bin', 'generate-loop.mjs'), ...args],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

/**
 * Each task result's test output, with what differs between any two gradings of the same files removed (the
 * report's random tokens and signatures, the grading folder's name, durations, the order parallel tests
 * print in).
 */
const logs = (runDir: string) =>
  (
    readArchive(runDir, (db) =>
      db.prepare('SELECT variant_id, task_id, attempt, log FROM task_results ORDER BY 1, 2, 3').all(),
    ) as { variant_id: number; task_id: string; log: string | null }[]
  ).map((row) => ({
    ...row,
    log:
      row.log
        ?.replace(/\b[0-9a-f]{16,}\b/g, 'TOKEN')
        .replace(/task-[A-Za-z0-9]{6}/g, 'task-DIR')
        .replace(/\b\d+(?:\.\d+)?\s?(?:ms|s)\b/g, 'TIME')
        .split('\n')
        .sort()
        .join('\n') ?? null,
  }));

/** The first evaluated task's job one of `workers` is running, and which worker runs it, polled until the run ends. */
/** The queue of `language`'s tasks (workspace tasks go on their language's, queue/routing.ts). */
const languageQueue = (language: LanguageName): Queue =>
  new Queue(taskQueueOf(PROJECT_VERSION, language), {
    connection: { host: '127.0.0.1', port: scale.redis.port },
    prefix: PREFIX,
  });

async function runningJob(
  workers: readonly RunningWorker[],
  run: { child: ChildProcess },
): Promise<{ id: string; language: LanguageName; worker: RunningWorker } | undefined> {
  const queues = LANGUAGE_NAMES.map((language) => ({ language, queue: languageQueue(language) }));
  try {
    while (run.child.exitCode === null) {
      for (const { language, queue } of queues) {
        for (const job of await queue.getActive()) {
          const worker = workers.find((w) => w.name === job.processedBy);
          const smoke = (job.data as TaskJob).request.id.startsWith('smoke-');
          if (worker !== undefined && job.id !== undefined && !smoke) return { id: job.id, language, worker };
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return undefined;
  } finally {
    await Promise.all(queues.map(({ queue }) => queue.close()));
  }
}

/** A shell-quoted string. */
const quote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * A sim script whose TaskAgent, on any exercise of the fixtures, writes the exercise's reference solution
 * in one bash call (found by a starting file that only that exercise has), then answers.
 */
function referenceScript(): string {
  const { tasks } = readExercises(EXERCISES);
  const branches = tasks.map((task) => {
    const files = task.workspace?.files ?? {};
    const [marker, text] = Object.entries(files).find(
      ([rel, body]) => tasks.filter((t) => t.workspace?.files[rel] === body).length === 1,
    ) ?? ['', ''];
    const writes = Object.entries(task.answer.reference).map(
      ([rel, body]) => `mkdir -p "$(dirname ${quote(rel)})" && printf '%s' ${quote(body)} > ${quote(rel)}`,
    );
    return `if [ "$(cat ${quote(marker)} 2>/dev/null)" = "$(printf '%s' ${quote(text)})" ]; then ${writes.join(' && ')}; fi`;
  });
  return JSON.stringify({
    task: [
      {
        content: 'I write the reference solution.',
        toolCalls: [{ name: 'bash', input: { command: branches.join('\n') } }],
      },
      'Done. <json>{"response": "done"}</json>',
    ],
  });
}

describe('a Polyglot run through queue workers', () => {
  it('with a worker killed mid-run and no toolchain on the coordinator, stores what one machine stores', async () => {
    const workers = await scale.workers.restart(2);
    const out = path.join(scale.tmp, 'queued');
    const runDir = path.join(out, 'run');
    const run = toolchainFreeCoordinator([
      ...RUN_ARGS,
      ...['--out', out, '--run-id', 'run', '--queue', scale.redis.url],
    ]);
    const killed = await runningJob(workers, run);
    expect(killed).toBeDefined();
    killed!.worker.child.kill('SIGKILL');
    const survivor = workers.find((w) => w !== killed!.worker)!;
    const finished = await run.done;
    expect(finished.code, finished.stderr).toBe(0);
    expect(outcome(summaryOf(finished.stdout))).toEqual(scale.baseline.outcome);
    expect(results(runDir)).toEqual(scale.baseline.results);
    expect(logs(runDir)).toEqual(logs(path.join(scale.tmp, 'local', 'run')));
    expect(variantDiffs(runDir)).toEqual(scale.baseline.diffs);
    // Every language was graded; the killed worker's job was taken again by the other worker.
    expect(new Set(scale.baseline.results.map((r) => r.task_id.split('/')[0])).size).toBe(6);
    const queue = languageQueue(killed!.language);
    try {
      const job = await queue.getJob(killed!.id);
      expect(await job?.getState()).toBe('completed');
      expect(job?.processedBy).toBe(survivor.name);
    } finally {
      await queue.close();
    }

    // The same run again in the same --out: every result comes from the cache, graded again on a worker
    // (the coordinator still has no toolchain), and scores as the first did.
    await scale.workers.restart(2);
    const again = toolchainFreeCoordinator([
      ...RUN_ARGS,
      ...['--out', out, '--run-id', 'again', '--queue', scale.redis.url],
    ]);
    const reran = await again.done;
    expect(reran.code, reran.stderr).toBe(0);
    expect(outcome(summaryOf(reran.stdout))).toEqual(scale.baseline.outcome);
    const againDir = path.join(out, 'again');
    const reused = readArchive(againDir, (db) =>
      db.prepare('SELECT COUNT(*) AS n, SUM(reused) AS reused FROM task_results WHERE variant_id = 0').get(),
    ) as { n: number; reused: number };
    expect(reused.n).toBeGreaterThan(0);
    expect(reused.reused).toBe(reused.n);
    const scoresOf = (dir: string) =>
      results(dir)
        .filter((r) => r.variant_id === 0)
        .map((r) => [r.task_id, r.split, r.score, r.detail]);
    expect(scoresOf(againDir)).toEqual(scoresOf(runDir));
  }, 900_000);

  it('passes every reference solution of the fixtures through a worker', async () => {
    await scale.workers.restart(2);
    const script = path.join(scale.tmp, 'references.json');
    writeFileSync(script, referenceScript());
    const out = path.join(scale.tmp, 'references');
    // One task at a time, so the script's two replies go to each task in turn.
    const run = toolchainFreeCoordinator([
      ...[
        '--domains',
        `exercism:${EXERCISES}`,
        '--model',
        'sim',
        '--sim-script',
        script,
        '--generations',
        '0',
      ],
      ...[
        '--eval-workers',
        '1',
        '--eval-test',
        '--json',
        '--out',
        out,
        '--run-id',
        'run',
        '--queue',
        scale.redis.url,
      ],
    ]);
    const finished = await run.done;
    expect(finished.code, finished.stderr).toBe(0);
    const rows = results(path.join(out, 'run'));
    expect(rows.map((r) => r.task_id).sort()).toEqual(
      readExercises(EXERCISES)
        .tasks.map((t) => t.id)
        .sort(),
    );
    for (const row of rows) expect(row.outcome, `${row.task_id}: ${row.detail}`).toBe('correct');
  }, 600_000);
});
