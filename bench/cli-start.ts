import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median } from '../archive/index.ts';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { COMMANDS } from '../cli/commands.ts';

const HYPERAGENTS = path.resolve(import.meta.dirname, '..', 'bin', 'hyperagents.mjs');
const GENERATE_LOOP = path.resolve(import.meta.dirname, '..', 'bin', 'generate-loop.mjs');

/** CPU time (user and system) of this process's children that have ended, in ms; null off Linux. */
function childrenCpuMs(): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  // The fields after the command's name, which ends with ')': cutime and cstime are the 14th and 15th.
  const fields = readFileSync('/proc/self/stat', 'utf8').split(')').at(-1)!.trim().split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/**
 * Wall time of one command to its exit and the CPU it used, in ms; throws when it fails, since a failed
 * start proves nothing.
 */
function timed(args: string[]): { wall: number; cpu: number | null } {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const wall = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr.toString()}`);
  const cpuAfter = childrenCpuMs();
  return { wall, cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

/**
 * Start-up of every command (each one's `--help`, `generate-loop --help`), `archive list` (of a run folder
 * of 5 variants), `domains` and `models` against `node -e 0`, run in turn in each round (the order
 * rotating) so all see the same machine load; the medians, and each as a ratio to node's own. Returns
 * report lines.
 */
export async function benchCliStart(rounds = Number(process.env.BENCH_ROUNDS ?? 15)): Promise<string[]> {
  const runs = mkdtempSync(path.join(tmpdir(), 'bench-cli-start-'));
  writeSyntheticRun(runs, { id: 'small', variants: 5, seed: 1 });
  const commands: [string, string[]][] = [
    ['node -e 0', ['-e', '0']],
    ['hyperagents --help', [HYPERAGENTS, '--help']],
    ['generate-loop --help', [GENERATE_LOOP, '--help']],
    ...COMMANDS.map((c): [string, string[]] => [`${c.name} --help`, [HYPERAGENTS, c.name, '--help']]),
    ['hyperagents archive list', [HYPERAGENTS, 'archive', 'list', '--runs', runs]],
    ['hyperagents domains', [HYPERAGENTS, 'domains']],
    ['hyperagents models', [HYPERAGENTS, 'models']],
  ];
  const times = commands.map((): number[] => []);
  const cpu = commands.map((): (number | null)[] => []);
  try {
    // The first round builds the commands if a source changed, and warms the file cache: not counted.
    for (let round = 0; round <= rounds; round++) {
      for (let k = 0; k < commands.length; k++) {
        const i = (k + round) % commands.length;
        const run = timed(commands[i]![1]);
        if (round === 0) continue;
        times[i]!.push(run.wall);
        cpu[i]!.push(run.cpu);
      }
    }
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
  const base = median(times[0]!)!;
  // The kernel counts CPU in ticks of 10 ms: the mean over the rounds is finer than any one run.
  const meanCpu = (i: number) =>
    cpu[i]!.includes(null)
      ? ''
      : `, CPU ${(cpu[i]!.reduce((a, b) => a! + b!, 0)! / rounds).toFixed(0)} ms (mean)`;
  return [
    `Start-up, wall time to exit (median of ${rounds} rounds, the commands in turn), ${cpus().length} cores, ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    ...commands.map(([label], i) => {
      const ms = median(times[i]!)!;
      return `  ${label.padEnd(26)} ${ms.toFixed(0).padStart(5)} ms  ${(ms / base).toFixed(2)}x node -e 0${meanCpu(i)}`;
    }),
  ];
}
