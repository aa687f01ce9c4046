import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from './kill-points.ts';
import {
  controlIn,
  ended,
  eventsOf,
  failureReasons,
  generations,
  inFlight,
  sleep,
  spentUsd,
  until,
} from './run-watch.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-parallel-controls-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const control = controlIn(tmp);

/** A run of 40 generations, 3 at once, slow enough per call that generations overlap, at a nominal price. */
const parallelRun = (id: string) =>
  startCli([
    ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '40', '--parallel', '3', '--seed', '4'],
    ...['--eval-samples', '6', '--sim-latency-ms', '150', '--sim-price-per-mtok', '100'],
    ...['--out', tmp, '--run-id', id, '--quiet'],
  ]);

describe('controls on a --parallel 3 run', () => {
  it('pause holds new generations across a SIGKILL and --resume; a lowered budget stops the spend there', async () => {
    const runDir = path.join(tmp, 'paused');
    let run = parallelRun('paused');
    await until(() => inFlight(runDir) >= 2);
    expect((await control('paused', 'pause')).code).toBe(0);
    // Killed while generations are under way: the resumed process finishes them and starts none.
    await sleep(500);
    run.child.kill('SIGKILL');
    await run.done;
    const atKill = generations(runDir).length;
    expect(inFlight(runDir)).toBeGreaterThan(0);
    run = startCli(['--resume', 'paused', '--out', tmp, '--quiet']);
    await until(() => eventsOf(runDir, 'resumed').length === 1);
    expect(eventsOf(runDir, 'resumed')[0]!.carried).toMatchObject({ paused: true });
    await until(() => inFlight(runDir) === 0);
    await sleep(3000);
    expect(generations(runDir).length).toBe(atKill);

    // A budget a little above the spend, then resume: the run spends up to it and stops there.
    const budget = spentUsd(runDir) + 0.5;
    expect((await control('paused', 'budget', budget.toFixed(4))).code).toBe(0);
    expect((await control('paused', 'resume')).code).toBe(0);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/budget reached: \$\d+\.\d{4} of \$\d+\.\d{4} spent/);
    expect(generations(runDir).length).toBeGreaterThan(atKill);
    expect(generations(runDir).length).toBeLessThan(41);
    expect(generations(runDir).every(ended)).toBe(true);
    // At most one reply over: far less than one more generation's evaluation.
    expect(spentUsd(runDir)).toBeLessThan(budget + 0.05);
    expect(eventsOf(runDir, 'budget_reached')).toHaveLength(1);
  }, 600_000);

  it('stop-after lets the generations under way finish and starts none', async () => {
    const runDir = path.join(tmp, 'stopped');
    const run = parallelRun('stopped');
    await until(() => inFlight(runDir) >= 2);
    expect((await control('stopped', 'stop-after')).code).toBe(0);
    await sleep(300);
    const atStop = generations(runDir);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('stopped when asked (stop-after)');
    const after = generations(runDir);
    expect(after.map((v) => v.id)).toEqual(atStop.map((v) => v.id));
    expect(after.every(ended)).toBe(true);
    // Those under way ran to their own end: none was cut short by the stop.
    for (const reason of failureReasons(runDir)) expect(reason).not.toMatch(/interrupt|stopp/i);
  }, 600_000);
});
