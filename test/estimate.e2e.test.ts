import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ESTIMATE_CONFIGS, estimateAgainstRun, missedBy25, parseEstimate } from './estimate-runs.ts';
import { runCli } from './run-cli.ts';

const root = mkdtempSync(path.join(tmpdir(), 'estimate-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('generate-loop --estimate', () => {
  it.each(Object.keys(ESTIMATE_CONFIGS))(
    'estimates the calls and cost of a $0 run within a quarter, from an earlier run',
    async (name) => {
      const config = ESTIMATE_CONFIGS[name]!;
      const { estimated, actual, lines } = await estimateAgainstRun(
        path.join(root, name.replaceAll(/\W+/g, '-')),
        config,
      );
      expect(lines[0]).toMatch(
        /^Estimate for 6 generation\(s\), at the rates of 3 generation\(s\) of run history: /,
      );
      expect(lines.join('\n')).toContain('Per generation: ');
      expect(missedBy25(estimated, actual)).toEqual([]);
    },
    240_000,
  );

  it('gives a range from assumptions without an earlier run, and says so when --estimate-from names no run', async () => {
    const out = path.join(root, 'bare');
    const args = ['--domains', 'arithmetic', '--model', 'sim', '--generations', '4', '--out', out];
    const bare = await runCli('generate-loop', [...args, '--estimate']);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^Estimate for 4 generations: \d+–\d+ model calls, /);
    const missing = await runCli('generate-loop', [...args, '--estimate', '--estimate-from', 'nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--estimate-from nope: no run there\./);
    const json = await runCli('generate-loop', [...args, '--estimate', '--json']);
    expect(json.code).toBe(0);
    const range = JSON.parse(json.stdout);
    expect(range).toMatchObject({ kind: 'range', generations: 4, simulated: true, budgetLeftUsd: null });
    expect(bare.stdout).toContain(`${range.calls.low}–${range.calls.high} model calls`);
  });

  it('prints the estimate as JSON with --json: the figures the text gives, and the rates they came from', async () => {
    const out = path.join(root, 'json');
    const args = ['--domains', 'arithmetic', '--model', 'sim', '--sim-price-per-mtok', '3', '--out', out];
    const history = await runCli('generate-loop', [
      ...args,
      '--generations',
      '2',
      '--run-id',
      'h',
      '--quiet',
    ]);
    expect(history.code, history.stderr).toBe(0);
    const estimate = [
      ...args,
      '--generations',
      '20',
      '--budget-usd',
      '0.05',
      '--estimate',
      '--estimate-from',
      'h',
    ];
    const text = await runCli('generate-loop', estimate);
    const json = await runCli('generate-loop', [...estimate, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const point = JSON.parse(json.stdout);
    expect(point).toMatchObject({
      kind: 'point',
      generations: 20,
      source: 'run h',
      budgetLeftUsd: 0.05,
      overBudget: true,
      rates: { generations: 2 },
    });
    const shown = parseEstimate(text.stdout.split('\n')[0]!)!;
    expect(shown.calls).toBe(point.calls);
    expect(shown.usd).toBeCloseTo(point.usd, 2);
    expect(text.stdout).toContain('over the budget left ($0.05 of --budget-usd)');
  });
});
