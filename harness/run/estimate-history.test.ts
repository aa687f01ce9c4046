import { describe, expect, it } from 'vitest';
import type { ArchiveReader, RunView, VariantView } from '../../archive/index.ts';
import {
  callPace,
  estimateFromHistory,
  type HistoryRates,
  historyRates,
  type PlannedRun,
} from './estimate-history.ts';

const rates: HistoryRates = {
  generations: 4,
  shares: { ended: 0.25, staged: 0.25, full: 0.5 },
  metaCalls: 5,
  metaTokens: { input: 2000, output: 100 },
  callsPerAttempt: 1,
  taskTokens: { input: 100, output: 20 },
  seconds: { base: 2, perCall: 0.1 },
  initialBase: 0.8,
  confirmPerCall: 0.02,
  setupSec: 3,
};
const plan: PlannedRun = {
  generations: 10,
  parallel: 1,
  evalRepeats: 1,
  skipStagedEval: false,
  tasks: { staged: { plain: 10, workspace: 0 }, full: { plain: 40, workspace: 0 } },
  valTasks: 20,
  noiseFloor: 0,
  confirmTop: 0,
  metaPrice: { input: 1, output: 1 },
  taskPrice: { input: 1, output: 1 },
  initialEval: false,
  startupSec: 0,
};

describe('an estimate from an earlier run', () => {
  it("paces a call by the time between an evaluation's calls, leaving out its longest wait", () => {
    // 0.1 s between calls, and one wait of 2 s where the second stage started.
    expect(callPace([[0, 100, 200, 2200, 2300, 2400]])).toBeCloseTo(0.1);
    // Pooled over evaluations; one of two calls or fewer tells nothing.
    expect(
      callPace([
        [0, 100, 200],
        [0, 300, 600, 900],
        [0, 5000],
      ]),
    ).toBeCloseTo((100 + 600) / 3 / 1000);
    expect(callPace([[0], []])).toBe(0);
  });

  it('scales a generation by how children ended there: staged sample, or the full stage', () => {
    const e = estimateFromHistory(rates, plan);
    // 0.25 × 10 staged + 0.5 × 40 full = 22.5 task calls, plus 5 MetaAgent calls.
    expect(e.perGeneration.calls).toBeCloseTo(27.5);
    expect(e.perGeneration.seconds).toBeCloseTo(2 + 0.1 * 22.5);
    expect(e.total.calls).toBe(275);
    expect(estimateFromHistory(rates, { ...plan, evalRepeats: 2 }).perGeneration.calls).toBeCloseTo(50);
  });

  it("runs parallel generations side by side, and counts a new run's variant 0, setup and confirmation", () => {
    expect(estimateFromHistory(rates, { ...plan, parallel: 2 }).total.seconds).toBeCloseTo(
      estimateFromHistory(rates, plan).total.seconds / 2,
    );
    const fresh = estimateFromHistory(rates, { ...plan, initialEval: true, confirmTop: 2, startupSec: 1.5 });
    // Variant 0 answers the 40 tasks of the full stage; confirmation is 2 × 4 attempts at 20 val tasks; the
    // earlier run's setup (3 s) and this command's start-up (1.5 s) come on top.
    expect(fresh.initial.calls).toBe(40 + 160);
    expect(fresh.initial.seconds).toBeCloseTo(0.8 + 40 * 0.1 + 160 * 0.02 + 3 + 1.5);
    // Where the earlier run confirmed nothing, each confirmed variant is built and attempted as variant 0 was.
    const unmeasured = estimateFromHistory(
      { ...rates, confirmPerCall: 0 },
      { ...plan, initialEval: true, confirmTop: 2, startupSec: 1.5 },
    );
    expect(unmeasured.initial.seconds).toBeCloseTo(0.8 + 40 * 0.1 + 2 * 0.8 + 160 * 0.1 + 3 + 1.5);
  });
});

describe('the rates of an earlier run', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const variant = (id: number, created: number, finished: number) =>
    ({ id, outcome: 'evaluated', createdAt: at(created), finishedAt: at(finished) }) as VariantView;
  // Variant 0 from 1 s to 3 s; each child's row is written 1 s after the one before it finished (parent choice,
  // worktree), and it finishes 2 s after that.
  const reader = {
    variants: () => [variant(0, 1, 3), variant(1, 4, 6), variant(2, 7, 9)],
    llmCalls: () => [],
    taskResults: () => [],
    confirmedScores: () => [],
    run: () => ({ createdAt: at(0), finishedAt: at(10) }) as RunView,
  };

  it("takes a TaskAgent call's tokens from variant 0 too, when every child was rejected before its tasks", () => {
    const call = (role: string, inputTokens: number, outputTokens: number) => ({
      role,
      inputTokens,
      outputTokens,
      ts: at(2),
    });
    const rates = historyRates({
      ...reader,
      llmCalls: (id?: number) =>
        (id === 0
          ? [call('task', 300, 40), call('task', 500, 60)]
          : [call('meta', 4000, 200)]) as unknown as ReturnType<typeof reader.llmCalls>,
    });
    expect(rates?.taskTokens).toEqual({ input: 400, output: 50 });
    expect(rates?.metaTokens).toEqual({ input: 4000, output: 200 });
  });

  it("measures --confirm-top's attempts apart from the generations, and leaves them out of the setup", () => {
    // Variant 2 finished at 9 s; its confirmation made 6 calls (at 10 s) and was stored at 12 s; the run
    // ended at 13 s.
    const confirmCall = { role: 'task', inputTokens: 100, outputTokens: 10, ts: at(10) };
    const rates = historyRates({
      ...reader,
      llmCalls: (id?: number) =>
        (id === 2 ? Array.from({ length: 6 }, () => confirmCall) : []) as unknown as ReturnType<
          typeof reader.llmCalls
        >,
      confirmedScores: () =>
        [{ variantId: 2, firstAttempt: 1, createdAt: at(12) }] as ReturnType<
          ArchiveReader['confirmedScores']
        >,
      run: () => ({ createdAt: at(0), finishedAt: at(13) }) as RunView,
    });
    expect(rates?.confirmPerCall).toBeCloseTo(3 / 6);
    // The generations made no call of their own: the confirmation's are not theirs.
    expect(rates?.seconds).toEqual({ base: 3, perCall: 0 });
    expect(rates?.setupSec).toBe(2);
  });

  it("scales the evaluations by their calls' pace, so that a run on more tasks than the one measured takes longer", () => {
    // Variant 0 ran from 1 s to 3 s, its 5 calls 0.1 s apart from 2.5 s; each child (2 s after its slot freed
    // up, as `reader` has it) made 3 calls 0.1 s apart.
    const calls = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        role: 'task',
        inputTokens: 100,
        outputTokens: 10,
        ts: new Date(Date.parse(at(from)) + i * 100).toISOString(),
      }));
    const rates = historyRates({
      ...reader,
      llmCalls: (id?: number) =>
        (id === 0 ? calls(2.5, 5) : calls(id === 1 ? 5 : 8, 3)) as unknown as ReturnType<
          typeof reader.llmCalls
        >,
    })!;
    expect(rates.seconds.perCall).toBeCloseTo(0.1);
    expect(rates.seconds.base).toBeCloseTo(3 - 3 * 0.1);
    expect(rates.initialBase).toBeCloseTo(2 - 5 * 0.1);
    // The same 5 tasks take variant 0 the 2 s measured; 50 take its fixed part and 50 calls at that pace,
    // not 10 times 2 s.
    const zeroOf = (tasks: number) =>
      estimateFromHistory(rates, {
        ...plan,
        generations: 0,
        initialEval: true,
        tasks: { staged: { plain: tasks, workspace: 0 }, full: { plain: tasks, workspace: 0 } },
      }).initial.seconds - rates.setupSec;
    expect(zeroOf(5)).toBeCloseTo(2);
    expect(zeroOf(50)).toBeCloseTo(1.5 + 50 * 0.1);
  });

  it('counts the time between a generation and the one before it, and the run outside its variants', () => {
    const rates = historyRates(reader);
    expect(rates?.seconds).toEqual({ base: 3, perCall: 0 });
    // 1 s before variant 0, 1 s after the last.
    expect(rates?.setupSec).toBe(2);
  });
});
