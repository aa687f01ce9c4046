import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import {
  type KillPoint,
  outcome,
  positions,
  repoDisagreements,
  startCli,
  stepsOf,
  taskCalls,
  waitFor,
} from './kill-points.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-resume-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Seeds are chosen so that the simulated TaskAgent answers some of the staged sample right, so children
 * reach the full evaluation. Small runs whose evaluations take a few seconds (300 ms per simulated call, 2
 * tasks at once), so that a kill lands inside a step: the staged sample (two tasks per split) takes two
 * rounds of calls, and the full evaluation has tasks the staged one has not.
 */
const runArgs = (generations: number, parallel: number, seed: number): string[] => [
  '--domains',
  'arithmetic',
  '--model',
  'sim',
  '--seed',
  String(seed),
  '--generations',
  String(generations),
  '--parallel',
  String(parallel),
  '--eval-samples',
  '4',
  '--staged-samples',
  '2',
  '--eval-workers',
  '2',
  '--sim-latency-ms',
  '300',
  '--json',
];

interface KillRecord {
  point: KillPoint;
  /** The unfinished variants when the process died. */
  at: ReturnType<typeof positions>;
}

/**
 * Runs to the end with a SIGKILL at each of `points` (skipping those the run is already past), resuming
 * after each kill, and returns the final summary with what each kill interrupted.
 */
async function killAndResume(args: string[], out: string, points: KillPoint[]) {
  const runDir = path.join(out, 'run');
  let run = startCli([...args, '--out', out, '--run-id', 'run']);
  const kills: KillRecord[] = [];
  for (const point of points) {
    if (!(await waitFor(runDir, run, point))) break;
    run.child.kill('SIGKILL');
    await run.done;
    kills.push({ point, at: positions(runDir) });
    run = startCli(['--resume', runDir, '--json']);
  }
  const last = await run.done;
  expect(last.code, last.stderr).toBe(0);
  return { summary: JSON.parse(last.stdout) as RunSummary, kills, runDir };
}

async function uninterrupted(args: string[], out: string) {
  const run = startCli([...args, '--out', out, '--run-id', 'run']);
  const result = await run.done;
  expect(result.code, result.stderr).toBe(0);
  return { summary: JSON.parse(result.stdout) as RunSummary, runDir: path.join(out, 'run') };
}

function expectSameRun(
  resumed: Awaited<ReturnType<typeof killAndResume>>,
  baseline: Awaited<ReturnType<typeof uninterrupted>>,
  evalWorkers: number,
): void {
  expect(outcome(resumed.summary)).toEqual(outcome(baseline.summary));
  expect(repoDisagreements(resumed.runDir)).toEqual([]);
  // A task whose result was stored is never asked again: only the tasks in flight at a kill (at most one per
  // worker) may be asked twice.
  const extra = taskCalls(resumed.runDir) - taskCalls(baseline.runDir);
  expect(extra).toBeGreaterThanOrEqual(0);
  expect(extra).toBeLessThanOrEqual(resumed.kills.length * evalWorkers);
  expect(readdirSync(path.join(resumed.runDir, 'worktrees'))).toEqual([]);
  for (const leftover of ['run.lock', 'gateway.sock'])
    expect(existsSync(path.join(resumed.runDir, leftover))).toBe(false);
}

describe('a run killed with SIGKILL and resumed ends as an uninterrupted run with the same seed', () => {
  it('serial: killed at every step of every generation', async () => {
    const args = runArgs(2, 1, 2);
    const baseline = await uninterrupted(args, path.join(tmp, 'serial-baseline'));
    const points = [{ variant: 0, step: 'full' }, ...stepsOf(baseline.runDir)];
    expect(points.length).toBeGreaterThanOrEqual(10);
    const resumed = await killAndResume(args, path.join(tmp, 'serial'), points);
    expect(resumed.kills.length).toBeGreaterThanOrEqual(10);
    const at = resumed.kills.flatMap((k) => k.at);
    // The kills landed in every step, in the middle of a MetaAgent run and of a full evaluation among them.
    for (const step of ['editing', 'gating', 'staged', 'full']) expect(at.map((p) => p.step)).toContain(step);
    expect(at.some((p) => p.step === 'editing' && p.midMeta)).toBe(true);
    expect(at.some((p) => p.step === 'full' && p.results > 0)).toBe(true);
    expectSameRun(resumed, baseline, 2);
  }, 3_600_000);

  it('--parallel 2: killed while two generations are in flight', async () => {
    const args = runArgs(3, 2, 4);
    const baseline = await uninterrupted(args, path.join(tmp, 'parallel-baseline'));
    const points = stepsOf(baseline.runDir).filter(
      (p) => p.variant >= 2 && ['editing', 'staged', 'full'].includes(p.step),
    );
    const resumed = await killAndResume(args, path.join(tmp, 'parallel'), points);
    expect(resumed.kills.length).toBeGreaterThanOrEqual(3);
    expect(resumed.kills.some((k) => k.at.length >= 2)).toBe(true);
    expectSameRun(resumed, baseline, 2);
  }, 3_600_000);

  it('--parallel 3: a Ctrl-C stops cleanly, prints the resume command, and the resumed run matches', async () => {
    const args = runArgs(3, 3, 21);
    const baseline = await uninterrupted(args, path.join(tmp, 'three-baseline'));
    const out = path.join(tmp, 'three');
    const runDir = path.join(out, 'run');
    const run = startCli([...args, '--out', out, '--run-id', 'run']);
    expect(await waitFor(runDir, run, { variant: 3, step: 'editing' })).toBe(true);
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code).toBe(130);
    // The last line is the command that continues the run (`npx generate-loop ...` under npm).
    expect(stopped.stderr.trimEnd().split('\n').at(-1)).toMatch(/generate-loop(\.mjs)? --resume \S+$/);
    expect(stopped.stderr.trimEnd().endsWith(` --resume ${runDir}`)).toBe(true);
    const partial = JSON.parse(stopped.stdout) as RunSummary;
    expect(partial.stopped).toBe('interrupted');
    // Nothing unfinished was marked failed: the interrupted generations wait at their step.
    expect(positions(runDir).length).toBeGreaterThan(0);
    expect(readdirSync(path.join(runDir, 'worktrees'))).toEqual([]);
    const resumedRun = startCli(['--resume', runDir, '--json']);
    const last = await resumedRun.done;
    expect(last.code, last.stderr).toBe(0);
    const summary = JSON.parse(last.stdout) as RunSummary;
    expect(outcome(summary)).toEqual(outcome(baseline.summary));
    expect(repoDisagreements(runDir)).toEqual([]);
  }, 3_600_000);
});
