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
  resumedWhilePaused,
  sleep,
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
    expect(inFlight(runDir)).toBeGreaterThan(0);
    run = startCli(['--resume', 'paused', '--out', tmp, '--quiet']);
    await resumedWhilePaused(runDir, 'paused', run, control, 0.5);
    expect(generations(runDir).length).toBeLessThan(41);
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
