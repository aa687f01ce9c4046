import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { readExercises } from '../domains/index.ts';
import { PROJECT_ROOT } from '../harness/run/index.ts';
import { type Graded, type Grader, startQueueGraders } from './polyglot-queue-graders.ts';

/**
 * One way of grading: a local grading process, with the grader's build caches or without (as grading was
 * before them), or real queue workers, one or two, which always grade with the caches (as a run's do).
 */
export type GradingSetting =
  | { where: 'process'; caches: 'on' | 'off'; workers: 1 }
  | { where: 'queue'; caches: 'on'; workers: 1 | 2 };

export const SETTINGS: readonly GradingSetting[] = [
  { where: 'process', caches: 'off', workers: 1 },
  { where: 'process', caches: 'on', workers: 1 },
  { where: 'queue', caches: 'on', workers: 1 },
  { where: 'queue', caches: 'on', workers: 2 },
];

export type LanguageBatch = GradingSetting & {
  /** Wall time of the language's two batches, each from the first exercise handed out to the last graded. */
  seconds: number;
  perMinute: number;
  passed: number;
  /** Median wall time of one exercise's grading (on a worker: from adding its job to its result). */
  medianSeconds: number;
};

export interface LanguageGrading {
  language: string;
  exercises: number;
  batches: LanguageBatch[];
}

/**
 * Exercises of the Polyglot benchmark per language (docs/domains.md) that a run grades: 216 of the 225,
 * the 9 refused as tasks (a toolchain or crate Debian lacks, no test to run) are never graded.
 */
export const POLYGLOT_GRADED: Record<string, number> = {
  cpp: 26,
  go: 37,
  java: 45,
  javascript: 49,
  python: 34,
  rust: 25,
};

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** A grading process (bench/grading-worker.ts): each line written is answered by one line. */
class GradingWorker {
  readonly child: ChildProcess;
  readonly lines: Interface;
  private waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];

  constructor(dir: string, caches: 'on' | 'off') {
    this.child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(PROJECT_ROOT, 'bench', 'grading-worker.ts'), dir, caches],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    this.lines = createInterface({ input: this.child.stdout! });
    this.lines.on('line', (line) => this.waiting.shift()?.resolve(line));
    this.child.on('exit', (code) => {
      for (const w of this.waiting.splice(0)) w.reject(new Error(`a grading process ended (${code})`));
    });
  }

  private ask(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin!.write(`${line}\n`);
    });
  }

  /** Builds what grading builds once (the caches), for every exercise. */
  async prepare(): Promise<void> {
    await this.ask('prepare');
  }

  async grade(id: string): Promise<Graded> {
    return JSON.parse(await this.ask(id)) as Graded;
  }
}

/** Grades `ids` with `graders`, each taking the next exercise as it is free, as queue workers do. */
async function batch(
  graders: Grader[],
  ids: readonly string[],
): Promise<{ seconds: number; graded: Graded[] }> {
  const graded: Graded[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    graders.map(async (grade) => {
      while (next < ids.length) graded.push(await grade(ids[next++]!));
    }),
  );
  return { seconds: (performance.now() - started) / 1000, graded };
}

/**
 * Grades the reference of every exercise under `dir` (default: the six-language fixtures; a checkout of the
 * polyglot-benchmark repository works too; `perLanguage`: N of each language, spread over its names), language by
 * language, in each of SETTINGS one after the other and then again in the reverse order, so that a change
 * of load falls on all four alike. A process is a local grading process; a worker is a real `hyperagents
 * worker` behind a real Redis (polyglot-queue-graders.ts), started afresh for each batch (its start not
 * timed); each grades one exercise at a time. The local processes build what grading prepares once (Go's
 * standard library, a Rust manifest's crates, C++'s Catch main, Java's runner) before the first batch, in
 * the same user cache the workers read.
 */
export async function benchPolyglotGrading(
  dir = path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism'),
  perLanguage = Number.POSITIVE_INFINITY,
): Promise<LanguageGrading[]> {
  const tasks = readExercises(dir).tasks.sort((a, b) => a.id.localeCompare(b.id));
  const all = new Map<string, string[]>();
  for (const task of tasks) all.set(task.input.language, [...(all.get(task.input.language) ?? []), task.id]);
  // N spread evenly over the language's exercises in name order, so a sample is not one end of the alphabet.
  const byLanguage = new Map(
    [...all].map(([language, ids]) => {
      const n = Math.min(ids.length, perLanguage);
      return [language, Array.from({ length: n }, (_, i) => ids[Math.floor((i * ids.length) / n)]!)];
    }),
  );
  const processes = { on: new GradingWorker(dir, 'on'), off: new GradingWorker(dir, 'off') };
  const queue = await startQueueGraders(dir, 'polyglot', tasks);
  try {
    // One at a time: the first builds the caches, the other finds them.
    for (const w of [processes.on, processes.off]) await w.prepare();
    const graders = async (setting: GradingSetting): Promise<Grader[]> => {
      if (setting.where === 'queue') return queue.start(setting.workers);
      const w = processes[setting.caches];
      return [(id) => w.grade(id)];
    };
    const results: LanguageGrading[] = [];
    for (const [language, ids] of [...byLanguage].sort(([a], [b]) => a.localeCompare(b))) {
      // Two rounds, the second in the reverse order, so a load that rises or falls favours no setting.
      const runs = new Map<GradingSetting, { seconds: number; graded: Graded[] }[]>();
      for (const setting of [...SETTINGS, ...[...SETTINGS].reverse()]) {
        const run = await batch(await graders(setting), ids);
        await queue.stop();
        runs.set(setting, [...(runs.get(setting) ?? []), run]);
      }
      results.push({
        language,
        exercises: ids.length,
        batches: SETTINGS.map((s) => summed(s, runs.get(s) ?? [])),
      });
    }
    return results;
  } finally {
    await queue.close();
    for (const w of [processes.on, processes.off]) {
      w.child.stdin!.end();
      w.lines.close();
    }
  }
}

/** A setting's batches of one language as one: wall time, rate, passes and the median exercise. */
function summed(setting: GradingSetting, runs: { seconds: number; graded: Graded[] }[]): LanguageBatch {
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  const graded = runs.flatMap((r) => r.graded);
  return {
    ...setting,
    seconds,
    perMinute: (graded.length / seconds) * 60,
    passed: graded.filter((g) => g.passed).length,
    medianSeconds: median(graded.map((g) => g.seconds)),
  };
}
