import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CachedResult, type CacheKey, type EvalCache, openEvalCache } from './eval-cache.ts';

let dir: string;
let file: string;
let cache: EvalCache;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'eval-cache-'));
  file = path.join(dir, 'eval-cache.sqlite');
  cache = openEvalCache(file);
});

afterEach(() => {
  cache.close();
  rmSync(dir, { recursive: true, force: true });
});

const key: CacheKey = {
  codeHash: 'c0ffee',
  domain: 'arithmetic',
  split: 'train',
  taskId: 'train-000',
  taskHash: 'a1b2',
  graderVersion: '1',
  taskModel: 'sim',
  settingsHash: '5e771n65',
  seed: 0,
  attempt: 0,
};

const result: CachedResult = {
  outcome: 'correct',
  prediction: '1,200',
  rawOutput: '<json>{"response": "1,200"}</json>',
  score: 1,
  error: null,
  latencyMs: 340,
  costUsd: 0.002,
};

describe('openEvalCache', () => {
  it('misses before anything is stored', () => {
    expect(cache.get(key)).toBeUndefined();
  });

  it.each<[string, Partial<CachedResult>]>([
    ['a correct answer', {}],
    ['an object prediction', { prediction: { value: [1, 2] } }],
    ['a null prediction', { prediction: null }],
    [
      'a parse failure without prediction',
      { outcome: 'parse_failure', prediction: undefined, score: 0, error: 'no JSON' },
    ],
    ['a wrong answer without latency', { outcome: 'wrong', prediction: 7, score: 0, latencyMs: null }],
  ])('round-trips %s', (_name, patch) => {
    const stored = { ...result, ...patch };
    cache.put(key, stored);
    expect(cache.get(key)).toEqual(stored);
  });

  it.each<[string, Partial<CacheKey>]>([
    ['another seed', { seed: 1 }],
    ['another code hash', { codeHash: 'beef' }],
    ['another task model', { taskModel: 'openai/gpt-4o' }],
    ['another task', { taskId: 'train-001' }],
    ['another split', { split: 'val' }],
    ['another domain', { domain: 'text' }],
    ['another task content under the same id', { taskHash: 'ffff' }],
    ['another grader version', { graderVersion: '2' }],
    ['another attempt at the task', { attempt: 1 }],
    ['other task settings (another tool-call cap, time, output limit...)', { settingsHash: '07he55' }],
  ])('misses for %s', (_name, change) => {
    cache.put(key, result);
    expect(cache.get({ ...key, ...change })).toBeUndefined();
    expect(cache.get(key)).toEqual(result);
  });

  it('replaces a result stored twice under the same key', () => {
    cache.put(key, result);
    cache.put(key, { ...result, outcome: 'wrong', score: 0, prediction: 12 });
    expect(cache.get(key)).toMatchObject({ outcome: 'wrong', prediction: 12 });
  });

  it('keeps results across reopening and between two open handles', () => {
    cache.put(key, result);
    const other = openEvalCache(file);
    expect(other.get(key)).toEqual(result);
    other.put({ ...key, seed: 5 }, result);
    other.close();
    cache.close();
    cache = openEvalCache(file);
    expect(cache.get({ ...key, seed: 5 })).toEqual(result);
  });

  it('keeps each attempt at a task apart', () => {
    cache.put(key, result);
    cache.put({ ...key, attempt: 1 }, { ...result, outcome: 'wrong', score: 0, prediction: 12 });
    expect(cache.get(key)).toEqual(result);
    expect(cache.get({ ...key, attempt: 1 })).toMatchObject({ outcome: 'wrong', prediction: 12 });
  });

  it('opens a cache file of an older version, keeps its rows, and reuses none of them', () => {
    cache.close();
    const older = path.join(dir, 'older.sqlite');
    const db = new Database(older);
    db.exec(`CREATE TABLE results_v3 (
      code_hash TEXT NOT NULL, domain TEXT NOT NULL, split TEXT NOT NULL, task_id TEXT NOT NULL,
      task_hash TEXT NOT NULL, grader_version TEXT NOT NULL, task_model TEXT NOT NULL, seed INTEGER NOT NULL,
      attempt INTEGER NOT NULL, outcome TEXT NOT NULL, prediction TEXT, raw_output TEXT NOT NULL,
      score REAL NOT NULL, error TEXT, latency_ms INTEGER, cost_usd REAL NOT NULL, created_at TEXT NOT NULL,
      detail TEXT, log TEXT, workspace TEXT,
      PRIMARY KEY (code_hash, domain, split, task_id, task_hash, grader_version, task_model, seed, attempt))`);
    db.prepare(
      `INSERT INTO results_v3 VALUES ('c0ffee', 'arithmetic', 'train', 'train-000', 'a1b2', '1', 'sim', 0, 0,
        'correct', '"1,200"', 'raw', 1, NULL, 340, 0.002, '2026-01-01', NULL, NULL, NULL)`,
    ).run();
    db.close();
    cache = openEvalCache(older);
    // Made under settings nobody recorded: not a result of this run's settings.
    expect(cache.get(key)).toBeUndefined();
    cache.put(key, result);
    expect(cache.get(key)).toEqual(result);
    cache.close();
    const rows = new Database(older, { readonly: true });
    expect(rows.prepare('SELECT COUNT(*) AS n FROM results_v3').get()).toEqual({ n: 1 });
    rows.close();
    cache = openEvalCache(older);
  });
});
