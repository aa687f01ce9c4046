import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Domain, defineDomain, type Split } from '../../domains/index.ts';
import type { StageJob } from './evaluate-task.ts';
import { acceptanceRounds } from './sequential-stage.ts';

const domain = defineDomain({
  name: 'd',
  description: 'd',
  splits: ['train', 'val'],
  load: () => [],
  answerSchema: z.number(),
  score: () => 0,
}) as Domain;

const jobs: StageJob[] = (['train', 'val'] as Split[]).flatMap((split) =>
  Array.from({ length: 10 }, (_, i) => ({
    domain,
    split,
    task: { id: `${split}-${i}`, input: i, answer: i },
    attempt: 0,
  })),
);
const key = (j: StageJob) => `d\u0000${j.split}\u0000${j.task.id}\u00000`;
const ids = (rounds: StageJob[][]) => rounds.map((r) => r.map((j) => j.task.id));

describe("the order a child's tasks are used in", () => {
  const staged = new Set(jobs.filter((j) => Number(j.task.id.slice(-1)) < 2).map(key));
  // The parent has results on every task but val-9.
  const parentHas = new Set(jobs.filter((j) => j.task.id !== 'val-9').map(key));

  it('starts with the staged tasks, then the paired ones in rounds, and ends with those the parent lacks', () => {
    const rounds = acceptanceRounds(jobs, staged, parentHas, 7, 3, 4);
    expect(rounds[0]!.map(key).sort()).toEqual([...staged].sort());
    expect(rounds.slice(1).map((r) => r.length)).toEqual([4, 4, 4, 3, 1]);
    expect(ids(rounds).at(-1)).toEqual(['val-9']);
    expect(new Set(rounds.flat().map(key)).size).toBe(jobs.length);
  });

  it('is the same for the same seed and child, whatever order the tasks came in, and differs by child', () => {
    const a = ids(acceptanceRounds(jobs, staged, parentHas, 7, 3, 4));
    expect(ids(acceptanceRounds([...jobs].reverse(), staged, parentHas, 7, 3, 4))).toEqual(a);
    expect(ids(acceptanceRounds(jobs, staged, parentHas, 7, 4, 4))).not.toEqual(a);
    expect(ids(acceptanceRounds(jobs, staged, parentHas, 8, 3, 4))).not.toEqual(a);
  });
});
