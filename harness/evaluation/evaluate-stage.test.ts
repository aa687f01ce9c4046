import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Archive, type EvalCache, openArchive, openEvalCache } from '../../archive/index.ts';
import { defineDomain } from '../../domains/index.ts';
import {
  type DomainTasks,
  type EvaluationTarget,
  evaluateStage,
  unansweredReason,
  unfinishedReason,
} from './evaluate.ts';
import { createTaskLimit } from './task-limit.ts';
import { createTaskPool, type TaskPool } from './task-workers.ts';

/**
 * evaluateStage with real TaskAgent processes (a stand-in speaking the JSON-lines protocol), a real archive
 * and a real write failure of it: what is stored when a stage ends by an error, an interrupt, or with some or
 * every task failed for the infrastructure.
 */

let tmp: string;
let archive: Archive;
let cache: EvalCache;
let pool: TaskPool;

const WORKER = `
const { createInterface } = require('node:readline');
createInterface({ input: process.stdin }).on('line', (line) => {
  const req = JSON.parse(line);
  const { n, mode, ms } = req.input;
  if (mode === 'crash') process.exit(3);
  if (mode === 'pose') {
    process.stdout.write(JSON.stringify({ id: req.id, output: '', error: 'infrastructure: the sandbox died' }) + '\\n');
    return;
  }
  setTimeout(() => {
    process.stdout.write(JSON.stringify({ id: req.id, output: '<json>{"response": ' + n * 2 + '}</json>' }) + '\\n');
  }, ms ?? 0);
});
`;

beforeEach(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'evaluate-stage-'));
  archive = openArchive(path.join(tmp, 'archive.sqlite'));
  archive.insertVariant({ id: 0, parentId: null, step: 'full' });
  cache = openEvalCache(path.join(tmp, 'cache.sqlite'));
  const script = path.join(tmp, 'worker.cjs');
  writeFileSync(script, WORKER);
  pool = createTaskPool({
    size: 2,
    tasksPerWorker: 1,
    command: { file: process.execPath, args: [script], env: { PATH: process.env.PATH ?? '' }, cwd: tmp },
    taskTimeoutMs: 10_000,
    logFile: path.join(tmp, 'task-agent.log'),
  });
});

afterEach(async () => {
  await pool.close();
  cache.close();
  archive.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** `double`: the answer is twice n; task `wrong-*` expects one more, so the TaskAgent gets it wrong. */
function domainTasks(input: Record<string, unknown> = {}, crashing: readonly string[] = []): DomainTasks[] {
  const tasks = (split: string, count: number) =>
    Array.from({ length: count }, (_, n) => {
      const id = n === 0 ? `wrong-${split}` : `${split}-${n}`;
      const mode = crashing.includes(id) ? { mode: 'crash' } : {};
      return { id, input: { n, ...input, ...mode }, answer: n === 0 ? 1 : n * 2 };
    });
  return [
    {
      domain: defineDomain({
        name: 'double',
        description: 'twice a number',
        splits: ['train', 'val'],
        load: () => [],
        answerSchema: z.number(),
        score: (prediction: number, task) => (prediction === task.answer ? 1 : 0),
        stagedSamples: 2,
      }),
      splits: { train: tasks('train', 6), val: tasks('val', 4) },
    },
  ];
}

/** The pool, except that the machine fails the tasks `ids` (as a queue that lost their jobs would): no reply. */
const machineFailing = (ids: readonly string[]): TaskPool => ({
  run: (request) =>
    ids.includes(request.id)
      ? Promise.resolve({ kind: 'infra', reason: 'the queue lost the job after 20 tries', latencyMs: 1 })
      : pool.run(request),
  warm: () => pool.warm(),
  close: () => pool.close(),
});

const target = (over: Partial<EvaluationTarget> = {}): EvaluationTarget => ({
  archive,
  cache,
  pool,
  variantId: 0,
  codeHash: 'code',
  taskModel: 'sim',
  settings: { maxToolCalls: 40 },
  seed: 1,
  cacheable: false,
  limit: createTaskLimit(8),
  grading: { run: () => Promise.reject(new Error('no commands expected')) },
  ...over,
});

const stored = () =>
  archive
    .listTaskResults(0)
    .map((r) => ({ task: `${r.split}/${r.taskId}`, outcome: r.outcome, error: r.error }));

describe('evaluateStage', () => {
  it('keeps each attempt at a task (--eval-repeats), scores their mean, and caches each under its attempt', async () => {
    // Attempt 1's workers answer one more than twice n: every answer of theirs is wrong.
    const offByOne: TaskPool = {
      run: async (request) => {
        const reply = await pool.run(request);
        if (reply.kind !== 'reply') return reply;
        const n = (request.input as { n: number }).n;
        return { ...reply, output: `<json>{"response": ${n * 2 + 1}}</json>` };
      },
      warm: () => pool.warm(),
      close: () => Promise.resolve(),
    };
    const asked: number[] = [];
    const attemptPool = (attempt: number) => {
      asked.push(attempt);
      return Promise.resolve(offByOne);
    };
    const repeated = target({ cacheable: true, attempts: 2, attemptPool });
    const outcome = await evaluateStage(repeated, domainTasks(), 'full', false);
    // val: 3 of 4 right on attempt 0, none on attempt 1 (wrong-val is right there, expecting 1 from n = 0).
    expect(outcome).toEqual({ kind: 'scored', scores: new Map([['double', 0.5]]) });
    const all = archive.listTaskResults(0, { split: 'val', attempt: 'all' });
    expect(all.map((r) => `${r.taskId}#${r.attempt}:${r.outcome}`)).toEqual([
      'val-1#0:correct',
      'val-1#1:wrong',
      'val-2#0:correct',
      'val-2#1:wrong',
      'val-3#0:correct',
      'val-3#1:wrong',
      'wrong-val#0:wrong',
      'wrong-val#1:correct',
    ]);
    expect(archive.listTaskResults(0, { split: 'val' })).toHaveLength(4);
    expect(archive.listEvaluations(0).find((e) => e.split === 'val')).toMatchObject({
      nTasks: 4,
      score: 0.5,
    });
    expect(new Set(asked)).toEqual(new Set([1]));

    // Another variant with the same code reuses each attempt's own answer, without asking a model.
    archive.insertVariant({ id: 1, parentId: 0, step: 'full' });
    const failing: TaskPool = {
      run: () => Promise.reject(new Error('no model call expected')),
      warm: () => undefined,
      close: () => Promise.resolve(),
    };
    await evaluateStage(
      target({
        variantId: 1,
        cacheable: true,
        attempts: 2,
        pool: failing,
        attemptPool: () => Promise.resolve(failing),
      }),
      domainTasks(),
      'full',
      false,
    );
    const reused = archive.listTaskResults(1, { split: 'val', attempt: 'all' });
    expect(reused.map((r) => `${r.taskId}#${r.attempt}:${r.outcome}:${r.reused}`)).toContain(
      'val-1#1:wrong:true',
    );
    expect(reused.map((r) => `${r.taskId}#${r.attempt}:${r.outcome}`)).toEqual(
      all.map((r) => `${r.taskId}#${r.attempt}:${r.outcome}`),
    );
  });

  it('stores every task result and one evaluation row per split, and returns the selection score', async () => {
    const outcome = await evaluateStage(target(), domainTasks(), 'full', false);
    expect(outcome).toEqual({ kind: 'scored', scores: new Map([['double', 0.75]]) });
    expect(stored()).toHaveLength(10);
    expect(archive.listEvaluations(0).map((e) => [e.split, e.nTasks, e.correct, e.wrong])).toEqual([
      ['train', 6, 5, 1],
      ['val', 4, 3, 1],
    ]);
  });

  it("costs each task what the TaskAgent's calls naming it cost; a reused result costs nothing", async () => {
    const spent = (variantId: number, role: string, costUsd: number, task?: { domain: string; id: string }) =>
      archive.insertLlmCall({
        ts: new Date().toISOString(),
        ...{ variantId, role, model: 'sim', costUsd, latencyMs: 1, status: 'ok', task },
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      });
    spent(0, 'task', 0.01, { domain: 'double', id: 'train-1' });
    spent(0, 'task', 0.02, { domain: 'double', id: 'train-1' });
    spent(0, 'task', 0.05, { domain: 'double', id: 'val-1' });
    // Not this task's: another domain's task of the same id, the MetaAgent, another variant, no task named.
    spent(0, 'task', 1, { domain: 'other', id: 'train-1' });
    spent(0, 'meta', 2, { domain: 'double', id: 'train-1' });
    spent(1, 'task', 4, { domain: 'double', id: 'train-1' });
    spent(0, 'task', 8);
    const costs = (variantId: number) =>
      new Map(
        archive.listTaskResults(variantId).map((r) => [`${r.split}/${r.taskId}`, [r.costUsd, r.reused]]),
      );
    await evaluateStage(target({ cacheable: true }), domainTasks(), 'full', false);
    expect(costs(0).get('train/train-1')?.[0]).toBeCloseTo(0.03, 10);
    expect(costs(0).get('val/val-1')).toEqual([0.05, false]);
    expect(costs(0).get('train/train-2')).toEqual([0, false]);
    const trainOne = archive.listTaskResults(0).find((r) => r.taskId === 'train-1');
    expect([trainOne?.inputTokens, trainOne?.outputTokens]).toEqual([20, 10]);
    archive.insertVariant({ id: 1, parentId: 0, step: 'full' });
    await evaluateStage(target({ cacheable: true, variantId: 1 }), domainTasks(), 'full', false);
    expect([...costs(1).values()]).toHaveLength(10);
    for (const [cost, reused] of costs(1).values()) expect([cost, reused]).toEqual([0, true]);
    for (const r of archive.listTaskResults(1)) expect([r.inputTokens, r.outputTokens]).toEqual([0, 0]);
  });

  it('a task that failed for the infrastructure is no result: never a stored 0, and the stage is left for resume', async () => {
    const outcome = await evaluateStage(
      target({ pool: machineFailing(['val-1']) }),
      domainTasks(),
      'full',
      false,
    );
    expect(outcome.kind).toBe('unfinished');
    expect(outcome.kind === 'unfinished' && outcome.failed).toBe(1);
    expect(outcome.kind === 'unfinished' && outcome.reason).toBe(
      '1 task could not be run: the queue lost the job after 20 tries (1 task); the stage is left for resume',
    );
    // The other nine answers are kept; the failed task has no row, and the stage no score.
    expect(stored().map((r) => r.task)).not.toContain('val/val-1');
    expect(stored()).toHaveLength(9);
    expect(archive.listEvaluations(0)).toEqual([]);
    // Run again where the task can run (the machine works again): only it is asked, and the score is
    // the one the stage has without the fault (val: 3 of 4 right), not one lowered by a zero.
    let asked = 0;
    const resumed = await evaluateStage(
      target({
        onTask: (_done, total) => {
          asked = total;
        },
      }),
      domainTasks(),
      'full',
      false,
    );
    expect(asked).toBe(1);
    expect(resumed).toEqual({ kind: 'scored', scores: new Map([['double', 0.75]]) });
    const val = archive.listEvaluations(0).find((e) => e.split === 'val');
    expect(val).toMatchObject({ nTasks: 4, correct: 3, wrong: 1, errors: 0 });
  });

  it('an infrastructure failure an earlier version stored as a 0 is run again, not counted', async () => {
    archive.putTaskResults([
      {
        variantId: 0,
        domain: 'double',
        split: 'val',
        taskId: 'val-1',
        codeHash: 'code',
        taskModel: 'sim',
        outcome: 'error',
        prediction: undefined,
        rawOutput: '',
        score: 0,
        error:
          'infrastructure: queue job failed after 20 tries: the coordinator has not published its gateway',
        detail: null,
        latencyMs: 1,
        costUsd: 0,
        reused: false,
      },
    ]);
    const outcome = await evaluateStage(target(), domainTasks(), 'full', false);
    expect(outcome).toEqual({ kind: 'scored', scores: new Map([['double', 0.75]]) });
    expect(stored().find((r) => r.task === 'val/val-1')).toEqual({
      task: 'val/val-1',
      outcome: 'correct',
      error: null,
    });
  });

  it("a TaskAgent whose own errors read like the harness's infrastructure failures is scored, not excused", async () => {
    const outcome = await evaluateStage(target(), domainTasks({ mode: 'pose' }), 'full', false);
    expect(outcome).toEqual({ kind: 'scored', scores: new Map([['double', 0]]) });
    expect(stored().every((r) => r.error === 'TaskAgent error: infrastructure: the sandbox died')).toBe(true);
  });

  it('a result it cannot store ends the stage: nothing that arrives after is stored, and no evaluation row', async () => {
    let results = 0;
    const failing = evaluateStage(
      target({
        // The archive refuses writes after the second result (a real SQLite write failure, as on a full disk).
        onTask: () => {
          if (++results === 2) archive.db.pragma('query_only = ON');
        },
      }),
      domainTasks({ ms: 200 }),
      'full',
      false,
    );
    await expect(failing).rejects.toThrow(/readonly/);
    // Writes work again (a full disk can take a small write again) while the tasks in flight are answered;
    // then the pool is closed under the tasks still waiting, as the generation's session does once its step threw.
    archive.db.pragma('query_only = OFF');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await pool.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stored()).toHaveLength(2);
    expect(stored().every((r) => r.outcome === 'correct' || r.outcome === 'wrong')).toBe(true);
    expect(archive.listEvaluations(0)).toEqual([]);
  });

  it('an interrupt keeps the results that arrived, stores none after, and writes no evaluation row', async () => {
    const interrupt = new AbortController();
    let results = 0;
    const outcome = await evaluateStage(
      target({
        signal: interrupt.signal,
        onTask: () => {
          if (++results === 3) interrupt.abort();
        },
      }),
      domainTasks({ ms: 100 }),
      'full',
      false,
    );
    expect(outcome).toEqual({ kind: 'interrupted' });
    expect(stored()).toHaveLength(3);
    expect(archive.listEvaluations(0)).toEqual([]);
    // A later run of the stage asks only the rest and scores them all.
    const resumed = await evaluateStage(target(), domainTasks(), 'full', false);
    expect(resumed).toEqual({ kind: 'scored', scores: new Map([['double', 0.75]]) });
    expect(archive.listEvaluations(0).map((e) => e.nTasks)).toEqual([6, 4]);
  });

  it('every task failed for the infrastructure: no score, the cause named, no task row', async () => {
    const all = ['wrong-train', 'train-1', 'wrong-val', 'val-1'];
    const outcome = await evaluateStage(
      target({ pool: machineFailing(all) }),
      domainTasks(),
      'staged',
      false,
    );
    expect(outcome).toEqual({
      kind: 'unanswered',
      reason:
        'every one of its 4 tasks failed before answering: the queue lost the job after 20 tries (4 tasks)',
    });
    expect(stored()).toEqual([]);
    expect(archive.listEvaluations(0)).toEqual([]);
  });

  it('a TaskAgent that crashes on a task twice has that as its result: an error that counts 0', async () => {
    const outcome = await evaluateStage(target(), domainTasks({}, ['val-1']), 'full', false);
    // val: 2 of 4 right (wrong-val is wrong, val-1 crashed): the crash is the variant's, not excused.
    expect(outcome).toEqual({ kind: 'scored', scores: new Map([['double', 0.5]]) });
    const crashed = stored().find((r) => r.task === 'val/val-1');
    expect(crashed?.outcome).toBe('error');
    expect(crashed?.error).toMatch(
      /^the TaskAgent failed on this task: TaskAgent exited \(code 3\).*\(after one retry\)$/,
    );
    expect(archive.listEvaluations(0).find((e) => e.split === 'val')).toMatchObject({ nTasks: 4, errors: 1 });
  });

  it('a TaskAgent that crashes on every task: no score, the cause named', async () => {
    const all = ['wrong-train', 'train-1', 'wrong-val', 'val-1'];
    const outcome = await evaluateStage(target(), domainTasks({}, all), 'staged', false);
    expect(outcome.kind).toBe('unanswered');
    expect(outcome.kind === 'unanswered' && outcome.reason).toMatch(
      /^every one of its 4 tasks failed before answering: TaskAgent exited \(code 3\).*\(after one retry\) \(4 tasks\)$/,
    );
    expect(archive.listEvaluations(0)).toEqual([]);
  });

  it('a pool closed under a stage (a bug) stores no placeholder and fails the stage', async () => {
    const running = evaluateStage(
      target({ onTask: () => void pool.close() }),
      domainTasks({ ms: 100 }),
      'full',
      false,
    );
    await expect(running).rejects.toThrow(/ended with \d+ of 6 double train tasks unanswered/);
    expect(stored().every((r) => r.error === null)).toBe(true);
    expect(archive.listEvaluations(0)).toEqual([]);
  });
});

describe('two evaluations at once under one task limit', () => {
  /** The real pool, counting the tasks handed to it and not yet answered: the most at once is kept. */
  const counted = (inner: TaskPool, seen: { now: number; most: number }): TaskPool => ({
    async run(request) {
      seen.now += 1;
      seen.most = Math.max(seen.most, seen.now);
      try {
        return await inner.run(request);
      } finally {
        seen.now -= 1;
      }
    },
    warm: () => inner.warm(),
    close: () => inner.close(),
  });

  it('never has more tasks in flight across both than --eval-workers, and scores both in full', async () => {
    archive.insertVariant({ id: 1, parentId: 0, step: 'full' });
    const [first, second] = [0, 1].map((id) =>
      createTaskPool({
        size: 4,
        tasksPerWorker: 1,
        command: {
          file: process.execPath,
          args: [path.join(tmp, 'worker.cjs')],
          env: { PATH: process.env.PATH ?? '' },
          cwd: tmp,
        },
        taskTimeoutMs: 10_000,
        logFile: path.join(tmp, `task-agent-${id}.log`),
      }),
    ) as [TaskPool, TaskPool];
    const seen = { now: 0, most: 0 };
    const limit = createTaskLimit(3);
    try {
      const outcomes = await Promise.all(
        [first, second].map((p, id) =>
          evaluateStage(
            target({ pool: counted(p, seen), variantId: id, limit }),
            domainTasks({ ms: 50 }),
            'full',
            false,
          ),
        ),
      );
      expect(outcomes.map((o) => o.kind)).toEqual(['scored', 'scored']);
      expect(archive.listTaskResults(0)).toHaveLength(10);
      expect(archive.listTaskResults(1)).toHaveLength(10);
      // Each pool alone would take 4, both together 8: the shared limit holds them to 3.
      expect(seen.most).toBe(3);
      expect(seen.now).toBe(0);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

describe('unansweredReason', () => {
  it.each([
    [['a'], 'every one of its 1 tasks failed before answering: a (1 task)'],
    [['b', 'a', 'b'], 'every one of its 3 tasks failed before answering: b (2 tasks); a (1 task)'],
    [
      ['a', 'b', 'c', 'd', 'd'],
      'every one of its 5 tasks failed before answering: d (2 tasks); a (1 task); b (1 task); and 1 other reasons',
    ],
  ])('%j', (reasons, expected) => {
    expect(unansweredReason(reasons)).toBe(expected);
  });
});

describe('unfinishedReason', () => {
  it.each([
    [['a'], '1 task could not be run: a (1 task); the stage is left for resume'],
    [['b', 'a', 'b'], '3 tasks could not be run: b (2 tasks); a (1 task); the stage is left for resume'],
  ])('%j', (reasons, expected) => {
    expect(unfinishedReason(reasons)).toBe(expected);
  });
});
