import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Archive, openArchive } from '../archive.ts';
import { openArchiveReader } from '../read.ts';
import { archiveFile, runLockFile } from '../run-folder.ts';
import { seededRandom } from '../stats.ts';

export interface SyntheticRunOptions {
  id: string;
  variants: number;
  seed?: number;
  domains?: string[];
  /**
   * How the run ended; `running` leaves it open as if still going, held by this process (run.lock), and
   * `interrupted` open as if its process had been killed.
   */
  status?: 'running' | 'interrupted' | 'done' | 'stopped' | 'failed';
  /** Mean score change from parent to child (default 0.01): lets a comparison tell two groups of runs apart. */
  lift?: number;
  /**
   * Tasks per domain and split (default 20), and whether each task's outcome is drawn rather than the first
   * ones right: variant 0's with its score as the chance of right, a child's as its parent's but drawn
   * afresh at a rate of 4 % a task, so a child breaks and fixes a few of its parent's tasks.
   */
  tasks?: { perSplit: number; drawn: boolean };
  model?: string;
  /** Merged into the stored run configuration (e.g. `{ parentSelection: 'latest' }`). */
  config?: Record<string, unknown>;
  /**
   * The model calls every variant makes (failed and rejected ones too), in place of the one call of random
   * cost each evaluated variant makes by default: known sums by role and model, for readers' totals.
   */
  calls?: {
    role: string;
    model: string;
    /** The model the provider said served the call; none when absent. */
    reportedModel?: string;
    costUsd: number;
    input: number;
    output: number;
  }[];
}

/**
 * Writes a run archive directly through the archive API, without running agents: a tree of
 * `variants` variants with scores, task results, model calls and events. For tests, screenshots and
 * benchmarks of the readers. Deterministic in `seed`. Returns the run folder.
 */
export function writeSyntheticRun(runsDir: string, options: SyntheticRunOptions): string {
  const {
    id,
    variants,
    seed = 1,
    domains = ['arithmetic'],
    status = 'done',
    lift = 0.01,
    model = 'sim',
  } = options;
  const dir = path.join(runsDir, id);
  mkdirSync(dir, { recursive: true });
  const archive = openArchive(archiveFile(dir));
  const random = seededRandom(seed);
  archive.createRun({
    id,
    harnessVersion: 'synthetic',
    seed,
    metaModel: model,
    taskModel: model,
    simulated: model === 'sim',
    domains,
    config: { generations: variants - 1, domains, parentSelection: 'score_child_prop', ...options.config },
  });
  const scores = new Map<number, number>();
  const outcomes = new Map<string, boolean[]>();
  archive.transaction(() => {
    for (let v = 0; v < variants; v++)
      writeVariant(archive, v, random, scores, {
        domains,
        lift,
        model,
        calls: options.calls,
        tasks: { ...(options.tasks ?? { perSplit: 20, drawn: false }), outcomes },
      });
  });
  if (status === 'running') writeFileSync(runLockFile(dir), `${process.pid}\n`);
  else if (status !== 'interrupted') archive.finishRun(status);
  archive.close();
  return dir;
}

type VariantOptions = {
  domains: string[];
  lift: number;
  model: string;
  calls: SyntheticRunOptions['calls'];
  /** `outcomes`: each variant's drawn outcomes by `variant/domain/split`, which its children start from. */
  tasks?: { perSplit: number; drawn: boolean; outcomes?: Map<string, boolean[]> };
};
/** The chance that a child's outcome on a task is drawn afresh rather than its parent's (drawn tasks). */
const REDRAW = 0.04;
const START = Date.parse('2026-01-01T00:00:00Z');

/** Writes variant `v` of a synthetic run, its parent drawn from those before it; records its score in `scores`. */
function writeVariant(
  archive: Archive,
  v: number,
  random: () => number,
  scores: Map<number, number>,
  { domains, lift, model, calls, tasks = { perSplit: 20, drawn: false } }: VariantOptions,
): void {
  const parent = v === 0 ? null : Math.floor(random() * v);
  archive.insertVariant({ id: v, parentId: parent, step: 'selected', selectionReason: 'synthetic' });
  (calls ?? []).forEach((c, i) => {
    archive.insertLlmCall({
      ts: new Date(START + v * 60_000 + i * 1000).toISOString(),
      variantId: v,
      role: c.role,
      model: c.model,
      reportedModel: c.reportedModel,
      usage: { input: c.input, output: c.output, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      costUsd: c.costUsd,
      latencyMs: 500,
      status: 'ok',
    });
  });
  const roll = random();
  if (v > 0 && roll < 0.12) {
    archive.updateVariant(v, {
      step: 'failed',
      status: 'rejected',
      failureReason: 'gate: typecheck failed',
    });
    return;
  }
  if (v > 0 && roll < 0.18) {
    archive.updateVariant(v, {
      step: 'failed',
      status: 'failed',
      failureReason: 'MetaAgent timed out after 600 s',
    });
    return;
  }
  const base = parent === null ? 0.3 : (scores.get(parent) ?? 0.3);
  const score = Math.min(1, Math.max(0, base + lift + (random() - 0.5) * 0.1));
  scores.set(v, score);
  for (const domain of domains) {
    for (const split of ['train', 'val'] as const) {
      const n = tasks.perSplit;
      const inherited = parent === null ? undefined : tasks.outcomes?.get(`${parent}/${domain}/${split}`);
      const right = Array.from({ length: n }, (_, t) => {
        if (!tasks.drawn) return t < Math.round(score * n);
        const before = inherited?.[t];
        return before !== undefined && random() >= REDRAW ? before : random() < score;
      });
      tasks.outcomes?.set(`${v}/${domain}/${split}`, right);
      const correct = right.filter(Boolean).length;
      archive.putEvaluation({
        variantId: v,
        domain,
        split,
        stage: 'full',
        score: correct / n,
        nTasks: n,
        nTotal: n,
        correct,
        wrong: n - correct,
        parseFailures: 0,
        errors: 0,
      });
      archive.putTaskResults(
        Array.from({ length: n }, (_, t) => ({
          variantId: v,
          domain,
          split,
          taskId: `${split}-${t}`,
          outcome: right[t] ? ('correct' as const) : ('wrong' as const),
          prediction: t,
          rawOutput: `{"response": ${t}}`,
          score: right[t] ? 1 : 0,
          error: null,
          latencyMs: 100 + t,
          costUsd: 0.0001,
          reused: false,
          codeHash: `h${v}`,
          taskModel: model,
        })),
      );
    }
  }
  if (calls === undefined)
    archive.insertLlmCall({
      ts: new Date(START + v * 60_000).toISOString(),
      variantId: v,
      role: v === 0 ? 'task' : 'meta',
      model,
      usage: { input: 1000, output: 200, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      costUsd: 0.01 + random() * 0.01,
      latencyMs: 500,
      status: 'ok',
    });
  archive.recordEvent(v, 'done', { status: 'evaluated', score });
  archive.updateVariant(v, {
    step: 'done',
    status: 'evaluated',
    validParent: true,
    selectionScore: score,
  });
}

/**
 * Adds `count` variants to a synthetic run written by writeSyntheticRun (as a run under way would),
 * drawn from `seed`. For benchmarks and tests of a live page. Returns the ids added.
 */
export function addSyntheticVariants(
  dir: string,
  count: number,
  options: { seed?: number; lift?: number; domains?: string[]; model?: string } = {},
): number[] {
  const { seed = 1, lift = 0.01, domains = ['arithmetic'], model = 'sim' } = options;
  const reader = openArchiveReader(archiveFile(dir));
  const known = reader.variants();
  reader.close();
  const scores = new Map(known.flatMap((v) => (v.score === null ? [] : [[v.id, v.score] as const])));
  const first = Math.max(-1, ...known.map((v) => v.id)) + 1;
  const random = seededRandom(seed + first);
  const ids = Array.from({ length: count }, (_, k) => first + k);
  const archive = openArchive(archiveFile(dir));
  try {
    archive.transaction(() => {
      for (const v of ids)
        writeVariant(archive, v, random, scores, { domains, lift, model, calls: undefined });
    });
  } finally {
    archive.close();
  }
  return ids;
}
