import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { ESTIMATE_CONFIGS, estimateAgainstRun } from '../test/estimate-runs.ts';

/**
 * `generate-loop --estimate --estimate-from` against the run it then estimates, for the three configurations
 * the e2e test checks on calls and cost: here the time, as the ratio of estimated to measured seconds (the
 * earlier run and the estimated one run one after the other, so they see about the same machine load).
 */
export async function benchEstimate(): Promise<string[]> {
  const root = mkdtempSync(path.join(tmpdir(), 'bench-estimate-'));
  const lines = [
    'generate-loop --estimate from a 3-generation run (or --pilot 2), against the 6-generation run it estimates (sim, $3/Mtok):',
    `  load average at the start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  ];
  try {
    const runs = Object.entries(ESTIMATE_CONFIGS).flatMap(([name, config]) => [
      { name, config, pilot: undefined },
      // The same run estimated from a 2-generation pilot (`--pilot 2`) instead of an earlier run.
      { name: `${name}, pilot`, config, pilot: { args: ['--pilot', '2'], env: {} } },
    ]);
    for (const { name, config, pilot } of runs) {
      const { estimated: e, actual: a } = await estimateAgainstRun(
        path.join(root, name.replaceAll(/\W+/g, '-')),
        config,
        pilot === undefined ? {} : { pilot },
      );
      const ratio = (x: number, y: number) => (y === 0 ? 'n/a' : (x / y).toFixed(2));
      lines.push(
        `  ${name.padEnd(41)} calls ${e.calls}/${a.calls} (${ratio(e.calls, a.calls)})  ` +
          `cost $${e.usd.toFixed(2)}/$${a.usd.toFixed(2)} (${ratio(e.usd, a.usd)})  ` +
          `time ${e.seconds.toFixed(1)} s/${a.seconds.toFixed(1)} s (${ratio(e.seconds, a.seconds)})`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return lines;
}
