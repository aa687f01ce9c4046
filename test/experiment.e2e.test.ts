import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../web/server.ts';
import { type CliResult, runCli } from './run-cli.ts';

const LOOP = ['--', '--domains', 'arithmetic', '--model', 'sim', '--generations', '2'];
const GRID = ['--seeds', '1-2', '--config', 'full=', '--config', 'frozen=--freeze-meta', '--jobs', '2'];

let dir: string;
let first: CliResult;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'experiment-'));
  first = await runCli('hyperagents', ['experiment', ...GRID, '--out', dir, '--json', ...LOOP]);
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hyperagents experiment', () => {
  it('runs every configuration with every seed and prints the comparison as one JSON object', () => {
    expect(first.code, first.stderr).toBe(0);
    const summary = JSON.parse(first.stdout) as {
      configs: Record<string, unknown>[];
      comparisons: Record<string, unknown>[];
    };
    expect(summary.configs.map((c) => c.name)).toEqual(['full', 'frozen']);
    for (const c of summary.configs) {
      expect(Object.keys(c)).toEqual(
        expect.arrayContaining(['name', 'runs', 'best', 'medianBest', 'ci95', 'aucMedian', 'tasksEvaluated']),
      );
      expect(c.runs).toEqual([`${c.name}-s1`, `${c.name}-s2`]);
      expect((c.best as number[]).every((b) => b >= 0 && b <= 1)).toBe(true);
      expect((c.ci95 as number[])[0]).toBeLessThanOrEqual(c.medianBest as number);
      expect((c.tasksEvaluated as number[]).every((t) => t >= 80)).toBe(true);
      // Honest sim runs: no flag for reward hacking in any of them.
      expect(c.flags).toEqual([0, 0]);
      // Each arm's regression rate, pooled over its runs' children, beside each run's own.
      const pooled = c.regressions as {
        children: number;
        regressed: number;
        parentPassed: number;
        rate: number;
      };
      expect(c.regressionRate).toHaveLength(2);
      expect(pooled.children).toBeGreaterThan(0);
      expect(pooled.rate).toBeCloseTo(pooled.regressed / pooled.parentPassed);
    }
    expect(summary.comparisons).toHaveLength(1);
    expect(Object.keys(summary.comparisons[0]!)).toEqual(
      expect.arrayContaining(['a', 'b', 'deltaMedianBest', 'pValue', 'test']),
    );
    expect(summary.comparisons[0]).toMatchObject({ a: 'full', b: 'frozen' });
    expect(
      readdirSync(path.join(dir, 'runs'))
        .filter((n) => n.includes('-s'))
        .sort(),
    ).toEqual(['frozen-s1', 'frozen-s2', 'full-s1', 'full-s2']);
  });

  it('does not run a finished run again, and report re-reads the same figures', async () => {
    const archive = path.join(dir, 'runs', 'full-s1', 'archive.sqlite');
    const before = statSync(archive).mtimeMs;
    const again = await runCli('hyperagents', ['experiment', ...GRID, '--out', dir, '--json', ...LOOP]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.match(/already finished/g)).toHaveLength(4);
    expect(statSync(archive).mtimeMs).toBe(before);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
    const report = await runCli('hyperagents', ['experiment', 'report', dir, '--json']);
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout)).toEqual(JSON.parse(first.stdout));
    const table = await runCli('hyperagents', ['experiment', 'report', dir, '--target', '0.3']);
    expect(table.stdout).toMatch(/^CONFIG\s+RUNS\s+MEDIAN BEST\s+95% CI\s+AUC MEDIAN/m);
    expect(table.stdout).toMatch(/^full > frozen\s/m);
    expect(table.stdout).toMatch(/TASKS TO 0.3 MEDIAN/);
    expect(table.stdout).toMatch(/REGRESSIONS/);
    expect(table.stdout).toMatch(/^full\s.*\s\d+\.\d% \(\d+\/\d+\)\s/m);
  }, 600_000);

  it('shows the same figures in the archive browser run comparison', async () => {
    const expected = JSON.parse(first.stdout) as { configs: Record<string, unknown>[] };
    let server: RunningServer | undefined;
    try {
      server = await startServer({ runsDir: path.join(dir, 'runs') });
      const ids = ['full-s1', 'full-s2', 'frozen-s1', 'frozen-s2'];
      const res = await fetch(`${server.url}/api/compare?runs=${ids.join(',')}`);
      const body = (await res.json()) as { comparison: { summary: { configs: Record<string, unknown>[] } } };
      const figures = (c: Record<string, unknown>) => {
        const { name: _name, ...rest } = c;
        return rest;
      };
      expect(body.comparison.summary.configs.map(figures)).toEqual(expected.configs.map(figures));
    } finally {
      await server?.close();
    }
  }, 120_000);

  it('refuses bad input with one paragraph and exit code 2, starting nothing', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'experiment-bad-'));
    try {
      for (const args of [
        ['experiment', '--seeds', 'x', '--out', out, ...LOOP],
        [
          'experiment',
          '--config',
          'a=--freeze-meta',
          '--out',
          out,
          '--',
          '--domains',
          'nope',
          '--model',
          'sim',
        ],
        ['experiment', '--out', out, '--', '--domains', 'arithmetic', '--seed', '3'],
        ['experiment', 'report', out],
      ]) {
        const r = await runCli('hyperagents', args);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).not.toMatch(/\n\s+at /);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
      }
      expect(readdirSync(out)).toEqual([]);
      const changed = await runCli('hyperagents', [
        'experiment',
        ...GRID,
        '--out',
        dir,
        '--',
        '--domains',
        'text',
      ]);
      expect(changed.code).toBe(2);
      expect(changed.stderr).toMatch(/other generate-loop options/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);
});
