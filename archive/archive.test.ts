import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Archive, openArchive, type TaskResultInput } from './archive.ts';
import { MIGRATIONS } from './migrations.ts';

let dir: string;
let file: string;
let archive: Archive;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'archive-'));
  file = path.join(dir, 'runs', 'r1', 'archive.sqlite');
  archive = openArchive(file);
});

afterEach(() => {
  archive.close();
  rmSync(dir, { recursive: true, force: true });
});

const tables = (a: Archive): string[] =>
  a.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => (row as { name: string }).name);

const migrations = (a: Archive) =>
  a.db.prepare('SELECT name, applied_at FROM migrations ORDER BY name').all() as {
    name: string;
    applied_at: string;
  }[];

const run = {
  id: 'r1',
  harnessVersion: '0.1.0',
  seed: 7,
  metaModel: 'sim',
  taskModel: 'sim',
  simulated: true,
  domains: ['arithmetic', 'text'],
  config: { generations: 3, parentSelection: 'score_child_prop', budgetUsd: null },
};

const result = (
  taskId: string,
  prediction: unknown,
  extra: Partial<TaskResultInput> = {},
): TaskResultInput => ({
  variantId: 0,
  domain: 'arithmetic',
  split: 'train',
  taskId,
  outcome: 'correct',
  prediction,
  rawOutput: `<json>${JSON.stringify({ response: prediction })}</json>`,
  score: 1,
  error: null,
  latencyMs: 120,
  costUsd: 0.001,
  reused: false,
  codeHash: 'abc123',
  taskModel: 'sim',
  ...extra,
});

describe('migrating an empty database', () => {
  it('creates every table and records the migration', () => {
    expect(tables(archive)).toEqual([
      'acceptance',
      'batch_requests',
      'batches',
      'confirmed_scores',
      'evaluations',
      'events',
      'llm_calls',
      'migrations',
      'noise_floor',
      'runs',
      'task_results',
      'variants',
    ]);
    expect(migrations(archive).map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
    // Shipped names never change; new ones are appended with the next number.
    expect(MIGRATIONS.slice(0, 3).map((m) => m.name)).toEqual([
      '001-initial',
      '002-ledger-details',
      '003-selection-score',
    ]);
    const numbers = MIGRATIONS.map((m) => Number(m.name.slice(0, 3)));
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
  });

  it('uses the WAL journal and enforces foreign keys', () => {
    expect(archive.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(() => archive.insertVariant({ id: 1, parentId: 99, step: 'selected' })).toThrow(/FOREIGN KEY/);
  });

  it('does not run migrations again on reopening, and keeps the data', () => {
    archive.createRun(run);
    archive.insertVariant({ id: 0, parentId: null, step: 'done' });
    const before = migrations(archive);
    archive.close();
    archive = openArchive(file);
    expect(migrations(archive)).toEqual(before);
    expect(archive.getRun()).toMatchObject({ id: 'r1', seed: 7 });
    expect(archive.listVariants().map((v) => v.id)).toEqual([0]);
  });

  it('stays readable by a second connection while open', () => {
    archive.createRun(run);
    const reader = openArchive(file);
    expect(reader.getRun()?.id).toBe('r1');
    reader.close();
  });
});

describe('migrating an archive an older version wrote', () => {
  /** An archive as written before migration `name`: the migrations before it applied and recorded. */
  const writtenBefore = (name: string, rows: string): string => {
    const old = path.join(dir, 'old.sqlite');
    const db = new Database(old);
    db.exec('CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
    for (const m of MIGRATIONS.slice(
      0,
      MIGRATIONS.findIndex((entry) => entry.name === name),
    )) {
      db.exec(m.sql);
      db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?)').run(m.name, 't');
    }
    db.exec(rows);
    db.close();
    return old;
  };

  it('keeps each variant at its step, and a resumed run moves it on from there', () => {
    const old = writtenBefore(
      '007-variant-step',
      `INSERT INTO variants
         (id, parent_id, commit_sha, state, status, valid_parent, selection_score, created_at)
         VALUES (0, NULL, 'c0', 'done', 'evaluated', 1, 0.5, 't'),
           (1, 0, NULL, 'failed', 'rejected', 0, NULL, 't'),
           (2, 0, 'c2', 'staged', 'pending', 0, NULL, 't'),
           (3, 0, NULL, 'editing', 'pending', 0, NULL, 't');`,
    );
    const migrated = openArchive(old);
    try {
      expect(migrations(migrated).map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
      expect(migrated.listVariants().map((v) => [v.id, v.step, v.status])).toEqual([
        [0, 'done', 'evaluated'],
        [1, 'failed', 'rejected'],
        [2, 'staged', 'pending'],
        [3, 'editing', 'pending'],
      ]);
      expect(migrated.getVariant(0)).toMatchObject({
        commitSha: 'c0',
        validParent: true,
        selectionScore: 0.5,
      });
      expect(migrated.variantSteps()).toEqual([
        { id: 0, step: 'done' },
        { id: 1, step: 'failed' },
        { id: 2, step: 'staged' },
        { id: 3, step: 'editing' },
      ]);
      expect(migrated.transitionVariant(3, 'selected', 'editing')).toBe(false);
      expect(migrated.transitionVariant(2, 'staged', 'full')).toBe(true);
      expect(migrated.getVariant(2)).toMatchObject({ step: 'full', commitSha: 'c2' });
    } finally {
      migrated.close();
    }
  });
});

describe('runs', () => {
  it('is empty before a run is created', () => {
    expect(archive.getRun()).toBeUndefined();
  });

  it('round-trips a run with its booleans, lists and config', () => {
    archive.createRun(run);
    expect(archive.getRun()).toMatchObject({
      id: 'r1',
      harnessVersion: '0.1.0',
      seed: 7,
      metaModel: 'sim',
      taskModel: 'sim',
      simulated: true,
      domains: ['arithmetic', 'text'],
      config: run.config,
      status: 'running',
      finishedAt: null,
    });
  });

  it.each(['done', 'failed', 'stopped'] as const)('finishing a run as %s stamps it', (status) => {
    archive.createRun({ ...run, simulated: false });
    archive.finishRun(status);
    const row = archive.getRun()!;
    expect(row.status).toBe(status);
    expect(row.simulated).toBe(false);
    expect(Date.parse(row.finishedAt!)).not.toBeNaN();
  });
});

describe('variants', () => {
  beforeEach(() => {
    archive.insertVariant({ id: 0, parentId: null, step: 'done' });
    archive.insertVariant({
      id: 1,
      parentId: 0,
      step: 'selected',
      selectionReason: 'best: highest score 0.5',
    });
  });

  it('starts a variant pending, not a valid parent, with its parent and reason', () => {
    expect(archive.getVariant(1)).toMatchObject({
      id: 1,
      parentId: 0,
      step: 'selected',
      status: 'pending',
      validParent: false,
      commitSha: null,
      failureReason: null,
      selectionReason: 'best: highest score 0.5',
      finishedAt: null,
    });
    expect(archive.getVariant(0)).toMatchObject({ parentId: null, selectionReason: null });
  });

  it('returns undefined for a variant that does not exist', () => {
    expect(archive.getVariant(42)).toBeUndefined();
  });

  it('moves a variant only from the step it is in, and logs the move with it', () => {
    expect(archive.transitionVariant(1, 'selected', 'editing')).toBe(true);
    // A second process that still believes the variant is in `selected` cannot move it again.
    expect(archive.transitionVariant(1, 'selected', 'editing')).toBe(false);
    expect(archive.transitionVariant(1, 'gating', 'staged')).toBe(false);
    expect(archive.transitionVariant(1, 'editing', 'gating', { commitSha: 'c1', taskCodeHash: 'h1' })).toBe(
      true,
    );
    expect(archive.getVariant(1)).toMatchObject({ step: 'gating', commitSha: 'c1', taskCodeHash: 'h1' });
    const moves = archive.db
      .prepare('SELECT type, data FROM events WHERE variant_id = 1 ORDER BY id')
      .all() as { type: string; data: string }[];
    expect(moves.map((m) => [m.type, JSON.parse(m.data)])).toEqual([
      ['editing', { from: 'selected' }],
      ['gating', { from: 'editing' }],
    ]);
  });

  it('stores the parent commit given at selection and the cause of a failure', () => {
    archive.insertVariant({ id: 2, parentId: 0, step: 'selected', parentCommit: 'p0' });
    archive.transitionVariant(
      2,
      'selected',
      'failed',
      { status: 'failed', failureCause: 'budget' },
      { status: 'failed', reason: 'the budget', cause: 'budget' },
    );
    expect(archive.getVariant(2)).toMatchObject({
      parentCommit: 'p0',
      failureCause: 'budget',
      status: 'failed',
    });
  });

  it.each([
    ['editing', { step: 'editing' }, { step: 'editing' }, false],
    [
      'gating with a commit',
      { step: 'gating', commitSha: 'deadbeef' },
      { step: 'gating', commitSha: 'deadbeef' },
      false,
    ],
    ['a valid parent', { validParent: true }, { validParent: true }, false],
    [
      'done',
      { step: 'done', status: 'evaluated', validParent: true },
      { step: 'done', status: 'evaluated', validParent: true },
      true,
    ],
    [
      'failed with a reason',
      { step: 'failed', status: 'rejected', failureReason: 'typecheck failed', validParent: false },
      { step: 'failed', status: 'rejected', failureReason: 'typecheck failed', validParent: false },
      true,
    ],
    [
      'diff stat and task code hash',
      { diffStat: '{"files":1}', taskCodeHash: 'h1' },
      { diffStat: '{"files":1}', taskCodeHash: 'h1' },
      false,
    ],
    ['an empty patch', {}, { step: 'selected', status: 'pending' }, false],
  ] as const)('updates %s', (_name, patch, expected, finished) => {
    archive.updateVariant(1, patch);
    const row = archive.getVariant(1)!;
    expect(row).toMatchObject(expected);
    expect(row.finishedAt !== null).toBe(finished);
  });

  it('leaves columns a patch does not name', () => {
    archive.updateVariant(1, { commitSha: 'c1', validParent: true });
    archive.updateVariant(1, { step: 'staged' });
    expect(archive.getVariant(1)).toMatchObject({ commitSha: 'c1', validParent: true, step: 'staged' });
  });

  it('lists variants by id', () => {
    archive.insertVariant({ id: 3, parentId: 1, step: 'selected' });
    archive.insertVariant({ id: 2, parentId: 0, step: 'selected' });
    expect(archive.listVariants().map((v) => [v.id, v.parentId])).toEqual([
      [0, null],
      [1, 0],
      [2, 0],
      [3, 1],
    ]);
  });
});

describe('evaluations', () => {
  const evaluation = {
    variantId: 0,
    domain: 'arithmetic',
    split: 'val',
    stage: 'staged',
    score: 0.3,
    nTasks: 10,
    nTotal: 40,
    correct: 3,
    wrong: 5,
    parseFailures: 1,
    errors: 1,
  } as const;

  beforeEach(() => {
    archive.insertVariant({ id: 0, parentId: null, step: 'done' });
    archive.insertVariant({ id: 1, parentId: 0, step: 'done' });
  });

  it('round-trips an evaluation', () => {
    archive.putEvaluation(evaluation);
    const [row, ...rest] = archive.listEvaluations(0);
    expect(rest).toEqual([]);
    expect(row).toMatchObject(evaluation);
    expect(Date.parse(row!.createdAt)).not.toBeNaN();
  });

  it('replaces an evaluation of the same variant, domain, split and stage', () => {
    archive.putEvaluation(evaluation);
    archive.putEvaluation({ ...evaluation, score: 0.6, correct: 6 });
    expect(archive.listEvaluations(0).map((e) => e.score)).toEqual([0.6]);
  });

  it('keeps stages, splits and variants apart', () => {
    archive.putEvaluation(evaluation);
    archive.putEvaluation({ ...evaluation, stage: 'full', nTasks: 40, score: 0.5 });
    archive.putEvaluation({ ...evaluation, split: 'train' });
    archive.putEvaluation({ ...evaluation, variantId: 1, score: 0.9 });
    expect(archive.listEvaluations(0).map((e) => [e.split, e.stage])).toEqual([
      ['train', 'staged'],
      ['val', 'full'],
      ['val', 'staged'],
    ]);
    expect(archive.listEvaluations(1).map((e) => e.score)).toEqual([0.9]);
    expect(archive.listEvaluations().map((e) => e.variantId)).toEqual([0, 0, 0, 1]);
  });
});

describe('task results', () => {
  beforeEach(() => {
    archive.insertVariant({ id: 0, parentId: null, step: 'done' });
  });

  it.each<[string, unknown, string | null]>([
    ['a number', 42, '42'],
    ['a string', '1,200', '"1,200"'],
    ['an object', { value: [1, 'two'], ok: true }, '{"value":[1,"two"],"ok":true}'],
    ['null', null, 'null'],
    ['no prediction', undefined, null],
  ])('round-trips %s as the prediction', (_name, prediction, stored) => {
    archive.putTaskResults([result('train-000', prediction)]);
    const [row] = archive.listTaskResults(0);
    expect(row!.prediction).toBe(stored);
    if (stored !== null) expect(JSON.parse(stored)).toEqual(prediction);
  });

  it('round-trips every field', () => {
    archive.putTaskResults([
      result('train-001', 'x', {
        outcome: 'parse_failure',
        score: 0,
        error: 'no JSON object with "response"',
        latencyMs: null,
        reused: true,
        costUsd: 0.25,
      }),
    ]);
    expect(archive.listTaskResults(0)[0]).toMatchObject({
      variantId: 0,
      domain: 'arithmetic',
      split: 'train',
      taskId: 'train-001',
      outcome: 'parse_failure',
      rawOutput: '<json>{"response":"x"}</json>',
      score: 0,
      error: 'no JSON object with "response"',
      latencyMs: null,
      costUsd: 0.25,
      reused: true,
      codeHash: 'abc123',
      taskModel: 'sim',
    });
  });

  it('filters by domain and split, ordered by task id', () => {
    archive.putTaskResults([
      result('train-002', 2),
      result('train-001', 1),
      result('val-000', 0, { split: 'val' }),
      result('t-000', 'a', { domain: 'text' }),
    ]);
    const ids = (filter: { domain?: string; split?: string }) =>
      archive.listTaskResults(0, filter).map((r) => r.taskId);
    expect(ids({})).toEqual(['train-001', 'train-002', 'val-000', 't-000']);
    expect(ids({ domain: 'arithmetic', split: 'train' })).toEqual(['train-001', 'train-002']);
    expect(ids({ split: 'val' })).toEqual(['val-000']);
    expect(ids({ domain: 'text' })).toEqual(['t-000']);
    expect(archive.listTaskResults(1)).toEqual([]);
  });

  it('replaces the result of a task written twice', () => {
    archive.putTaskResults([result('train-000', 1, { outcome: 'wrong', score: 0 })]);
    archive.putTaskResults([result('train-000', 2)]);
    expect(archive.listTaskResults(0).map((r) => [r.prediction, r.outcome])).toEqual([['2', 'correct']]);
  });

  it('writes a batch all or nothing', () => {
    const bad = { ...result('train-001', 1), outcome: null } as unknown as TaskResultInput;
    expect(() => archive.putTaskResults([result('train-000', 0), bad])).toThrow();
    expect(archive.listTaskResults(0)).toEqual([]);
  });
});

describe('LLM calls and events', () => {
  const call = (costUsd: number, status = 'ok') => ({
    ts: new Date().toISOString(),
    variantId: null,
    role: 'meta',
    model: 'sim',
    usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    costUsd,
    latencyMs: 15,
    status,
  });

  it('totals calls and cost', () => {
    expect(archive.llmTotals()).toEqual({ calls: 0, costUsd: 0, inputTokens: 0, outputTokens: 0 });
    archive.insertLlmCall(call(0.5));
    archive.insertLlmCall({ ...call(0.25, 'error'), error: 'rate limited' });
    expect(archive.llmTotals()).toEqual({ calls: 2, costUsd: 0.75, inputTokens: 200, outputTokens: 40 });
    const rows = archive.db.prepare('SELECT status, error, input_tokens FROM llm_calls ORDER BY id').all();
    expect(rows).toEqual([
      { status: 'ok', error: null, input_tokens: 100 },
      { status: 'error', error: 'rate limited', input_tokens: 100 },
    ]);
  });

  it('sums spend per generation by role and by model, and calls and tokens per variant', () => {
    const of = (variantId: number | null, role: string, model: string, costUsd: number, input: number) => ({
      ...call(costUsd),
      variantId,
      role,
      model,
      usage: { input, output: input / 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    });
    archive.insertLlmCall(of(null, 'select', 'small', 0.001, 10));
    archive.insertLlmCall(of(0, 'task', 'small', 0.25, 100));
    archive.insertLlmCall(of(1, 'meta', 'big', 1, 1000));
    archive.insertLlmCall(of(1, 'task', 'small', 0.25, 100));
    archive.insertLlmCall(of(1, 'task', 'small', 0.5, 200));
    archive.insertLlmCall(of(1, 'meta', 'small', 0.125, 50));
    expect(archive.spendByGeneration()).toEqual([
      {
        generation: null,
        calls: 1,
        costUsd: 0.001,
        cumulativeUsd: 0.001,
        byRole: { select: 0.001 },
        byModel: { small: 0.001 },
      },
      {
        generation: 0,
        calls: 1,
        costUsd: 0.25,
        cumulativeUsd: 0.251,
        byRole: { task: 0.25 },
        byModel: { small: 0.25 },
      },
      {
        generation: 1,
        calls: 4,
        costUsd: 1.875,
        cumulativeUsd: 2.126,
        byRole: { meta: 1.125, task: 0.75 },
        byModel: { big: 1, small: 0.875 },
      },
    ]);
    expect(archive.llmTotalsByVariant().get(1)).toEqual({
      calls: 4,
      costUsd: 1.875,
      inputTokens: 1350,
      outputTokens: 135,
    });
    expect(archive.llmTotals(0)).toEqual({ calls: 1, costUsd: 0.25, inputTokens: 100, outputTokens: 10 });
  });

  it('keeps the model a provider reported beside the one asked for, and counts both per role', () => {
    const of = (role: string, model: string, reportedModel?: string, status = 'ok') => ({
      ...call(0.1, status),
      role,
      model,
      ...(reportedModel === undefined ? {} : { reportedModel }),
    });
    archive.insertLlmCall(of('meta', 'openai/gpt-4o', 'gpt-4o-2024-08-06'));
    archive.insertLlmCall(of('meta', 'openai/gpt-4o', 'gpt-4o-2024-11-20'));
    archive.insertLlmCall(of('meta', 'openai/gpt-4o', 'gpt-4o-2024-08-06'));
    archive.insertLlmCall(of('meta', 'openai/gpt-4o', undefined, 'rate_limit'));
    archive.insertLlmCall(of('task', 'sim', 'sim'));
    expect(archive.listLlmCalls().map((c) => c.reportedModel)).toEqual([
      'gpt-4o-2024-08-06',
      'gpt-4o-2024-11-20',
      'gpt-4o-2024-08-06',
      null,
      'sim',
    ]);
    expect(archive.modelsUsed()).toEqual([
      {
        model: 'openai/gpt-4o',
        role: 'meta',
        calls: 4,
        reported: [
          { model: 'gpt-4o-2024-08-06', calls: 2 },
          { model: 'gpt-4o-2024-11-20', calls: 1 },
        ],
      },
      { model: 'sim', role: 'task', calls: 1, reported: [{ model: 'sim', calls: 1 }] },
    ]);
  });

  it("counts a variant's failed provider attempts and retries", () => {
    const of = (variantId: number | null, status: string, attempts: number) => ({
      ...call(0, status),
      variantId,
      attempts,
    });
    archive.insertLlmCall(of(1, 'ok', 1));
    archive.insertLlmCall(of(1, 'ok', 3)); // two failed attempts, retried, then an answer
    archive.insertLlmCall(of(1, 'rate_limit', 4)); // four failed attempts, the last given up
    archive.insertLlmCall(of(1, 'budget_exceeded', 0)); // refused: no attempt
    archive.insertLlmCall(of(2, 'ok', 5));
    expect(archive.llmFaults(1)).toEqual({ faults: 6, retries: 5 });
    expect(archive.llmFaults(2)).toEqual({ faults: 4, retries: 4 });
    expect(archive.llmFaults(3)).toEqual({ faults: 0, retries: 0 });
  });

  it('logs events with JSON data', () => {
    archive.insertVariant({ id: 0, parentId: null, step: 'done' });
    archive.recordEvent(0, 'failed', { status: 'rejected', reason: 'no change' });
    archive.recordEvent(null, 'interrupted', {});
    const rows = archive.db.prepare('SELECT variant_id, type, data FROM events ORDER BY id').all() as {
      variant_id: number | null;
      type: string;
      data: string;
    }[];
    expect(rows.map((r) => [r.variant_id, r.type, JSON.parse(r.data)])).toEqual([
      [0, 'failed', { status: 'rejected', reason: 'no change' }],
      [null, 'interrupted', {}],
    ]);
  });
});
