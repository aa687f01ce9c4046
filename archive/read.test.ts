import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openArchive } from './archive.ts';
import { bestVariant, foldScores, lineageOf, openArchiveReader, variantOutcome } from './read.ts';
import { findRun, readAgentFile, runById, runLockFile } from './run-folder.ts';
import { writeSyntheticRun } from './testing/synthetic-run.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'read-'));

describe('pure helpers', () => {
  it.each([
    ['done', 'evaluated', 'evaluated'],
    ['done', 'staged_only', 'staged_only'],
    ['failed', 'rejected', 'rejected'],
    ['failed', 'failed', 'failed'],
    ['editing', 'pending', 'in_progress'],
    ['some-new-step', 'pending', 'in_progress'],
  ])('variantOutcome(%s, %s) = %s', (step, status, outcome) =>
    expect(variantOutcome({ step, status })).toBe(outcome),
  );

  it('foldScores prefers the full stage over the staged sample, whatever the order', () => {
    const row = (stage: 'staged' | 'full', score: number) => ({
      variantId: 1,
      domain: 'dataset:qa.csv',
      split: 'train' as const,
      stage,
      score,
      nTasks: 10,
      nTotal: 50,
      correct: 1,
      wrong: 0,
      parseFailures: 0,
      errors: 0,
      createdAt: '',
    });
    expect(foldScores([row('full', 0.7), row('staged', 0.2)])['dataset:qa.csv']?.train?.score).toBe(0.7);
    expect(foldScores([row('staged', 0.2), row('full', 0.7)])['dataset:qa.csv']?.train?.score).toBe(0.7);
    expect(foldScores([row('staged', 0.2)])['dataset:qa.csv']?.train?.stage).toBe('staged');
  });

  it('bestVariant takes the highest stored score, the earlier variant on a tie', () => {
    expect(bestVariant([])).toBeNull();
    expect(
      bestVariant([
        { id: 0, score: 0.4 },
        { id: 1, score: null },
        { id: 2, score: 0.6 },
        { id: 3, score: 0.6 },
      ]),
    ).toEqual({ id: 2, score: 0.6 });
  });

  it('lineageOf walks from the root to the variant', () => {
    const vs = [
      { id: 0, parent: null },
      { id: 1, parent: 0 },
      { id: 2, parent: 0 },
      { id: 3, parent: 2 },
    ];
    expect(lineageOf(vs, 3).map((v) => v.id)).toEqual([0, 2, 3]);
    expect(lineageOf(vs, 9)).toEqual([]);
  });
});

describe('openArchiveReader', () => {
  it('never creates a file', () => {
    const dir = tmp();
    expect(() => openArchiveReader(path.join(dir, 'archive.sqlite'))).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reads a run that is still being written, and sees later writes', () => {
    const dir = tmp();
    const writer = openArchive(path.join(dir, 'archive.sqlite'));
    writer.createRun({
      id: 'r1',
      harnessVersion: 'x',
      seed: 1,
      metaModel: 'sim',
      taskModel: 'sim',
      simulated: true,
      domains: ['arithmetic'],
      config: { generations: 3 },
    });
    writer.insertVariant({ id: 0, parentId: null, step: 'selected' });
    const reader = openArchiveReader(path.join(dir, 'archive.sqlite'));
    // Nobody holds the run: its process died while it was running.
    expect(reader.run()?.state).toBe('interrupted');
    writeFileSync(runLockFile(dir), `${process.pid}\n`);
    const before = reader.changeMark();
    expect(reader.run()).toMatchObject({
      id: 'r1',
      state: 'running',
      simulated: true,
      generationsPlanned: 3,
      best: null,
    });
    expect(reader.variants()[0]).toMatchObject({
      id: 0,
      step: 'selected',
      outcome: 'in_progress',
      score: null,
    });
    writer.updateVariant(0, { step: 'done', status: 'evaluated', selectionScore: 0.5 });
    writer.recordEvent(0, 'done', { status: 'evaluated', score: 0.5 });
    expect(reader.changeMark()).not.toBe(before);
    expect(reader.run()?.best).toEqual({ id: 0, score: 0.5 });
    writer.finishRun('stopped');
    expect(reader.run()?.state).toBe('stopped');
    reader.close();
    writer.close();
  });

  it('reads a running run whose process is gone (its lock names a dead pid) as interrupted', () => {
    const runs = tmp();
    const dir = writeSyntheticRun(runs, { id: 'r1', variants: 2, status: 'running' });
    const reader = openArchiveReader(path.join(dir, 'archive.sqlite'));
    expect(reader.run()?.state).toBe('running');
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(runLockFile(dir), `${gone}\n`);
    expect(reader.run()?.state).toBe('interrupted');
    reader.close();
  });

  it('reads an archive from before the selection score and the step column without migrating it', () => {
    const dir = tmp();
    const file = path.join(dir, 'archive.sqlite');
    const db = new Database(file);
    db.exec(`CREATE TABLE runs (id TEXT, created_at TEXT, harness_version TEXT, seed INTEGER, meta_model TEXT,
      task_model TEXT, simulated INTEGER, domains TEXT, config TEXT, status TEXT, finished_at TEXT);
      CREATE TABLE variants (id INTEGER PRIMARY KEY, parent_id INTEGER, commit_sha TEXT, state TEXT, status TEXT,
      valid_parent INTEGER, failure_reason TEXT, diff_stat TEXT, task_code_hash TEXT, selection_reason TEXT,
      created_at TEXT, finished_at TEXT);
      CREATE TABLE evaluations (variant_id INTEGER, domain TEXT, split TEXT, stage TEXT, score REAL, n_tasks INTEGER,
      n_total INTEGER, correct INTEGER, wrong INTEGER, parse_failures INTEGER, errors INTEGER, created_at TEXT);
      CREATE TABLE llm_calls (id INTEGER PRIMARY KEY, ts TEXT, variant_id INTEGER, role TEXT, model TEXT,
      input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER,
      reasoning_tokens INTEGER, cost_usd REAL, latency_ms INTEGER, status TEXT, error TEXT);
      INSERT INTO variants VALUES (0, NULL, 'abc', 'done', 'evaluated', 1, NULL, NULL, NULL, NULL, 't', 't');
      INSERT INTO llm_calls VALUES (1, 't', 0, 'meta', 'sim', 1, 1, 0, 0, 0, 0, 1, 'ok', NULL);`);
    db.close();
    const size = statSync(file).size;
    const reader = openArchiveReader(file);
    expect(reader.variants()).toMatchObject([{ id: 0, step: 'done', score: null, outcome: 'evaluated' }]);
    expect(reader.modelsUsed()).toEqual([{ model: 'sim', role: 'meta', calls: 1, reported: [] }]);
    expect(reader.llmCalls()).toMatchObject([{ model: 'sim', reportedModel: null }]);
    reader.close();
    expect(statSync(file).size).toBe(size);
    const check = new Database(file, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'migrations'").get()).toBeUndefined();
    check.close();
  });

  it('reads scores, lineage, failed tasks, calls and spend of a run', () => {
    const runs = tmp();
    const dir = writeSyntheticRun(runs, {
      id: 'syn',
      variants: 12,
      seed: 4,
      domains: ['arithmetic', 'dataset:a.csv'],
    });
    const reader = openArchiveReader(path.join(dir, 'archive.sqlite'));
    const variants = reader.variants();
    expect(variants).toHaveLength(12);
    const scored = variants.filter((v) => v.score !== null);
    expect(scored.length).toBeGreaterThan(0);
    for (const v of scored) expect(Object.keys(v.scores).sort()).toEqual(['arithmetic', 'dataset:a.csv']);
    const last = scored.at(-1)!;
    const line = reader.lineage(last.id);
    expect(line[0]?.id).toBe(0);
    expect(line.at(-1)?.id).toBe(last.id);
    const failed = reader.taskResults(last.id, { failedOnly: true });
    expect(failed.every((t) => t.outcome !== 'correct')).toBe(true);
    expect(failed.length).toBe(
      Object.values(last.scores).reduce((n, s) => n + Object.values(s).reduce((m, x) => m + x.wrong, 0), 0),
    );
    const spend = reader.spendOverTime();
    expect(spend.at(-1)?.costUsd).toBeCloseTo(reader.run()!.costUsd, 10);
    expect(reader.llmCalls(last.id)).toHaveLength(1);
    reader.close();
  });
});

describe('run folders', () => {
  it('finds runs by id only inside the runs folder: no separators, no .., no symbolic links', () => {
    const root = tmp();
    const runs = path.join(root, 'runs');
    writeSyntheticRun(runs, { id: 'good', variants: 1 });
    writeSyntheticRun(root, { id: 'outside', variants: 1 });
    symlinkSync(path.join(root, 'outside'), path.join(runs, 'linked'));
    expect(runById(runs, 'good')).toMatchObject({ ok: true, id: 'good' });
    for (const bad of ['../outside', '..', '.', 'linked', '%2e%2e', 'good/../../outside', '/etc', '']) {
      const found = runById(runs, bad);
      expect(found).toMatchObject({ ok: false, known: ['good'] });
    }
    expect(findRun(runs, path.join(root, 'outside'))).toMatchObject({ ok: true, id: 'outside' });
    expect(findRun(runs, 'nope')).toMatchObject({ ok: false, known: ['good'] });
  });

  it('reads agent-written files without following links', () => {
    const dir = tmp();
    mkdirSync(path.join(dir, 'logs', 'variant-1'), { recursive: true });
    writeFileSync(path.join(dir, 'secret.txt'), 'secret');
    writeFileSync(path.join(dir, 'logs', 'variant-1', 'ok.json'), '{}');
    symlinkSync(path.join(dir, 'secret.txt'), path.join(dir, 'logs', 'variant-1', 'meta-transcript.json'));
    symlinkSync(path.join(dir, 'logs', 'variant-1'), path.join(dir, 'logs', 'variant-2'));
    expect(readAgentFile(dir, ['logs', 'variant-1', 'ok.json'])).toBe('{}');
    expect(readAgentFile(dir, ['logs', 'variant-1', 'meta-transcript.json'])).toBeNull();
    expect(readAgentFile(dir, ['logs', 'variant-2', 'ok.json'])).toBeNull();
    expect(readAgentFile(dir, ['logs', 'variant-1', 'missing.json'])).toBeNull();
    expect(existsSync(path.join(dir, 'logs', 'variant-1', 'missing.json'))).toBe(false);
  });
});
