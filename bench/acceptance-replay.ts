import path from 'node:path';
import { openArchiveReader, type TaskResultRow } from '../archive/index.ts';
import type { Domain, Split, Task } from '../domains/index.ts';
import { acceptanceRounds, observe, pairedDifference, startTest } from '../harness/evaluation/index.ts';

/**
 * `npx tsx bench/acceptance-replay.ts RUN_DIR...`: the sequential acceptance replayed offline over runs
 * evaluated with `--accept full` (every child and parent has every task), for a grid of futility margins and
 * rates: the share of the children's full-stage tasks it would have run, how many children it stops, and how
 * many of those had a full score at least 0.05 above their parent's (better children lost). How the futility
 * defaults were chosen (docs/acceptance.md), on seeds the measurement does not use.
 */

/** The arithmetic domain's staged sample: the first tasks of train and of val. */
const STAGED = 10;
const ALPHA = 0.05;

const keyOf = (r: Pick<TaskResultRow, 'domain' | 'split' | 'taskId' | 'attempt'>) =>
  `${r.domain}\u0000${r.split}\u0000${r.taskId}\u0000${r.attempt}`;

interface Child {
  id: number;
  seed: number;
  roundSize: number;
  rows: TaskResultRow[];
  parent: Map<string, number>;
  gain: number;
}

function children(runDir: string): Child[] {
  const reader = openArchiveReader(path.join(runDir, 'archive.sqlite'));
  try {
    const config = reader.run()?.config as { seed: number; evalWorkers: number };
    const decisionSplits = (r: TaskResultRow) => r.split === 'train' || r.split === 'val';
    const variants = reader.variants();
    return variants.flatMap((v) => {
      const parent = variants.find((p) => p.id === v.parent);
      if (parent === undefined || v.outcome !== 'evaluated' || v.score === null || parent.score === null)
        return [];
      const rows = reader.taskResults(v.id, { attempt: 'all' }).filter(decisionSplits);
      const parentRows = reader.taskResults(parent.id, { attempt: 'all' }).filter(decisionSplits);
      return [
        {
          id: v.id,
          seed: config.seed,
          roundSize: config.evalWorkers,
          rows,
          parent: new Map(parentRows.map((r) => [keyOf(r), r.score])),
          gain: v.score - parent.score,
        },
      ];
    });
  } finally {
    reader.close();
  }
}

/** Tasks of the child's full stage (beyond its staged sample) the sequential acceptance would have run. */
function replay(child: Child, margin: number, futilityAlpha: number): { used: number; stopped: boolean } {
  const jobs = child.rows.map((r) => ({
    domain: { name: r.domain } as Domain,
    split: r.split as Split,
    task: { id: r.taskId } as Task,
    attempt: r.attempt,
  }));
  const staged = new Set(child.rows.filter((r) => Number(r.taskId.slice(-3)) < STAGED).map(keyOf));
  const scores = new Map(child.rows.map((r) => [keyOf(r), r.score]));
  const rounds = acceptanceRounds(
    jobs,
    staged,
    new Set(child.parent.keys()),
    child.seed,
    child.id,
    child.roundSize,
  );
  let state = startTest(margin);
  let better = false;
  let used = 0;
  for (const round of rounds) {
    for (const job of round) {
      used++;
      const key = keyOf({
        domain: job.domain.name,
        split: job.split,
        taskId: job.task.id,
        attempt: job.attempt,
      });
      const p = child.parent.get(key);
      const c = scores.get(key);
      if (!better && p !== undefined && c !== undefined) state = observe(state, pairedDifference(c, p));
    }
    if (!better && state.evidence >= 1 / ALPHA) better = true;
    if (!better && state.futility >= 1 / futilityAlpha) return { used: used - staged.size, stopped: true };
  }
  return { used: used - staged.size, stopped: false };
}

const all = process.argv.slice(2).flatMap(children);
const fullTasks = all.reduce((a, c) => a + c.rows.length - STAGED * 2, 0);
console.log(
  `${all.length} children of ${process.argv.length - 2} runs; ${fullTasks} full-stage tasks in all`,
);
console.log('margin  futility-alpha  full-stage tasks run  children stopped  stopped with gain ≥ 0.05');
for (const margin of [0, 0.05, 0.1, 0.15]) {
  for (const futilityAlpha of [0.1, 0.2, 0.3]) {
    let used = 0;
    let stopped = 0;
    let lost = 0;
    for (const child of all) {
      const r = replay(child, margin, futilityAlpha);
      used += r.used;
      if (r.stopped) stopped++;
      if (r.stopped && child.gain >= 0.05) lost++;
    }
    console.log(
      `${margin.toFixed(2).padEnd(8)}${String(futilityAlpha).padEnd(16)}${`${((100 * used) / fullTasks).toFixed(1)} %`.padEnd(22)}` +
        `${String(stopped).padEnd(18)}${lost}`,
    );
  }
}
