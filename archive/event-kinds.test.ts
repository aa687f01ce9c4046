import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Archive, type EventInput, type EventKind, openArchive } from './archive.ts';
import { EVENT_KINDS } from './event-kinds.ts';
import { eventWriter } from './events.ts';
import { openArchiveReader } from './read.ts';

let dir: string;
let file: string;
let archive: Archive;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'event-kinds-'));
  file = path.join(dir, 'archive.sqlite');
  archive = openArchive(file, { secrets: ['hunter2-hunter2-hunter2'] });
  archive.insertVariant({ id: 0, parentId: null, step: 'done' });
  archive.insertVariant({ id: 1, parentId: 0, step: 'selected' });
});

afterEach(() => {
  archive.close();
  rmSync(dir, { recursive: true, force: true });
});

const range = { low: 1, high: 2 };
const built = { built: true, ms: 120, cached: false } as const;

/** One event of every kind as its writer gives it: a kind added to the registry must be added here. */
const ONE_OF_EACH: { [K in EventKind]: EventInput<K> } = {
  selected: { parent: 0, reason: 'the best so far' },
  editing: { from: 'selected' },
  gating: { from: 'editing', changed: ['agents/task/prompt.md'] },
  staged: { from: 'gating', gate: 'passed' },
  full: { from: 'staged' },
  done: { status: 'evaluated', score: 0.5 },
  failed: { status: 'rejected', reason: 'no change', cause: null },
  select_parent_failed: { chooser: 3, reason: 'it threw' },
  meta_started: { parent: 0, queued: true },
  meta_finished: { exitCode: 0, timedOut: false, worker: 'w1' },
  transcript_refused: { reason: 'too large' },
  meta_agent_build: { built: false, reason: 'esbuild failed', running: 'parent' },
  task_agent_build: built,
  evals_rewritten: { change: 'summary.md changed' },
  typecheck_skipped: { reason: 'no file the compiler reads changed' },
  entry_points_loaded: {},
  stage_unfinished: { stage: 'full', failed: 2, reason: 'two tasks failed' },
  batch: {
    batch: 1,
    model: 'sim',
    round: 1,
    state: 'in_progress',
    done: 3,
    failed: 0,
    total: 10,
    waitedSec: 12,
  },
  eval_started: { domains: ['arithmetic'], split: 'test' },
  eval_finished: { split: 'test', interrupted: false },
  resumed: { pid: 42, spentUsd: 0.5, carried: { paused: true, stopAfter: false, budgetUsd: null } },
  estimate: {
    generations: 3,
    resumed: false,
    calls: range,
    usd: range,
    seconds: range,
    from: null,
    lines: [],
  },
  interrupted: {},
  budget_reached: { spentUsd: 1, budgetUsd: 1, heldUsd: 0.1, nextCallUsd: 0.2 },
  stopped_after: { spentUsd: 1 },
  harness_error: { message: 'git failed' },
  tasks_waiting: { language: 'go', waiting: 3, message: '3 go tasks wait: no connected worker can grade go' },
  control: { action: 'budget', value: 5 },
  alert: { type: 'budget', runId: 'r1', time: 't', message: '80 %', percent: 80, spentUsd: 0.8 },
  alert_delivered: { alert: 'budget', alertTime: 't', target: 'notify', attempt: 1 },
  alert_delivery_failed: {
    alert: 'budget',
    alertTime: 't',
    target: 'notify',
    attempt: 1,
    retrying: true,
    error: 'HTTP 500',
  },
};

/** Writes a row as any version could have: kind and data unchecked. */
const storeRaw = (type: string, data: string): void => {
  archive.db
    .prepare('INSERT INTO events (ts, variant_id, type, data) VALUES (?, NULL, ?, ?)')
    .run('2026-01-01T00:00:00.000Z', type, data);
};

describe('the event registry', () => {
  it('reads back every kind as it was written, each through its own schema', () => {
    const kinds = Object.keys(EVENT_KINDS) as EventKind[];
    for (const kind of kinds) archive.recordEvent(1, kind, ONE_OF_EACH[kind]);
    const read = archive.listEvents();
    expect(read.map((e) => e.type)).toEqual(kinds);
    expect(archive.unreadEvents()).toEqual([]);
    const failed = archive.eventsOf(['failed'])[0];
    expect(failed?.data).toEqual({ status: 'rejected', reason: 'no change', cause: null });
  });

  it('refuses, as a programming error, a kind it does not declare and data that does not match its kind', () => {
    // The path that takes a kind as a string (a variant's move to a step) checks what tsc cannot.
    const write = eventWriter(archive.db, archive.redact);
    expect(() => write(1, 'evaluated', { score: 1 })).toThrow(/"evaluated" is not an event kind/);
    expect(() => write(null, 'budget_reached', { spentUsd: 'a lot', budgetUsd: 1 })).toThrow(
      /budget_reached event does not match its kind: spentUsd/,
    );
    expect(() => write(null, 'control', { action: 'budget', value: -1 })).toThrow(/control event/);
    expect(archive.listEvents()).toEqual([]);
  });

  it("records a variant's move to a step as an event of that step, redacted like every other", () => {
    const moved = archive.transitionVariant(
      1,
      'selected',
      'failed',
      { status: 'failed', failureReason: 'a key hunter2-hunter2-hunter2 in the log' },
      { status: 'failed', reason: 'a key hunter2-hunter2-hunter2 in the log', cause: 'agent' },
    );
    expect(moved).toBe(true);
    expect(archive.eventsOf(['failed']).map((e) => e.data)).toEqual([
      { from: 'selected', status: 'failed', reason: 'a key [redacted] in the log', cause: 'agent' },
    ]);
  });
});

describe('events written by earlier versions', () => {
  it('read with the defaults of the fields added since', () => {
    storeRaw('failed', '{"status":"failed","reason":"timed out"}');
    storeRaw('budget_reached', '{"spentUsd":1.5,"budgetUsd":1}');
    storeRaw('interrupted', '{"signal":"SIGINT","killedProcesses":3}');
    storeRaw('alert_delivery_failed', '{"alert":"stall","target":"notify"}');
    storeRaw(
      'estimate',
      '{"calls":{"low":1,"high":2},"usd":{"low":1,"high":2},"seconds":{"low":1,"high":2}}',
    );
    expect(archive.listEvents().map((e) => [e.type, e.data])).toEqual([
      ['failed', { status: 'failed', reason: 'timed out', cause: null }],
      ['budget_reached', { spentUsd: 1.5, budgetUsd: 1, heldUsd: 0, nextCallUsd: null }],
      ['interrupted', {}],
      ['alert_delivery_failed', { alert: 'stall', target: 'notify', retrying: false, error: 'failed' }],
      [
        'estimate',
        {
          generations: 0,
          resumed: false,
          calls: { low: 1, high: 2 },
          usd: { low: 1, high: 2 },
          seconds: { low: 1, high: 2 },
          from: null,
          lines: [],
          spentUsd: 0,
        },
      ],
    ]);
  });

  it('that still do not match are left out of what readers get, each with why, and never throw', () => {
    storeRaw('staged_gate', '{"failing":["arithmetic"]}');
    storeRaw('estimate', '{"calls":3}');
    storeRaw('control', '{"action":"explode"}');
    storeRaw('control', 'not json');
    storeRaw('control', '{"action":"pause"}');
    archive.close();
    const reader = openArchiveReader(file);
    try {
      expect(reader.events().map((e) => [e.id, e.type])).toEqual([[5, 'control']]);
      expect(reader.eventsOf(['estimate', 'control']).map((e) => e.data)).toEqual([{ action: 'pause' }]);
      expect(reader.unreadEvents().map((e) => [e.id, e.type, e.why])).toEqual([
        [1, 'staged_gate', 'a kind this version does not know'],
        [2, 'estimate', expect.stringMatching(/^calls: /)],
        [3, 'control', expect.stringMatching(/^action: /)],
        [4, 'control', expect.stringMatching(/^its data: /)],
      ]);
    } finally {
      reader.close();
      archive = openArchive(file);
    }
  });
});
