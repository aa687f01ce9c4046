import path from 'node:path';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareLoop } from '../../cli/loop/loop-prepare.ts';
import type { LanguageName } from '../../domains/index.ts';
import type { RunSummary } from '../../harness/run/index.ts';
import type { QueueStatus } from '../../queue/index.ts';
import { openCoordinator, PREFIX, PROJECT_VERSION, parseRedisUrl, taskQueueOf } from '../../queue/index.ts';
import { outcome, readArchive } from '../kill-points.ts';
import { runCli } from '../run-cli.ts';
import { runQueued } from './queued-run.ts';
import { results, simRunArgs } from './run-rows.ts';
import { scaleRun } from './scale-run.ts';
import { type RunningWorker, startWorker } from './workers.ts';

/**
 * Routing by language, at the level of the queue: the sim run's evaluated tasks are routed as tasks of one
 * Polyglot language (the coordinator's `languageOf`), so they go on that language's queue. Two real workers whose languages differ take them; the archive must equal the
 * single-machine run's.
 */
const RUN_ARGS = simRunArgs(1);
const scale = scaleRun('toolchains', RUN_ARGS);
const started: RunningWorker[] = [];

afterEach(async () => {
  for (const worker of started.splice(0)) await worker.stop();
});

async function worker(languages: string): Promise<RunningWorker> {
  const running = await startWorker(scale.redis.url, ['--languages', languages]);
  started.push(running);
  return running;
}

/** generate-loop --queue in this process, its tasks sent as `language`'s; its summary and progress lines. */
async function queuedRun(out: string, language: LanguageName, progress: string[]): Promise<RunSummary> {
  const prepared = await prepareLoop([...RUN_ARGS, '--out', out, '--run-id', 'run']);
  if (prepared === 'help' || prepared === 'version') throw new Error('not a run');
  const parsed = parseRedisUrl(scale.redis.url);
  if (!parsed.ok) throw new Error(parsed.message);
  // Every evaluated task (not the gate's smoke task) goes on `language`'s queue.
  const coordinator = await openCoordinator({
    target: parsed.target,
    version: PROJECT_VERSION,
    gatewayUrl: null,
    languageOf: (request) => (request.id.startsWith('smoke-') ? null : language),
  });
  try {
    return await runQueued(prepared, coordinator, (line) => progress.push(line));
  } finally {
    await coordinator.close();
  }
}

/** The workers that ran the completed jobs of `language`'s queue, by name. */
async function ranBy(language: LanguageName): Promise<string[]> {
  const queue = new Queue(taskQueueOf(PROJECT_VERSION, language), {
    connection: { host: '127.0.0.1', port: scale.redis.port },
    prefix: PREFIX,
  });
  try {
    return [...new Set((await queue.getCompleted(0, -1)).map((job) => job.processedBy ?? '?'))];
  } finally {
    await queue.close();
  }
}

async function waitFor(what: string, done: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('workers of different languages', () => {
  it('shows each worker its languages in queue status, and a language only one worker grades goes to that one', async () => {
    const pythonOnly = await worker('python');
    const withGo = await worker('python,go');
    expect(pythonOnly.log()).toMatch(
      /grades: python \(Python [\d.]+, pytest [\d.]+\); left out with --languages: go, rust, cpp, java, javascript, typescript/,
    );
    const status = await runCli('hyperagents', ['queue', 'status', '--queue', scale.redis.url, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout) as QueueStatus;
    const grades = (name: string) =>
      (parsed.toolchains[name] ?? []).filter((t) => t.ok).map((t) => t.language);
    expect(grades(pythonOnly.name)).toEqual(['python']);
    expect(grades(withGo.name)).toEqual(['python', 'go']);
    const text = await runCli('hyperagents', ['queue', 'status', '--queue', scale.redis.url]);
    expect(text.stdout).toMatch(
      new RegExp(`${withGo.name}: grades: python \\(Python [\\d.]+, pytest [\\d.]+\\), go \\(go1`),
    );

    const out = path.join(scale.tmp, 'go');
    const summary = await queuedRun(out, 'go', []);
    expect(outcome(summary)).toEqual(scale.baseline.outcome);
    expect(results(path.join(out, 'run'))).toEqual(scale.baseline.results);
    expect(await ranBy('go')).toEqual([withGo.name]);
  });

  it('keeps the tasks of a language no worker grades waiting, says so once, and runs them when a worker that can connects', async () => {
    await worker('python');
    await worker('python,go');
    const progress: string[] = [];
    const out = path.join(scale.tmp, 'rust');
    const run = queuedRun(out, 'rust', progress);
    const waiting = (): string[] => progress.filter((l) => / rust tasks? waits?: /.test(l));
    await waitFor('the waiting message', () => waiting().length > 0);
    expect(waiting()[0]).toMatch(
      /^\d+ rust tasks? waits?: no connected worker can grade rust \(it needs cargo, rustc: apt-get install rustc cargo, or npm run setup -- --polyglot\); they run when a worker that can connects$/,
    );
    // It stays waiting: nothing failed or scored, and the message is not repeated.
    await new Promise((r) => setTimeout(r, 5000));
    expect(waiting()).toHaveLength(1);
    expect(results(path.join(out, 'run'))).toEqual([]);
    const recorded = readArchive(path.join(out, 'run'), (db) =>
      db.prepare("SELECT data FROM events WHERE type = 'tasks_waiting'").all(),
    );
    expect(recorded).toHaveLength(1);

    const withRust = await worker('rust');
    const summary = await run;
    expect(progress).toContain('a worker that can grade rust connected: its waiting tasks run now');
    expect(outcome(summary)).toEqual(scale.baseline.outcome);
    expect(results(path.join(out, 'run'))).toEqual(scale.baseline.results);
    expect(await ranBy('rust')).toEqual([withRust.name]);
  });
});
