import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchiveReader } from '../archive/index.ts';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

const runs = mkdtempSync(path.join(tmpdir(), 'archive-cli-'));
const sim = ['--domains', 'arithmetic', '--model', 'sim', '--out', runs, '--eval-samples', '12', '--quiet'];
const archive = (...args: string[]) => runCli('hyperagents', ['archive', ...args, '--runs', runs]);

/** Waits (without a deadline of its own: the test's timeout is the limit) until variant `id` is finished. */
async function untilVariantFinished(runId: string, id: number): Promise<void> {
  const file = path.join(runs, runId, 'archive.sqlite');
  for (;;) {
    if (existsSync(file)) {
      try {
        const reader = openArchiveReader(file);
        const v = reader.variant(id);
        reader.close();
        if (v !== null && v.outcome !== 'in_progress') return;
      } catch {
        // the run is still creating its archive
      }
    }
    await sleep(500);
  }
}

/** Every command on one run: exit 0, and output that says what the run holds. */
async function everyCommandWorks(runId: string, state: string): Promise<void> {
  const list = await archive('list', '--json');
  expect(list.code, list.stderr).toBe(0);
  expect(JSON.parse(list.stdout)).toEqual(
    expect.arrayContaining([expect.objectContaining({ id: runId, state })]),
  );

  const variants = await archive('list', runId, '--json');
  expect(variants.code, variants.stderr).toBe(0);
  const ids = (JSON.parse(variants.stdout) as { variants: { id: number }[] }).variants.map((v) => v.id);
  expect(ids.slice(0, 2)).toEqual([0, 1]);
  expect((await archive('list', path.join(runs, runId))).stdout).toContain('arithmetic val');

  const show = await archive('show', `${runId}:1`);
  expect(show.code, show.stderr).toBe(0);
  expect(show.stdout).toContain('variant 1 of run');
  expect(show.stdout).toMatch(/MetaAgent \(done, \d+ tool calls\): Simulated meta agent/);
  const showJson = JSON.parse((await archive('show', `${runId}:1`, '--json')).stdout);
  expect(showJson.variant.parent).toBe(0);
  // Finished: its generation step is final whatever its verdict.
  expect(['done', 'failed']).toContain(showJson.variant.step);

  const diff = await archive('diff', `${runId}:1`);
  expect(diff.code, diff.stderr).toBe(0);
  expect(diff.stdout).toMatch(/^diff --git a\/agents\//m);

  const lineage = JSON.parse((await archive('lineage', `${runId}:1`, '--json')).stdout);
  expect(lineage.lineage.map((s: { id: number }) => s.id)).toEqual([0, 1]);

  const best = await archive('best', runId, '--json');
  expect(best.code, best.stderr).toBe(0);
  expect(JSON.parse(best.stdout)[0]).toMatchObject({ run: runId });

  const tasks = JSON.parse((await archive('tasks', `${runId}:0`, '--failed', '--json')).stdout) as {
    outcome: string;
  }[];
  expect(tasks.length).toBeGreaterThan(0);
  expect(tasks.every((t) => t.outcome !== 'correct')).toBe(true);

  const csv = await archive('export', runId, '--format', 'csv');
  expect(csv.stdout.split('\n')[0]).toMatch(/^id,parent,status,score,arithmetic train,arithmetic val/);
  const jsonl = (await archive('export', runId, '--format', 'jsonl')).stdout.trim().split('\n');
  expect(JSON.parse(jsonl[0]!)).toMatchObject({ run: runId, id: 0, step: 'done', status: 'evaluated' });
}

describe('hyperagents archive on real simulated runs', () => {
  let going: ChildProcess | undefined;

  beforeAll(async () => {
    const done = await runCli('generate-loop', [...sim, '--generations', '2', '--run-id', 'finished']);
    expect(done.code, done.stderr).toBe(0);
  }, 900_000);

  afterAll(() => {
    going?.kill('SIGKILL');
  });

  it('works on a finished run', async () => {
    await everyCommandWorks('finished', 'done');
  }, 900_000);

  it('takes the runs folder as --out too, the name generate-loop gives it', async () => {
    const list = await runCli('hyperagents', ['archive', 'list', '--json', '--out', runs]);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'finished' })]),
    );
  }, 900_000);

  it('works on a run still going, and on the same run stopped half-way', async () => {
    going = spawn(
      process.execPath,
      [
        path.join(PROJECT_ROOT, 'bin', 'generate-loop.mjs'),
        ...sim,
        // Far more than it gets through while the commands run: it is stopped after them.
        '--generations',
        '500',
        '--run-id',
        'going',
      ],
      { stdio: 'ignore', cwd: runs },
    );
    const exited = new Promise((resolve) => going!.once('exit', resolve));
    await untilVariantFinished('going', 1);
    await everyCommandWorks('going', 'running');
    going.kill('SIGINT');
    await exited;
    await everyCommandWorks('going', 'stopped');
  }, 1_800_000);

  it('names what exists when a run or variant is unknown, with exit code 2 and no stack trace', async () => {
    const run = await archive('show', 'nosuch:1');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no run "nosuch"');
    expect(run.stderr).toContain('finished');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const variant = await archive('lineage', 'finished:99');
    expect(variant.code).toBe(2);
    expect(variant.stderr).toContain('Run finished has no variant 99. Its variants: 0, 1, 2.');
    const malformed = await archive('tasks', 'finished');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('is not RUN:VARIANT');
    const initial = await archive('diff', 'finished:0');
    expect(initial.code).toBe(2);
    expect(initial.stderr).toContain('has no parent');
  }, 600_000);
});
