import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli } from './run-cli.ts';

// Small and fast: 2 seeds x 6 generations on 20 tasks per split. The same command, with more seeds,
// produces the figures in docs/experiments.md.
const GRID = ['--seeds', '1-2', '--config', 'full=', '--config', 'baseline=best-of-k', '--jobs', '2'];
const LOOP = ['--domains', 'arithmetic', '--model', 'sim', '--generations', '6', '--eval-samples', '20'];

interface Config {
  name: string;
  baseline?: string;
  runs: string[];
  best: number[];
  medianBest: number;
  tasksEvaluated: number[];
  heldOut: (number | null)[];
  heldOutGain: number | null;
}

let dir: string;
let landscapes: { standard: CliResult; inert: CliResult };

const configs = (r: CliResult): Record<string, Config> => {
  const summary = JSON.parse(r.stdout) as { configs: Config[] };
  return Object.fromEntries(summary.configs.map((c) => [c.name, c]));
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'experiment-baseline-'));
  const [standard, inert] = await Promise.all([
    runCli('hyperagents', [
      'experiment',
      ...GRID,
      '--out',
      path.join(dir, 'default'),
      '--json',
      '--',
      ...LOOP,
    ]),
    runCli('hyperagents', [
      'experiment',
      ...GRID,
      '--out',
      path.join(dir, 'inert'),
      '--json',
      '--',
      ...LOOP,
      '--sim-landscape',
      'inert',
    ]),
  ]);
  landscapes = { standard, inert };
}, 1_200_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hyperagents experiment with a budget-matched baseline', () => {
  it('spends the evolving run’s tasks on attempts of variant 0, and evolution beats it on the default landscape', () => {
    const { standard } = landscapes;
    expect(standard.code, standard.stderr).toBe(0);
    const { full, baseline } = configs(standard);
    expect(baseline!.baseline).toBe('best-of-k');
    expect(baseline!.runs).toEqual(['baseline-s1', 'baseline-s2']);
    // Each attempt costs variant 0's evaluation; the attempts stop before they would spend more.
    for (const [i, spent] of baseline!.tasksEvaluated.entries()) {
      expect(spent).toBeLessThanOrEqual(full!.tasksEvaluated[i]!);
      expect(spent).toBeGreaterThan(full!.tasksEvaluated[i]! / 2);
    }
    expect(readdirSync(path.join(dir, 'default', 'runs', 'baseline-s1', 'attempts')).length).toBeGreaterThan(
      1,
    );
    expect(full!.medianBest).toBeGreaterThan(baseline!.medianBest);
    // The improvement transfers to the test split, which selection never saw.
    expect(full!.heldOutGain).toBeGreaterThan(0.1);
    expect(full!.heldOut.every((g) => g !== null)).toBe(true);
  });

  it('does not beat the baseline where meta edits do nothing', () => {
    const { inert } = landscapes;
    expect(inert.code, inert.stderr).toBe(0);
    const { full, baseline } = configs(inert);
    expect(full!.medianBest).toBeLessThanOrEqual(baseline!.medianBest);
    expect(full!.heldOutGain).toBe(0);
  });

  it('prints the baseline row and the held-out column, and report re-reads them', async () => {
    const table = await runCli('hyperagents', ['experiment', 'report', path.join(dir, 'default')]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^CONFIG\s.*\sHELD-OUT MEDIAN\s/m);
    expect(table.stdout).toMatch(/^baseline \(best-of-k\)\s+2\s/m);
    expect(table.stdout).toMatch(/^full > baseline\s/m);
    const json = await runCli('hyperagents', ['experiment', 'report', path.join(dir, 'default'), '--json']);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(landscapes.standard.stdout));
  }, 120_000);

  it('refuses an unknown baseline, or one with nothing to match, with exit code 2', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'experiment-baseline-bad-'));
    try {
      const unknown = await runCli('hyperagents', [
        'experiment',
        '--config',
        'b=best-of-x',
        '--out',
        out,
        '--',
        ...LOOP,
      ]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/Known baselines: best-of-k/);
      const alone = await runCli('hyperagents', [
        'experiment',
        '--config',
        'b=best-of-k',
        '--out',
        out,
        '--',
        ...LOOP,
      ]);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toMatch(/add one with generate-loop options/);
      for (const r of [unknown, alone]) expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(readdirSync(out)).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
