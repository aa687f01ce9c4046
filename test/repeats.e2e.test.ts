import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const out = mkdtempSync(path.join(tmpdir(), 'repeats-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('--eval-repeats', () => {
  it('keeps every attempt, and archive show reports pass@1 (the mean) and pass@N beside the score', async () => {
    const run = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '1', '--eval-repeats', '3'],
      ...['--sim-noise', '0.5', '--eval-samples', '6', '--out', out, '--run-id', 'r', '--quiet'],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const shown = await runCli('hyperagents', ['archive', 'show', 'r:0', '--runs', out, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const report = JSON.parse(shown.stdout) as {
      variant: { scores: { arithmetic: { val: { score: number } } } };
      passAtK: { split: string; tasks: number; attempts: number; passAt: Record<string, number> }[];
    };
    const val = report.passAtK.find((p) => p.split === 'val')!;
    expect([val.tasks, val.attempts]).toEqual([6, 3]);
    // pass@1 is the mean over the three attempts, which is the stored score; pass@3 is at least that.
    expect(val.passAt['1']).toBeCloseTo(report.variant.scores.arithmetic.val.score);
    expect(val.passAt['3']).toBeGreaterThan(val.passAt['1']!);
    const text = await runCli('hyperagents', ['archive', 'show', 'r:0', '--runs', out]);
    expect(text.stdout).toMatch(
      /^pass@k, arithmetic val \(3 attempts at each of 6 tasks\): pass@1 0\.\d{3}, pass@3 /m,
    );
  }, 120_000);
});
