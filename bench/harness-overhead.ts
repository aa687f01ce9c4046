import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Archive, archiveFile, openArchive } from '../archive/index.ts';
import type { DomainTasks } from '../harness/evaluation/index.ts';
import {
  createEvalsFolders,
  type EvalsFolders,
  type EvalsWrite,
  selectionScore,
} from '../harness/evaluation/index.ts';
import { archivedVariants, selectionPool, selectParent } from '../harness/generation/index.ts';
import type { RunConfig } from '../harness/run/index.ts';
import { loadDomainTasks, progressLine } from '../harness/run/index.ts';
import { createRng } from '../system/rng.ts';
import { upperMedian } from './tasks.ts';

const TASKS_PER_SPLIT = 20;

/** Stores a finished variant the way a generation leaves it: evaluations, task results, selection score. */
function storeVariant(archive: Archive, id: number, parentId: number | null): void {
  archive.insertVariant({
    id,
    parentId,
    step: 'selected',
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
        variantId: id,
        domain: 'arithmetic',
        split,
        stage,
        score: 0.35,
        nTasks: TASKS_PER_SPLIT,
        nTotal: TASKS_PER_SPLIT,
        correct: 7,
        wrong: 13,
        parseFailures: 0,
        errors: 0,
      });
    }
  }
  const score = 0.35 + id * 1e-4;
  archive.transitionVariant(
    id,
    'full',
    'done',
    { status: 'evaluated', validParent: true, selectionScore: score },
    { status: 'evaluated', score },
  );
}

/**
 * How the evals folder is made in a benchmark row: `reused`, the folder the last MetaAgent read is checked
 * and updated (what every run does when nothing changed the folder); `changed`, the last MetaAgent wrote a
 * note into its folder, so the check refuses it and the folder is written afresh (the fallback); `fresh`,
 * written afresh with nothing kept, as before folders were kept in every sandbox.
 */
type FolderMode = 'reused' | 'changed' | 'fresh';
const MODES: readonly FolderMode[] = ['reused', 'changed', 'fresh'];
const EXPECTED: Record<FolderMode, EvalsWrite['kind']> = {
  reused: 'reused',
  changed: 'refused',
  fresh: 'fresh',
};

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
  mode: FolderMode,
  expected: EvalsWrite['kind'],
): Promise<number> {
  const config = { generations: 1000, parentSelection: 'score_child_prop' } as RunConfig;
  const started = performance.now();
  const pool = selectionPool(archivedVariants({ archive }), id, 1);
  selectParent(pool, 'score_child_prop', createRng(`bench:${id}`));
  const folder = path.join(dir, `evals-${id}`);
  const made = evals.write(folder, parent);
  evals.release(folder);
  storeVariant(archive, id, parent);
  selectionScore(
    archive.listEvaluations(id),
    domains.map((d) => d.domain),
  );
  progressLine({ archive, config }, id, 0);
  const took = performance.now() - started;
  if (made.kind !== expected) throw new Error(`evals folder ${mode}: made ${JSON.stringify(made)}`);
  if (mode === 'changed') appendFileSync(path.join(folder, 'summary.md'), 'A note of the MetaAgent.\n');
  return took;
}

/**
 * Harness time per generation when the parent is at lineage depth `depth` (an archive of a chain of `depth`
 * variants and a sibling of its tip): the median of `repeats` generations, for each way of making the evals
 * folder (FolderMode).
 */
export async function benchHarnessOverhead(depths: number[], repeats = 15): Promise<string[]> {
  const domains = await loadDomainTasks({
    domains: [{ kind: 'named', name: 'arithmetic' }],
    dataset: {},
    evalSamples: TASKS_PER_SPLIT,
    stagedSamples: null,
  });
  if ('error' in domains) throw new Error(domains.error);
  // Every archive is made first and the rows and depths take turns, so a change of the machine's load
  // during the measurement falls on all of them alike.
  const setups = MODES.flatMap((mode) =>
    depths.map((depth) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'bench-overhead-'));
      const archive = openArchive(archiveFile(dir));
      for (let id = 0; id < depth; id++) storeVariant(archive, id, id === 0 ? null : id - 1);
      // The tip's sibling, at the same depth: the parents alternate between the two.
      storeVariant(archive, depth, depth === 1 ? null : depth - 2);
      return {
        mode,
        depth,
        dir,
        archive,
        evals: createEvalsFolders(archive, domains, { reuse: mode !== 'fresh' }),
        times: [] as number[],
      };
    }),
  );
  try {
    for (let r = 0; r < repeats; r++) {
      for (const { mode, depth, dir, archive, evals, times } of setups) {
        // The parent is at exactly `depth`, the chain's tip and its sibling in turn: a kept folder swaps the
        // folder of one for the other's, as much as it changes when each generation's child is the next parent.
        const parent = r % 2 === 0 ? depth - 1 : depth;
        // The first generation has no folder to reuse; after it each is made as its row says.
        const expected = r === 0 ? 'fresh' : EXPECTED[mode];
        times.push(await oneGeneration(archive, depth + 1 + r, parent, domains, evals, dir, mode, expected));
      }
    }
  } finally {
    for (const { dir, archive, evals } of setups) {
      evals.dispose();
      archive.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const lines: string[] = [];
  for (const mode of MODES) {
    const rows = setups.filter((s) => s.mode === mode);
    const medians = rows.map(({ times }) => upperMedian(times));
    rows.forEach(({ depth }, i) => {
      lines.push(
        `  evals folder ${mode.padEnd(7)} lineage depth ${String(depth).padStart(3)}: ${medians[i]!.toFixed(1).padStart(7)} ms per generation (median of ${repeats})`,
      );
    });
    const last = rows.length - 1;
    for (let i = 0; i < last; i++) {
      lines.push(
        `  evals folder ${mode.padEnd(7)} depth ${rows[last]!.depth} / depth ${rows[i]!.depth}: ${(medians[last]! / medians[i]!).toFixed(2)}x`,
      );
    }
  }
  return lines;
}
