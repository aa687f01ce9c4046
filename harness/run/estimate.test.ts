import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Domain, Task } from '../../domains/index.ts';
import { exercismDomain, GRADING_SEC, readExercises } from '../../domains/index.ts';
import {
  type EstimateInput,
  estimateLines,
  estimateRun,
  REAL_CALL_SEC,
  simCallSec,
  stageCounts,
} from './estimate.ts';
import { PROJECT_ROOT } from './index.ts';

/** A run of plain tasks on a model at $3 / $15 per million tokens (a Claude Sonnet price). */
const base: EstimateInput = {
  generations: 10,
  parallel: 1,
  evalWorkers: 4,
  evalRepeats: 1,
  skipStagedEval: false,
  tasks: { staged: { plain: 10, workspace: 0 }, full: { plain: 50, workspace: 0 } },
  maxToolCalls: 30,
  metaTimeoutSec: 600,
  metaPrice: { input: 3, output: 15 },
  taskPrice: { input: 3, output: 15 },
  callSec: REAL_CALL_SEC,
  budgetUsd: null,
  spentUsd: 0,
  initialEval: false,
};

const run = (change: Partial<EstimateInput>) => estimateRun({ ...base, ...change });

describe('estimateRun', () => {
  it('gives a low end below its high end, in calls, dollars and time', () => {
    const { calls, usd, seconds } = run({});
    expect(calls.low).toBeLessThan(calls.high);
    expect(usd.low).toBeLessThan(usd.high);
    expect(seconds.low).toBeLessThan(seconds.high);
  });

  it('grows with the number of generations', () => {
    const [one, ten, hundred] = [1, 10, 100].map((generations) => run({ generations }));
    for (const [a, b] of [
      [one!, ten!],
      [ten!, hundred!],
    ] as const) {
      expect(b.calls.low).toBeGreaterThan(a.calls.low);
      expect(b.calls.high).toBeGreaterThan(a.calls.high);
      expect(b.usd.high).toBeGreaterThan(a.usd.high);
      expect(b.seconds.high).toBeGreaterThan(a.seconds.high);
    }
    expect(ten!.calls.high).toBe(10 * one!.calls.high);
  });

  it('counts per generation a MetaAgent and the staged sample (low) up to the full evaluation (high)', () => {
    expect(run({ generations: 1 }).calls).toEqual({ low: 3 + 10, high: 41 + 50 });
    expect(run({ generations: 1, evalRepeats: 3 }).calls).toEqual({ low: 3 + 30, high: 41 + 150 });
    expect(run({ generations: 1, initialEval: true }).calls).toEqual({ low: 13, high: 91 + 50 });
  });

  it('counts a workspace task as up to its tool-call limit plus the answer', () => {
    const tasks = { staged: { plain: 0, workspace: 2 }, full: { plain: 0, workspace: 5 } };
    expect(run({ generations: 1, tasks, maxToolCalls: 9 }).calls).toEqual({ low: 3 + 4, high: 41 + 50 });
  });

  it("adds the domains' measured grading time per attempt, shared by the eval workers", () => {
    const tasks = { staged: { plain: 0, workspace: 2 }, full: { plain: 0, workspace: 5 } };
    const graded = {
      staged: { ...tasks.staged, gradingSec: 2 * 11 },
      full: { ...tasks.full, gradingSec: 5 * 11 },
    };
    const plain = run({ generations: 1, tasks, evalRepeats: 2, initialEval: true });
    const timed = run({ generations: 1, tasks: graded, evalRepeats: 2, initialEval: true });
    // Low: the staged sample graded twice; high: the full stage twice, and variant 0's full stage twice.
    expect(timed.seconds.low - plain.seconds.low).toBeCloseTo((2 * 22) / 4);
    expect(timed.seconds.high - plain.seconds.high).toBeCloseTo((2 * 55) / 4 + (2 * 55) / 4);
    expect(timed.calls).toEqual(plain.calls);
    const [, assumptions] = estimateLines({ ...base, tasks: graded }, timed, { kind: 'real' }, false);
    expect(assumptions).toContain('grading 22 s (staged) to 55 s (full) per attempt');
  });

  it('runs parallel generations side by side: less time, the same cost', () => {
    const one = run({ parallel: 1 });
    const four = run({ parallel: 4 });
    expect(four.seconds.high).toBeLessThan(one.seconds.high);
    expect(four.usd).toEqual(one.usd);
  });

  it('costs nothing on a model priced at $0', () => {
    expect(run({ metaPrice: { input: 0, output: 0 }, taskPrice: { input: 0, output: 0 } }).usd).toEqual({
      low: 0,
      high: 0,
    });
  });
});

describe('stageCounts', () => {
  it('counts the grading time of each Polyglot exercise by its language, and none for other domains', async () => {
    const set = readExercises(path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism'));
    const domain = exercismDomain(set, { name: 'polyglot' }) as unknown as Domain;
    const splits = Object.fromEntries(
      await Promise.all(domain.splits.map(async (s) => [s, (await domain.load(s)) as Task[]] as const)),
    );
    const counts = stageCounts([{ domain, splits }], true);
    const languages = set.tasks.map((t) => t.input.language);
    expect(counts.full.workspace).toBe(languages.length);
    expect(counts.full.gradingSec).toBeCloseTo(languages.reduce((sum, l) => sum + GRADING_SEC[l]!, 0));
    const plain = { ...domain, gradingSec: undefined };
    expect(stageCounts([{ domain: plain, splits }], true).full.gradingSec).toBe(0);
  });
});

describe('the budget warning', () => {
  const { usd } = run({});

  it('is absent without a budget, and with a budget above the high end', () => {
    expect(run({}).overBudget).toBeNull();
    expect(run({ budgetUsd: usd.high * 2 }).overBudget).toBeNull();
    expect(
      estimateLines(base, run({ budgetUsd: usd.high * 2 }), { kind: 'real' }, false).join('\n'),
    ).not.toMatch(/budget/);
  });

  it('says the run will likely stop when the budget is between the ends', () => {
    const input = { ...base, budgetUsd: (usd.low + usd.high) / 2 };
    const estimate = estimateRun(input);
    expect(estimate.overBudget).toBe('high');
    expect(estimateLines(input, estimate, { kind: 'real' }, false).at(-1)).toMatch(
      /high end is over the budget left .* will likely stop on the budget/,
    );
  });

  it('says the run will stop when even the low end is over it', () => {
    expect(run({ budgetUsd: usd.low / 2 }).overBudget).toBe('low');
  });

  it('counts what a resumed run spent already', () => {
    const input = { ...base, budgetUsd: usd.high * 1.5, spentUsd: usd.high };
    expect(estimateRun(input)).toMatchObject({ overBudget: 'high', budgetLeftUsd: usd.high * 0.5 });
  });
});

describe('estimateLines', () => {
  it('names the range, the generations still to run and the assumptions', () => {
    const lines = estimateLines({ ...base, generations: 4 }, run({ generations: 4 }), { kind: 'real' }, true);
    expect(lines[0]).toMatch(
      /^Estimate for the remaining 4 generations: \d+–\d+ model calls, \$[\d.]+–\$[\d.]+, about/,
    );
    expect(lines[1]).toMatch(/MetaAgent of 3–41 calls.*1–20 s per call/);
  });

  it('says the sim price is nominal or $0', () => {
    const sim = (pricePerMTok: number) =>
      estimateLines(base, run({}), { kind: 'sim', pricePerMTok }, false)[0];
    expect(sim(0)).toContain('(sim: $0)');
    expect(sim(100)).toContain('(sim: nominal $100/Mtok from --sim-price-per-mtok)');
  });
});

describe('simCallSec', () => {
  it('reads the sim latency in seconds', () => {
    expect(simCallSec(null)).toEqual({ low: 0, high: 0.1 });
    expect(simCallSec({ kind: 'fixed', ms: 500 })).toEqual({ low: 0.5, high: 0.5 });
    expect(simCallSec({ kind: 'uniform', minMs: 100, maxMs: 900 })).toEqual({ low: 0.1, high: 0.9 });
  });
});
