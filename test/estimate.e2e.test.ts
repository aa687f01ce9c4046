import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ESTIMATE_CONFIGS, estimateAgainstRun } from './estimate-runs.ts';
import { runCli } from './run-cli.ts';

const root = mkdtempSync(path.join(tmpdir(), 'estimate-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Within 25% of what the run then did: the bar. Time is compared in `npm run bench -- estimate`. */
const within = (estimated: number, actual: number) => Math.abs(estimated - actual) / actual;

describe('generate-loop --estimate', () => {
  it.each(Object.keys(ESTIMATE_CONFIGS))(
    'estimates the calls and cost of a %s run within 25%%, from an earlier run',
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
      expect(
        within(estimated.calls, actual.calls),
        `${estimated.calls} vs ${actual.calls} calls`,
      ).toBeLessThanOrEqual(0.25);
      expect(within(estimated.usd, actual.usd), `$${estimated.usd} vs $${actual.usd}`).toBeLessThanOrEqual(
        0.25,
      );
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
  });
});
