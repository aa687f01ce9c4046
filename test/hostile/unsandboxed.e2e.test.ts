import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_LIMITS, type HostileRun, runHostile } from './hostile-run.ts';

/**
 * The same hostile generations with `--sandbox none`, on a throwaway copy of the project: the host-side
 * detectors the sandboxed suite relies on must fire here, or that suite proves nothing. What the harness
 * guards on its own (links it never follows, git it never lets a repository configure, output caps,
 * redaction) holds even here.
 */
describe('hostile variants with --sandbox none (the detectors fire)', () => {
  let run: HostileRun & { cleanup(): void };

  beforeAll(async () => {
    run = await runHostile('none');
  }, 1_200_000);
  afterAll(() => run?.cleanup());

  it('sees the writes outside the worktree', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.detections.escapes.sort()).toEqual(
      [
        'absolute path into the harness',
        'relative path (..) into the harness',
        'a grader',
        'the home folder',
        'node_modules (after a remount)',
        'the variant repo',
        'the run folder, beside the archive',
        'a TaskAgent into a grader',
        'a TaskAgent into the run folder',
      ].sort(),
    );
  });

  it('sees the stolen secrets', () => {
    expect(run.detections.stolenSecrets.join('\n')).toMatch(/HOSTILE-canary-HOME|\[redacted\]/);
  });

  it('sees the connections and the processes left behind', () => {
    expect(run.detections.connections.tcp).toBeGreaterThan(0);
    expect(run.detections.connections.unix).toBeGreaterThan(0);
    expect(run.detections.connections.abstract).toBeGreaterThan(0);
    expect(run.detections.leftoverProcesses).toBeGreaterThan(0);
  });

  it('still refuses planted links, repository-controlled git programs, and oversized output', () => {
    const variant5 = run.summary!.variants.find((v) => v.id === 5)!;
    expect(variant5.status).toBe('rejected');
    expect(variant5.failureReason).toMatch(/refused to open its log/);
    const cap = HOSTILE_LIMITS.outputKb * 1024;
    expect(run.detections.largestLogBytes).toBeLessThanOrEqual(cap + 1024);
    expect(run.detections.largestAnswerChars).toBeLessThanOrEqual(cap + 1024);
  });
});
