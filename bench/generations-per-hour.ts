import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { archiveFile, openArchive, openArchiveReader } from '../archive/index.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
/**
 * Shared by the generations in flight. Tasks wait on the model's latency, not the CPU, so this many do
 * not oversubscribe two cores, and evaluation does not bound the figure: it shows generation-level
 * parallelism.
 */
export const EVAL_WORKERS = 16;

interface Measured extends Phase {
  parallel: number;
  seconds: number;
  /** CPU seconds the machine was busy during the run (see timedRun). */
  cpuSeconds: number;
  /** The machine's 1-minute load average before the run. */
  load: number;
}

/** The generations of one run, from its archive. */
interface Phase {
  /** From variant 0 finished to the last generation finished: the generations alone, without start-up. */
  generationSeconds: number;
  /** A generation's mean time from its selection to its end. */
  meanGeneration: number;
  /** The share of the `--parallel` slots that held a generation over the generations alone. */
  slotsBusy: number;
  /** Each generation's time from its selection to its end, and how far it got. */
  generations: { seconds: number; reached: Reached }[];
}

/**
 * How far a generation got: evaluated, stopped at its gate, or stopped before it (the MetaAgent made no
 * usable edit). Runs at different `--parallel` draw different parents, so the same seed can give them a
 * different mix of these, which take very different times.
 */
type Reached = 'evaluated' | 'gated' | 'edited';

/**
 * Speed-up over `base` for the same work: each run's generations weighed by how long a generation that got
 * as far took in `base` (one at a time), so a run whose generations happened to stop earlier more often
 * does not look faster for it.
 */
function sameWorkSpeedup(r: Measured, base: Measured): number {
  const mean = (reached: Reached): number => {
    const same = base.generations.filter((g) => g.reached === reached);
    const from = same.length > 0 ? same : base.generations;
    return from.reduce((sum, g) => sum + g.seconds, 0) / from.length;
  };
  const work = (m: Measured): number => m.generations.reduce((sum, g) => sum + mean(g.reached), 0);
  return work(r) / r.generationSeconds / (work(base) / base.generationSeconds);
}

/**
 * What bounds a run. Its speed-up over one at a time is K × slotsBusy ÷ slowdown (a generation's mean time
 * against one at a time): slots left empty mean generations waited for their parents' pool (the selection
 * horizon); a slowdown means they waited for a core (gating, start-up, the agents' processes). The machine
 * must be quiet for this to be the run's own: its load average before each run is printed.
 */
function bound(r: Measured, base: Measured): string {
  const slowdown = r.meanGeneration / base.meanGeneration;
  const what =
    slowdown > 1.15
      ? "the CPU: gating, start-up and the agents' processes"
      : r.slotsBusy < 0.85
        ? 'the selection horizon: slots wait for the generations parents are drawn from'
        : 'model latency';
  return `slots ${(r.slotsBusy * 100).toFixed(0)}% busy, a generation ${slowdown.toFixed(2)}x as long: bound by ${what}`;
}

/** How many generations got how far, e.g. `6 evaluated, 2 gated, 4 edited`. */
const mix = (r: Measured): string =>
  (['evaluated', 'gated', 'edited'] as const)
    .map(
      (reached) => `${r.generations.filter((g) => g.reached === reached).length} ${REACHED_LABEL[reached]}`,
    )
    .join(', ');
const REACHED_LABEL: Record<Reached, string> = {
  evaluated: 'evaluated',
  gated: 'stopped at the gate',
  edited: 'stopped before it',
};

function generationPhase(runDir: string, parallel: number): Phase {
  const archive = openArchive(archiveFile(runDir));
  const reader = openArchiveReader(archiveFile(runDir));
  try {
    // A variant moved to `staged` was evaluated; one moved only to `gating` stopped at the gate.
    const events = reader.eventsOf(['staged', 'gating']);
    const reached = (id: number): Reached =>
      events.some((e) => e.variantId === id && e.type === 'staged')
        ? 'evaluated'
        : events.some((e) => e.variantId === id && e.type === 'gating')
          ? 'gated'
          : 'edited';
    const variants = archive.listVariants();
    const start = Date.parse(variants[0]!.finishedAt ?? '');
    const generations = variants.slice(1).map((v) => ({
      selected: Date.parse(v.createdAt),
      ended: Date.parse(v.finishedAt ?? ''),
      reached: reached(v.id),
    }));
    const end = Math.max(...generations.map((g) => g.ended));
    const held = generations.reduce((sum, g) => sum + (g.ended - g.selected), 0);
    return {
      generationSeconds: (end - start) / 1000,
      meanGeneration: held / generations.length / 1000,
      slotsBusy: held / (parallel * (end - start)),
      generations: generations.map((g) => ({ seconds: (g.ended - g.selected) / 1000, reached: g.reached })),
    };
  } finally {
    reader.close();
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
      const load = loadavg()[0] ?? 0;
      const timed = await timedRun(args);
      results.push({
        parallel,
        load,
        ...timed,
        ...generationPhase(path.join(out, `parallel-${parallel}`, `parallel-${parallel}`), parallel),
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
      `${r.generationSeconds.toFixed(1)} s, ${(base.generationSeconds / r.generationSeconds).toFixed(2)}x, ` +
      `${sameWorkSpeedup(r, base).toFixed(2)}x for the same work (${mix(r)}); ` +
      `CPU ${r.cpuSeconds.toFixed(1)} s = ${(busy * 100).toFixed(0)}% of ${cores} cores; ` +
      `mean generation ${r.meanGeneration.toFixed(1)} s; ${bound(r, base)} (load average before: ${r.load.toFixed(1)})`
    );
  });
  return lines;
}
