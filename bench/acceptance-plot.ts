import path from 'node:path';
import { openArchiveReader, type TaskResultRow } from '../archive/index.ts';
import type { Domain, Split, Task } from '../domains/index.ts';
import { acceptanceRounds, observe, pairedDifference, startTest } from '../harness/evaluation/index.ts';

/** One child's evidence after each task it used, in the order its evaluation used them. */
export interface Trajectory {
  variant: number;
  parent: number;
  decision: string;
  /** [tasks used, evidence (better), futility (worse)] after each task. */
  points: [number, number, number][];
}

/** The arithmetic domain's staged sample: the first tasks of train and of val (its `stagedSamples`). */
const STAGED = 10;

const keyOf = (r: Pick<TaskResultRow, 'domain' | 'split' | 'taskId' | 'attempt'>) =>
  `${r.domain}\u0000${r.split}\u0000${r.taskId}\u0000${r.attempt}`;

/**
 * The trajectories of up to `count` children of a sequential run (the decided ones first), rebuilt from the
 * stored results in the order the run used them (acceptanceRounds over the tasks each child has results on).
 */
export function evidencePaths(runDir: string, count: number): Trajectory[] {
  const reader = openArchiveReader(path.join(runDir, 'archive.sqlite'));
  try {
    const config = reader.run()?.config as { seed: number; evalWorkers: number; futilityMargin: number };
    const order = { better: 0, worse: 1, undecided: 2 };
    const chosen = [...reader.acceptance().values()]
      .sort((a, b) => order[a.decision] - order[b.decision] || a.variantId - b.variantId)
      .slice(0, count);
    return chosen.map((a) => {
      const decisionSplits = (r: TaskResultRow) => r.split === 'train' || r.split === 'val';
      const child = reader.taskResults(a.variantId, { attempt: 'all' }).filter(decisionSplits);
      const parent = new Map(
        reader
          .taskResults(a.parentId, { attempt: 'all' })
          .filter(decisionSplits)
          .map((r) => [keyOf(r), r.score]),
      );
      const scores = new Map(child.map((r) => [keyOf(r), r.score]));
      const jobs = child.map((r) => ({
        domain: { name: r.domain } as Domain,
        split: r.split as Split,
        task: { id: r.taskId } as Task,
        attempt: r.attempt,
      }));
      const staged = new Set(child.filter((r) => Number(r.taskId.slice(-3)) < STAGED).map(keyOf));
      const rounds = acceptanceRounds(
        jobs,
        staged,
        new Set(parent.keys()),
        config.seed,
        a.variantId,
        config.evalWorkers,
      );
      let state = startTest(config.futilityMargin);
      const points: [number, number, number][] = [[0, 1, 1]];
      for (const job of rounds.flat()) {
        const key = keyOf({
          domain: job.domain.name,
          split: job.split,
          taskId: job.task.id,
          attempt: job.attempt,
        });
        const p = parent.get(key);
        const c = scores.get(key);
        if (p !== undefined && c !== undefined) state = observe(state, pairedDifference(c, p));
        points.push([points.length, state.evidence, state.futility]);
      }
      return { variant: a.variantId, parent: a.parentId, decision: a.decision, points };
    });
  } finally {
    reader.close();
  }
}

/** An SVG of log10 evidence (solid) and futility (dashed) against tasks used, with both thresholds. */
export function evidenceSvg(paths: readonly Trajectory[], alpha: number, futilityAlpha: number): string {
  const [w, h, left, top] = [720, 360, 60, 20];
  const maxTasks = Math.max(1, ...paths.flatMap((p) => p.points.map((q) => q[0])));
  const lo = -1.5;
  const hi = 2.5;
  const x = (t: number) => left + ((w - left - 20) * t) / maxTasks;
  const y = (e: number) =>
    top + ((h - top - 40) * (hi - Math.min(hi, Math.max(lo, Math.log10(e))))) / (hi - lo);
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf'];
  const lines = paths.flatMap((p, i) => {
    const color = colors[i % colors.length];
    const pts = (k: 1 | 2) => p.points.map((q) => `${x(q[0]).toFixed(1)},${y(q[k]).toFixed(1)}`).join(' ');
    return [
      `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${pts(1)}"/>`,
      `<polyline fill="none" stroke="${color}" stroke-width="1" stroke-dasharray="4 3" points="${pts(2)}"/>`,
      `<text x="${w - 250}" y="${top + 14 * (i + 1)}" font-size="11" fill="${color}">variant ${p.variant} vs ${p.parent}: ${p.decision}</text>`,
    ];
  });
  const rule = (e: number, label: string) =>
    `<line x1="${left}" x2="${w - 20}" y1="${y(e)}" y2="${y(e)}" stroke="#888" stroke-dasharray="2 2"/>` +
    `<text x="${left + 4}" y="${y(e) - 3}" font-size="10" fill="#555">${label}</text>`;
  const ticks = [-1, 0, 1, 2].map(
    (k) => `<text x="${left - 8}" y="${y(10 ** k) + 3}" font-size="10" text-anchor="end">${10 ** k}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">`,
    '<title>Evidence against tasks used for children decided by --accept sequential</title>',
    `<rect width="${w}" height="${h}" fill="white"/>`,
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${h - 40}" stroke="black"/>`,
    `<line x1="${left}" x2="${w - 20}" y1="${h - 40}" y2="${h - 40}" stroke="black"/>`,
    ...ticks,
    rule(1 / alpha, `better at 1/alpha = ${1 / alpha}`),
    rule(1 / futilityAlpha, `worse at 1/futility-alpha = ${1 / futilityAlpha}`),
    rule(1, 'start (1)'),
    ...lines,
    `<text x="${(w + left) / 2}" y="${h - 10}" font-size="12" text-anchor="middle">tasks used (in the order the evaluation used them)</text>`,
    `<text x="14" y="${h / 2}" font-size="12" transform="rotate(-90 14 ${h / 2})" text-anchor="middle">e-value (log scale)</text>`,
    `<text x="${w - 250}" y="${h - 50}" font-size="10">solid: evidence for better; dashed: for worse</text>`,
    '</svg>',
    '',
  ].join('\n');
}

/** The trajectories as text: evidence / futility after 20, 28, 36, … tasks, to each child's last task. */
export function evidenceText(paths: readonly Trajectory[]): string[] {
  const at = [20, 28, 36, 44, 52, 60, 68, 76, 80];
  const cell = (p: Trajectory, t: number) => {
    const point = p.points[t];
    return point === undefined ? '' : `${point[1].toPrecision(2)} / ${point[2].toPrecision(2)}`;
  };
  return [
    `| child (decision) | ${at.map((t) => `${t} tasks`).join(' | ')} |`,
    `|---|${at.map(() => '---').join('|')}|`,
    ...paths.map(
      (p) => `| ${p.variant} vs ${p.parent} (${p.decision}) | ${at.map((t) => cell(p, t)).join(' | ')} |`,
    ),
  ];
}
