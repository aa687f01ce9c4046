import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { openArchive } from '../archive/archive.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
/**
 * Shared by the generations in flight. Tasks wait on the model's latency, not the CPU, so this many do
 * not oversubscribe two cores, and evaluation does not bound the figure: it shows generation-level
 * parallelism.
 */
export const EVAL_WORKERS = 16;

interface Measured {
  parallel: number;
  seconds: number;
  /** From variant 0 finished to the last generation finished: the generations alone, without start-up. */
  generationSeconds: number;
  /** CPU seconds the machine was busy during the run (see timedRun). */
  cpuSeconds: number;
  /** The machine's 1-minute load average at the run's end. */
  load: number;
}

/**
 * What bounds a run: its own CPU when it keeps the cores busy; else the model's latency, or, on a machine
 * other work keeps busier than its cores (load average above the core count), the CPU that work leaves it.
 */
function bound(busy: number, load: number, cores: number): string {
  if (busy > 0.8) return 'CPU-bound: gating and start-up';
  if (load > cores)
    return `bound by the CPU other work leaves it: load average ${load.toFixed(1)} on ${cores} cores`;
  return 'bound by model latency';
}

/** Seconds from variant 0's end to the last variant's end, from the run's archive. */
function generationPhase(runDir: string): number {
  const archive = openArchive(path.join(runDir, 'archive.sqlite'));
  try {
    const ends = archive.listVariants().map((v) => Date.parse(v.finished_at ?? ''));
    return (Math.max(...ends) - ends[0]!) / 1000;
  } finally {
    archive.close();
  }
}

/** CPU seconds the whole machine has spent busy since boot (every process, from /proc/stat). */
function machineBusySeconds(): number {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS;
}
/** Linux's USER_HZ, the unit of /proc/stat. */
const CLOCK_TICKS = 100;

/**
 * One simulated run through the command, as a user starts it. Its CPU is the machine's busy time over the
 * run: agent processes end in sandboxes that are killed, not waited for, so the run's own accounting
 * (`times`) misses most of them. On a quiet machine nearly all of it is the run's.
 */
function timedRun(args: string[]): Promise<{ seconds: number; cpuSeconds: number }> {
  const started = performance.now();
  const busyBefore = machineBusySeconds();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(ROOT, 'bin', 'generate-loop.mjs'), ...args], (error) => {
      if (error) return reject(new Error(`generate-loop failed: ${error.message}`));
      resolve({
        seconds: (performance.now() - started) / 1000,
        cpuSeconds: machineBusySeconds() - busyBefore,
      });
    });
  });
}

/**
 * Generations per hour of simulated runs at each `--parallel`, with every model call taking `latencyMs`:
 * the same seed and generations each time, so only the parallelism differs.
 */
export async function benchGenerationsPerHour(
  parallels: number[],
  generations: number,
  latencyMs: number,
): Promise<string[]> {
  const out = mkdtempSync(path.join(tmpdir(), 'bench-gph-'));
  const results: Measured[] = [];
  try {
    for (const parallel of parallels) {
      const args = [
        '--domains',
        'arithmetic',
        '--model',
        'sim',
        '--seed',
        '1',
        '--generations',
        String(generations),
        '--parallel',
        String(parallel),
        '--eval-samples',
        '6',
        '--eval-workers',
        String(EVAL_WORKERS),
        '--sim-latency-ms',
        String(latencyMs),
        // A folder per run: the eval cache is shared within one, and a later run would reuse earlier results.
        '--out',
        path.join(out, `parallel-${parallel}`),
        '--run-id',
        `parallel-${parallel}`,
        '--quiet',
      ];
      const timed = await timedRun(args);
      results.push({
        parallel,
        ...timed,
        generationSeconds: generationPhase(path.join(out, `parallel-${parallel}`, `parallel-${parallel}`)),
        load: loadavg()[0] ?? 0,
      });
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const cores = availableParallelism();
  const base = results[0]!;
  const lines = results.map((r) => {
    const perHour = (generations / r.seconds) * 3600;
    const busy = r.cpuSeconds / (r.seconds * cores);
    return (
      `  --parallel ${r.parallel}: ${r.seconds.toFixed(1).padStart(6)} s, ${perHour.toFixed(0).padStart(4)} generations/hour, ` +
      `${(base.seconds / r.seconds).toFixed(2)}x --parallel ${base.parallel}; generations alone ` +
      `${r.generationSeconds.toFixed(1)} s, ${(base.generationSeconds / r.generationSeconds).toFixed(2)}x; ` +
      `CPU ${r.cpuSeconds.toFixed(1)} s = ${(busy * 100).toFixed(0)}% of ${cores} cores ` +
      `(${bound(busy, r.load, cores)})`
    );
  });
  return lines;
}
