import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openArchiveReader } from '../archive/index.ts';
import { DEFAULT_FUTILITY_ALPHA } from '../harness/run/index.ts';
import { evidencePaths, evidenceSvg, evidenceText, type Trajectory } from './acceptance-plot.ts';

/**
 * `npx tsx bench/acceptance.ts [--seeds 7301-7306] [--generations 12] [--noise 0.3] [--futility-alpha 0.3]`:
 * `--accept sequential` against `--accept full` on the noisy simulated model over the same seeds and
 * generations (each run in its own folder, so no run reuses another's results): the TaskAgent's model calls,
 * the best variant's test score (`hyperagents eval` after the run), and on the flat landscape how many children
 * were decided `better` (every one a false acceptance) against alpha. Writes the table to stdout and the plot
 * of evidence against tasks used to docs/acceptance-evidence.svg (with --plot). See docs/acceptance.md.
 */

const ROOT = path.resolve(import.meta.dirname, '..');

interface RunResult {
  taskCalls: number;
  bestId: number;
  bestTest: number;
  children: number;
  decisions: Record<'better' | 'worse' | 'undecided', number>;
  runDir: string;
}

function run(cmd: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cmd, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${cmd.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

async function oneRun(
  dir: string,
  seed: number,
  args: { generations: number; noise: number; futilityAlpha: number },
  accept: 'full' | 'sequential',
  landscape: 'default' | 'flat',
): Promise<RunResult> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const loop = [
    path.join(ROOT, 'bin', 'generate-loop.mjs'),
    ...['--model', 'sim', '--domains', 'arithmetic', '--generations', String(args.generations)],
    ...['--seed', String(seed), '--sim-noise', String(args.noise), '--sim-landscape', landscape],
    ...['--accept', accept, '--out', dir, '--json', '--quiet'],
    ...(accept === 'sequential' ? ['--futility-alpha', String(args.futilityAlpha)] : []),
  ];
  const summary = JSON.parse(await run(loop, dir)) as { runDir: string; best: { id: number } | null };
  const reader = openArchiveReader(path.join(summary.runDir, 'archive.sqlite'));
  const taskCalls = reader.llmCalls().filter((c) => c.role === 'task').length;
  const accepted = [...reader.acceptance().values()];
  reader.close();
  const bestId = summary.best?.id ?? 0;
  const evaluated = [path.join(ROOT, 'bin', 'hyperagents.mjs'), 'eval', `${summary.runDir}:${bestId}`];
  const test = JSON.parse(
    await run([...evaluated, '--domains', 'arithmetic', '--split', 'test', '--json'], dir),
  ) as { scores?: Record<string, number> };
  const decisions = { better: 0, worse: 0, undecided: 0 };
  for (const a of accepted) decisions[a.decision]++;
  return {
    taskCalls,
    bestId,
    bestTest: testScore(test),
    children: accepted.length,
    decisions,
    runDir: summary.runDir,
  };
}

/** The test score `hyperagents eval --json` printed: `{"scores": {"arithmetic": 0.875}}`. */
function testScore(json: { scores?: Record<string, number> }): number {
  const score = json.scores?.arithmetic;
  if (score === undefined) throw new Error(`no test score in ${JSON.stringify(json)}`);
  return score;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

function seedList(text: string): number[] {
  const range = /^(\d+)-(\d+)$/.exec(text);
  if (range)
    return Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => Number(range[1]) + i);
  return text.split(',').map(Number);
}

/** Runs `jobs` two at a time (the machine's cores are shared). */
async function inPairs<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < jobs.length; i += 2)
    results.push(...(await Promise.all(jobs.slice(i, i + 2).map((j) => j()))));
  return results;
}

/** The table and the three figures the targets are about. */
function report(
  seeds: readonly number[],
  args: { generations: number; noise: number; futilityAlpha: number },
  full: RunResult[],
  seq: RunResult[],
  flat: RunResult[],
): void {
  console.log(
    `seeds ${seeds.join(',')}, ${args.generations} generations, --sim-noise ${args.noise}, ` +
      `--futility-alpha ${args.futilityAlpha}, alpha 0.05`,
  );
  console.log(
    '| seed | full: task calls | sequential: task calls | ratio | full: best test | sequential: best test | sequential decisions (better/worse/undecided) | flat: better of children |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  seeds.forEach((seed, i) => {
    const [f, s, l] = [full[i]!, seq[i]!, flat[i]!];
    console.log(
      `| ${seed} | ${f.taskCalls} | ${s.taskCalls} | ${(s.taskCalls / f.taskCalls).toFixed(2)} | ` +
        `${f.bestTest.toFixed(3)} | ${s.bestTest.toFixed(3)} | ` +
        `${s.decisions.better}/${s.decisions.worse}/${s.decisions.undecided} | ${l.decisions.better} of ${l.children} |`,
    );
  });
  const sum = (xs: RunResult[], f: (r: RunResult) => number) => xs.reduce((a, r) => a + f(r), 0);
  const flatChildren = sum(flat, (r) => r.children);
  const flatBetter = sum(flat, (r) => r.decisions.better);
  console.log(
    `\ntotal task calls: sequential ${sum(seq, (r) => r.taskCalls)} of full ${sum(full, (r) => r.taskCalls)} ` +
      `(${((100 * sum(seq, (r) => r.taskCalls)) / sum(full, (r) => r.taskCalls)).toFixed(1)} %)`,
  );
  console.log(
    `median best test score: full ${median(full.map((r) => r.bestTest)).toFixed(3)}, ` +
      `sequential ${median(seq.map((r) => r.bestTest)).toFixed(3)}`,
  );
  console.log(
    `flat landscape: ${flatBetter} of ${flatChildren} children decided better ` +
      `(target at most alpha·children + 1 = ${(0.05 * flatChildren + 1).toFixed(1)}); ` +
      `worse ${sum(flat, (r) => r.decisions.worse)}, undecided ${sum(flat, (r) => r.decisions.undecided)}`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seeds: { type: 'string', default: '7301-7306' },
      generations: { type: 'string', default: '12' },
      noise: { type: 'string', default: '0.3' },
      'futility-alpha': { type: 'string', default: String(DEFAULT_FUTILITY_ALPHA) },
      out: { type: 'string', default: path.join(tmpdir(), 'hyperagents-bench-acceptance') },
      plot: { type: 'boolean', default: false },
    },
  });
  const seeds = seedList(values.seeds);
  const args = {
    generations: Number(values.generations),
    noise: Number(values.noise),
    futilityAlpha: Number(values['futility-alpha']),
  };
  const jobs = seeds.flatMap((seed) =>
    (
      [
        ['full', 'default'],
        ['sequential', 'default'],
        ['sequential', 'flat'],
      ] as const
    ).map(
      ([accept, landscape]) =>
        async () =>
          [
            seed,
            accept,
            landscape,
            await oneRun(
              path.join(values.out, `${seed}-${accept}-${landscape}`),
              seed,
              args,
              accept,
              landscape,
            ),
          ] as const,
    ),
  );
  const results = await inPairs(jobs);
  const of = (accept: string, landscape: string) =>
    results.filter((r) => r[1] === accept && r[2] === landscape).map((r) => r[3]);
  const full = of('full', 'default');
  const seq = of('sequential', 'default');
  report(seeds, args, full, seq, of('sequential', 'flat'));
  if (values.plot) {
    const first = seq[0];
    if (first !== undefined) {
      const paths: Trajectory[] = evidencePaths(first.runDir, 6);
      writeFileSync(
        path.join(ROOT, 'docs', 'acceptance-evidence.svg'),
        evidenceSvg(paths, 0.05, args.futilityAlpha),
      );
      console.log(`\nwrote docs/acceptance-evidence.svg (${paths.length} children of seed ${seeds[0]})`);
      for (const line of evidenceText(paths)) console.log(line);
    }
  }
}

await main();
