import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Archive, openArchive } from '../archive/archive.ts';
import { createRng } from '../domains/rng.ts';
import { createEvalsFolders, type EvalsFolders } from '../harness/evals-folder.ts';
import type { DomainTasks } from '../harness/evaluate.ts';
import { archivedVariants } from '../harness/parent-choice.ts';
import { loadDomainTasks } from '../harness/run.ts';
import type { RunConfig } from '../harness/run-config.ts';
import { progressLine } from '../harness/run-summary.ts';
import { selectionScore } from '../harness/scoring.ts';
import { selectionPool, selectParent } from '../harness/selection.ts';

const TASKS_PER_SPLIT = 20;

/** Stores a finished variant the way a generation leaves it: evaluations, task results, selection score. */
function storeVariant(archive: Archive, id: number, parentId: number | null): void {
  archive.insertVariant({
    id,
    parentId,
    state: 'selected',
    parentCommit: parentId === null ? null : `c${parentId}`,
  });
  archive.transitionVariant(id, 'selected', 'editing');
  archive.transitionVariant(id, 'editing', 'gating', {
    commitSha: `c${id}`,
    taskCodeHash: `h${id}`,
    diffStat: '{"files":["agents/task/prompt.md"]}',
  });
  archive.transitionVariant(id, 'gating', 'staged');
  for (const split of ['train', 'val'] as const) {
    archive.putTaskResults(
      Array.from({ length: TASKS_PER_SPLIT }, (_, t) => ({
        variantId: id,
        domain: 'arithmetic',
        split,
        taskId: `arithmetic-${split}-${t}`,
        outcome: t % 3 === 0 ? ('correct' as const) : ('wrong' as const),
        prediction: t,
        rawOutput: `<json>{"response": ${t}}</json>`,
        score: t % 3 === 0 ? 1 : 0,
        error: null,
        latencyMs: 200,
        costUsd: 0,
        reused: false,
        codeHash: `h${id}`,
        taskModel: 'sim',
      })),
    );
    for (const stage of ['staged', 'full'] as const) {
      if (stage === 'full' && split === 'train') archive.transitionVariant(id, 'staged', 'full');
      archive.putEvaluation({
        variant_id: id,
        domain: 'arithmetic',
        split,
        stage,
        score: 0.35,
        n_tasks: TASKS_PER_SPLIT,
        n_total: TASKS_PER_SPLIT,
        correct: 7,
        wrong: 13,
        parse_failures: 0,
        errors: 0,
      });
    }
  }
  archive.transitionVariant(id, 'full', 'done', {
    status: 'evaluated',
    validParent: true,
    selectionScore: 0.35 + id * 1e-4,
  });
}

/**
 * The harness's own work for one generation, without the agents: parent selection over the archive (the
 * parent is given, so that the lineage's depth is known), the MetaAgent's evals folder for the parent, the
 * child moved through its steps with its results, scored, and its line printed.
 * Returns the milliseconds it took.
 */
async function oneGeneration(
  archive: Archive,
  id: number,
  parent: number,
  domains: readonly DomainTasks[],
  evals: EvalsFolders,
  dir: string,
): Promise<number> {
  const config = { generations: 1000, parentSelection: 'score_child_prop' } as RunConfig;
  const started = performance.now();
  const pool = selectionPool(archivedVariants({ archive }), id, 1);
  selectParent(pool, 'score_child_prop', createRng(`bench:${id}`));
  const folder = path.join(dir, `evals-${id}`);
  evals.write(folder, parent);
  evals.release(folder);
  storeVariant(archive, id, parent);
  selectionScore(
    archive.listEvaluations(id),
    domains.map((d) => d.domain),
  );
  progressLine({ archive, config }, id, 0);
  return performance.now() - started;
}

/**
 * Harness time per generation when the parent is at lineage depth `depth` (an archive of a chain of `depth`
 * variants): the median of `repeats` generations, with the evals folder kept and updated from one
 * generation to the next (`reused`, as runs under bubblewrap do) and written afresh each time (`fresh`).
 */
export async function benchHarnessOverhead(depths: number[], repeats = 15): Promise<string[]> {
  const domains = await loadDomainTasks({
    domains: ['arithmetic'],
    dataset: {},
    evalSamples: TASKS_PER_SPLIT,
    stagedSamples: null,
  });
  if ('error' in domains) throw new Error(domains.error);
  const lines: string[] = [];
  for (const reuse of [true, false]) {
    const how = reuse ? 'reused' : 'fresh';
    // Every depth's archive is made first and the depths take turns, so a change of the machine's load
    // during the measurement falls on all of them alike.
    const setups = depths.map((depth) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'bench-overhead-'));
      const archive = openArchive(path.join(dir, 'archive.sqlite'));
      for (let id = 0; id < depth; id++) storeVariant(archive, id, id === 0 ? null : id - 1);
      return {
        depth,
        dir,
        archive,
        evals: createEvalsFolders(archive, domains, { reuse }),
        times: [] as number[],
      };
    });
    try {
      for (let r = 0; r < repeats; r++) {
        for (const { depth, dir, archive, evals, times } of setups) {
          // Fresh: every child's parent is the chain's tip, at exactly `depth`. Reused: each child is the next
          // one's parent, so each folder gains a variant (and past LINEAGE_FOLDERS loses one), the most it changes.
          const parent = reuse ? depth + r - 1 : depth - 1;
          times.push(await oneGeneration(archive, depth + r, parent, domains, evals, dir));
        }
      }
    } finally {
      for (const { dir, archive, evals } of setups) {
        evals.dispose();
        archive.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    const medians = setups.map(
      ({ times }) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!,
    );
    setups.forEach(({ depth }, i) => {
      lines.push(
        `  evals folder ${how.padEnd(6)} lineage depth ${String(depth).padStart(3)}: ${medians[i]!.toFixed(1).padStart(7)} ms per generation (median of ${repeats})`,
      );
    });
    const last = depths.length - 1;
    for (let i = 0; i < last; i++) {
      lines.push(
        `  evals folder ${how.padEnd(6)} depth ${depths[last]} / depth ${depths[i]}: ${(medians[last]! / medians[i]!).toFixed(2)}x`,
      );
    }
  }
  return lines;
}
