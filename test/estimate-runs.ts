import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { runCli } from './run-cli.ts';

/**
 * `generate-loop --estimate` against the run it estimates: a short run of a configuration gives the rates
 * (seed 11), then the estimate for a longer run of it (seed 12) is printed, and that run is made and measured.
 */

/** Three configurations that differ in what an estimate must scale: repeats, domains, parallel, confirmation. */
export const ESTIMATE_CONFIGS: Record<string, string[]> = {
  plain: ['--domains', 'arithmetic', '--eval-samples', '10'],
  repeats: ['--domains', 'arithmetic', '--eval-samples', '8', '--eval-repeats', '2'],
  'two domains, parallel, confirmed': [
    ...['--domains', 'text,arithmetic', '--eval-samples', '6', '--parallel', '2', '--confirm-top', '2'],
  ],
};

export interface Figures {
  calls: number;
  usd: number;
  seconds: number;
}

export interface EstimateCheck {
  estimated: Figures;
  actual: Figures;
  /** What `--estimate` printed. */
  lines: string[];
}

const SIM = ['--model', 'sim', '--sim-price-per-mtok', '3', '--quiet'];

/** "about 1,234 model calls, $0.32, 31 s." (or min / h) as figures. */
export function parseEstimate(line: string): Figures | null {
  const m = /about ([\d,]+) model calls, \$([\d.]+), ([\d.]+) (s|min|h)\./.exec(line);
  if (m === null) return null;
  const unit = { s: 1, min: 60, h: 3600 }[m[4] as 's' | 'min' | 'h'];
  return { calls: Number(m[1]!.replaceAll(',', '')), usd: Number(m[2]), seconds: Number(m[3]) * unit };
}

async function must(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const result = await runCli('generate-loop', args, env);
  if (result.code !== 0) throw new Error(`generate-loop ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * The figures among calls and cost that an estimate missed by more than 25% (the bar), each saying
 * both values; empty when it met the bar. Time is compared in `npm run bench -- estimate`.
 */
export function missedBy25(estimated: Figures, actual: Figures): string[] {
  const off = (e: number, a: number) => Math.abs(e - a) / a > 0.25;
  return [
    ...(off(estimated.calls, actual.calls)
      ? [`calls: ${estimated.calls} estimated, ${actual.calls} made`]
      : []),
    ...(off(estimated.usd, actual.usd) ? [`cost: $${estimated.usd} estimated, $${actual.usd} spent`] : []),
  ];
}

/** How the estimate gets its rates: a short run first (`--estimate-from`), or `--pilot` with these options. */
export interface EstimateSource {
  generations?: { history: number; run: number };
  /** The options of `--pilot` (no history is run), and the environment of the command that estimates. */
  pilot?: { args: readonly string[]; env: NodeJS.ProcessEnv };
}

/** Runs the history (or the pilot), the estimate and the run in `out` (a new folder each time). */
export async function estimateAgainstRun(
  out: string,
  config: readonly string[],
  { generations = { history: 3, run: 6 }, pilot }: EstimateSource = {},
): Promise<EstimateCheck> {
  if (pilot === undefined)
    await must([
      ...config,
      ...SIM,
      '--generations',
      String(generations.history),
      '--seed',
      '11',
      '--out',
      out,
      '--run-id',
      'history',
    ]);
  const run = [...config, ...SIM, '--generations', String(generations.run), '--seed', '12', '--out', out];
  const source = pilot?.args ?? ['--estimate-from', 'history'];
  const lines = (await must([...run, '--estimate', ...source], pilot?.env)).trim().split('\n');
  if (existsSync(path.join(out, 'run'))) throw new Error('--estimate made a run folder');
  const estimated = parseEstimate(lines[0] ?? '');
  if (estimated === null) throw new Error(`no estimate in: ${lines.join('\n')}`);
  const started = performance.now();
  await must([...run, '--run-id', 'run']);
  const seconds = (performance.now() - started) / 1000;
  const db = new Database(path.join(out, 'run', 'archive.sqlite'), { readonly: true });
  try {
    const row = db.prepare('SELECT COUNT(*) AS calls, TOTAL(cost_usd) AS usd FROM llm_calls').get() as {
      calls: number;
      usd: number;
    };
    return { estimated, actual: { calls: row.calls, usd: row.usd, seconds }, lines };
  } finally {
    db.close();
  }
}
