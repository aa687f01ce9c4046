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

/**
 * Tasks of the child's full stage (beyond its staged sample) the sequential acceptance would have run: it stops
 * at either decision (`better` or `worse`).
 */
function replay(
  child: Child,
  margin: number,
  futilityAlpha: number,
): { used: number; decision: 'better' | 'worse' | 'undecided' } {
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
      if (p !== undefined && c !== undefined) state = observe(state, pairedDifference(c, p));
    }
    if (state.evidence >= 1 / ALPHA) return { used: used - staged.size, decision: 'better' };
    if (state.futility >= 1 / futilityAlpha) return { used: used - staged.size, decision: 'worse' };
  }
  return { used: used - staged.size, decision: 'undecided' };
}

const all = process.argv.slice(2).flatMap(children);
const fullTasks = all.reduce((a, c) => a + c.rows.length - STAGED * 2, 0);
console.log(
  `${all.length} children of ${process.argv.length - 2} runs; ${fullTasks} full-stage tasks in all`,
);
console.log(
  'margin  futility-alpha  full-stage tasks run  better  worse  worse with gain ≥ 0.05  better with gain < 0',
);
for (const margin of [0, 0.05, 0.1, 0.125, 0.15]) {
  for (const futilityAlpha of [0.1, 0.2, 0.3, 0.5]) {
    let used = 0;
    let better = 0;
    let worse = 0;
    let lost = 0;
    let wrong = 0;
    for (const child of all) {
      const r = replay(child, margin, futilityAlpha);
      used += r.used;
      if (r.decision === 'better') better++;
      if (r.decision === 'better' && child.gain < 0) wrong++;
      if (r.decision === 'worse') worse++;
      if (r.decision === 'worse' && child.gain >= 0.05) lost++;
    }
    console.log(
      `${margin.toFixed(3).padEnd(8)}${String(futilityAlpha).padEnd(16)}${`${((100 * used) / fullTasks).toFixed(1)} %`.padEnd(22)}` +
        `${String(better).padEnd(8)}${String(worse).padEnd(7)}${String(lost).padEnd(24)}${wrong}`,
    );
  }
}
