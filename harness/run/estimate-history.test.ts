import { describe, expect, it } from 'vitest';
import type { ArchiveReader } from '../../archive/read.ts';
import type { RunView, VariantView } from '../../archive/views.ts';
import {
  estimateFromHistory,
  fitLine,
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
  initialPerCall: 0.05,
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
  it('fits seconds to calls, and takes the mean when every generation made as many', () => {
    expect(
      fitLine([
        { x: 0, y: 2 },
        { x: 10, y: 3 },
        { x: 20, y: 4 },
      ]),
    ).toEqual({ base: 2, perCall: 0.1 });
    expect(
      fitLine([
        { x: 5, y: 2 },
        { x: 5, y: 4 },
      ]),
    ).toEqual({ base: 3, perCall: 0 });
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
    expect(fresh.initial.seconds).toBeCloseTo(40 * 0.05 + 160 * 0.02 + 3 + 1.5);
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

  it('counts the time between a generation and the one before it, and the run outside its variants', () => {
    const rates = historyRates(reader);
    expect(rates?.seconds).toEqual({ base: 3, perCall: 0 });
    // 1 s before variant 0, 1 s after the last.
    expect(rates?.setupSec).toBe(2);
  });
});
