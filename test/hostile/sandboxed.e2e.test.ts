import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bwrapAvailable } from '../../harness/process/index.ts';
import { HOSTILE_LIMITS, type HostileRun, runHostile } from './hostile-run.ts';

/**
 * The hostile generations under bubblewrap: every attempt is contained, the host sees no trace of any,
 * each ends as its variant's recorded failure, and the run goes on to the end.
 */
describe('hostile variants under --sandbox bwrap', () => {
  let run: HostileRun & { cleanup(): void };

  beforeAll(async () => {
    expect(bwrapAvailable(), 'bubblewrap must be installed (.ci/run installs it)').toBe(true);
    run = await runHostile('bwrap');
  }, 1_200_000);
  afterAll(() => run?.cleanup());

  const variant = (id: number) => run.summary!.variants.find((v) => v.id === id)!;

  it('finishes the run with every generation recorded', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary!.variants.map((v) => v.id)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('lets no attack write outside its worktree, whatever the path or trick', () => {
    expect(run.detections.escapes).toEqual([]);
  });

  it('lets no key or secret reach an agent, a log, the archive or the variant repo', () => {
    expect(run.detections.stolenSecrets).toEqual([]);
  });

  it('lets no connection out: TCP on loopback, a unix socket, an abstract socket', () => {
    expect(run.detections.connections).toEqual({ tcp: 0, unix: 0, abstract: 0 });
  });

  it('leaves no agent process running after the run', () => {
    expect(run.detections.leftoverProcesses).toBe(0);
  });

  it('cuts logs and answers at the output limit', () => {
    const cap = HOSTILE_LIMITS.outputKb * 1024;
    expect(run.detections.largestLogBytes).toBeLessThanOrEqual(cap + 1024);
    expect(run.detections.largestAnswerChars).toBeGreaterThan(cap - 1024);
    expect(run.detections.largestAnswerChars).toBeLessThanOrEqual(cap + 1024);
  });

  it('records each contained attempt as its variant’s failure', () => {
    expect(variant(1)).toMatchObject({ status: 'rejected', validParent: false });
    expect(variant(1).failureReason).toMatch(/symbolic link/);
    expect(variant(2)).toMatchObject({ status: 'rejected', failureReason: 'the MetaAgent changed nothing' });
    expect(variant(3)).toMatchObject({ status: 'rejected', failureReason: 'the MetaAgent changed nothing' });
    expect(variant(4)).toMatchObject({ status: 'failed' });
    expect(variant(4).failureReason).toMatch(/wrote more than 16 MiB/);
    // The flooding, spinning TaskAgent answers nothing right: it never becomes anyone's better parent.
    expect(variant(6).score ?? 0).toBe(0);
  });

  it('records the sandbox and the limits the run used', () => {
    expect(run.sandboxRecord).toMatchObject({
      kind: 'bwrap',
      limits: { processes: 64, diskMb: 16, fileSizeMb: 8, outputKb: 64 },
      rlimits: true,
    });
  });
});
