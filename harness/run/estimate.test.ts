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
import { pointWithBatch } from './estimate-batch.ts';
import type { HistoryRates } from './estimate-history.ts';
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

describe('the price with and without --batch', () => {
  const offered = { on: false, discount: 0.5 };
  const mixed = { staged: { plain: 10, workspace: 2 }, full: { plain: 50, workspace: 5 } };

  it('discounts only the TaskAgent calls on single-reply tasks, never the MetaAgent or workspace tasks', () => {
    const plainOnly = run({ batch: offered, initialEval: true });
    const withoutMeta = run({
      batch: offered,
      initialEval: true,
      metaPrice: { input: 0, output: 0 },
    });
    const metaUsd = {
      low: plainOnly.usd.low - withoutMeta.usd.low,
      high: plainOnly.usd.high - withoutMeta.usd.high,
    };
    // The single-reply tasks' calls at half price, the MetaAgent's at the full one.
    expect(plainOnly.batch?.withBatch.low).toBeCloseTo(metaUsd.low + withoutMeta.usd.low / 2, 10);
    expect(plainOnly.batch?.withBatch.high).toBeCloseTo(metaUsd.high + withoutMeta.usd.high / 2, 10);
    expect(plainOnly.batch?.withoutBatch).toEqual(plainOnly.usd);
    expect(plainOnly.batch?.batchedCalls).toEqual({ low: 10 * 10, high: 50 * 10 + 50 });
    const workspaceOnly = { staged: { plain: 0, workspace: 2 }, full: { plain: 0, workspace: 5 } };
    const none = run({ batch: offered, tasks: workspaceOnly });
    expect(none.batch?.withBatch).toEqual(none.usd);
    expect(
      estimateLines({ ...base, batch: offered }, none, { kind: 'real' }, false).join('\n'),
    ).not.toContain('--batch');
  });

  it('counts the batch price in the estimate when --batch is on, and names the other price', () => {
    const off = run({ batch: offered, tasks: mixed });
    const on = run({ batch: { ...offered, on: true }, tasks: mixed });
    expect(on.usd).toEqual(off.batch?.withBatch);
    expect(on.usd.high).toBeLessThan(off.usd.high);
    const offLine = estimateLines({ ...base, tasks: mixed, batch: offered }, off, { kind: 'real' }, false).at(
      -1,
    );
    expect(offLine).toMatch(
      /^ {2}With --batch: \$[\d.]+–\$[\d.]+, the TaskAgent's 100–500 call\(s\) on single-reply tasks at half the price; the MetaAgent's calls and workspace tasks are never batched\./,
    );
    const onLine = estimateLines(
      { ...base, tasks: mixed, batch: { ...offered, on: true } },
      on,
      { kind: 'real' },
      false,
    ).at(-1);
    expect(onLine).toContain('With --batch (counted above)');
    expect(onLine).toContain(`Without --batch: $${off.usd.low.toFixed(2)}–$${off.usd.high.toFixed(2)}.`);
  });

  it('says nothing of --batch for a task model without a batch endpoint', () => {
    expect(run({}).batch).toBeNull();
    expect(estimateLines(base, run({}), { kind: 'real' }, false).join('\n')).not.toContain('--batch');
  });
});

describe('the price with and without --batch at the rates of an earlier run', () => {
  const rates: HistoryRates = {
    generations: 4,
    shares: { ended: 0, staged: 0, full: 1 },
    metaCalls: 10,
    metaTokens: { input: 10_000, output: 1_000 },
    callsPerAttempt: 1,
    taskTokens: { input: 500, output: 100 },
    seconds: { base: 10, perCall: 1 },
    initialBase: 0,
    confirmPerCall: 0,
    setupSec: 0,
  };
  const plan = {
    ...base,
    generations: 2,
    valTasks: 0,
    noiseFloor: 0,
    confirmTop: 0,
    startupSec: 0,
    skipStagedEval: true,
    tasks: { staged: { plain: 0, workspace: 0 }, full: { plain: 50, workspace: 0 } },
  };

  it('halves the task calls of single-reply tasks and counts the one in force', () => {
    const meta = (2 * 10 * (10_000 * 3 + 1_000 * 15)) / 1e6;
    const task = (2 * 50 * (500 * 3 + 100 * 15)) / 1e6;
    const off = pointWithBatch(rates, plan, { on: false, discount: 0.5 });
    expect(off.point.total.usd).toBeCloseTo(meta + task, 10);
    expect(off.batch).toContain(
      `With --batch: $${(meta + task / 2).toFixed(2)}, the TaskAgent's 100 call(s)`,
    );
    const on = pointWithBatch(rates, plan, { on: true, discount: 0.5 });
    expect(on.point.total.usd).toBeCloseTo(meta + task / 2, 10);
    expect(on.batch).toContain(`Without --batch: $${(meta + task).toFixed(2)}.`);
    expect(pointWithBatch(rates, plan, undefined).batch).toBeNull();
  });
});
