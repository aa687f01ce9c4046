import { describe, expect, it } from 'vitest';
import type { RunView, VariantView } from '../archive/index.ts';
import { testEvent } from '../archive/testing/events.ts';
import type { RunHealth } from './health.ts';
import { estimateAgainstRun } from './run-estimate.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

const run = (extra: Partial<RunView>): RunView =>
  ({
    id: 'r',
    createdAt: at(0),
    finishedAt: null,
    state: 'running',
    costUsd: 0.4,
    llmCalls: 40,
    ...extra,
  }) as RunView;
const variant = (id: number, outcome: VariantView['outcome'], llmCalls: number) =>
  ({ id, outcome, llmCalls }) as VariantView;
const health = (estimate: RunHealth['estimate']) => ({ estimate }) as RunHealth;
const printed = (data: typeof RANGE) => testEvent(1, 'estimate', data, at(0));
const RANGE = {
  generations: 4,
  resumed: false,
  calls: { low: 20, high: 100 },
  usd: { low: 0.1, high: 2 },
  seconds: { low: 10, high: 300 },
  from: null,
  lines: ['Estimate for 4 generations: ...'],
  spentUsd: 0,
};

describe('estimateAgainstRun', () => {
  it('sets the estimate at the start beside the figures so far and the pace to the end', () => {
    const view = estimateAgainstRun({
      run: run({}),
      variants: [variant(0, 'evaluated', 8), variant(1, 'evaluated', 10), variant(2, 'rejected', 4)],
      health: health({ generations: 2, hours: 0.5, costUsd: 0.3 }),
      events: [printed(RANGE)],
      lastActivityAt: at(100),
      now: T0 + 600_000,
    });
    expect(view.estimates).toEqual([{ ...RANGE, ts: at(0) }]);
    expect(view.actual).toEqual({ calls: 40, usd: 0.4, seconds: 600 });
    // Two more generations at 7 calls each (the mean of those that ended), half an hour, $0.30.
    expect(view.projected?.calls).toBe(54);
    expect(view.projected?.usd).toBeCloseTo(0.7, 10);
    expect(view.projected?.seconds).toBe(600 + 1800);
  });

  it('times an ended run to its end, and has nothing to project', () => {
    const view = estimateAgainstRun({
      run: run({ state: 'done', finishedAt: at(90) }),
      variants: [],
      health: health(null),
      events: [],
      lastActivityAt: at(80),
      now: T0 + 10_000_000,
    });
    expect(view).toEqual({ estimates: [], actual: { calls: 40, usd: 0.4, seconds: 90 }, projected: null });
  });
});
