import { describe, expect, it } from 'vitest';
import type { VariantView } from '../../archive/index.ts';
import { finishedGenerationLines, formatDuration } from './experiment-progress.ts';

const variant = (id: number, outcome: VariantView['outcome'], score: number | null = null): VariantView => ({
  id,
  generation: id,
  parent: id === 0 ? null : 0,
  commit: null,
  outcome,
  step: outcome === 'in_progress' ? 'editing' : 'done',
  status: outcome,
  validParent: true,
  failureReason: outcome === 'failed' ? 'MetaAgent timed out' : null,
  failureCause: outcome === 'failed' ? 'timeout' : null,
  selectionReason: null,
  score,
  scores: {},
  changedFiles: [],
  costUsd: 0,
  llmCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  createdAt: '',
  finishedAt: null,
  acceptance: null,
});

describe("an experiment's progress lines", () => {
  const variants = [
    variant(0, 'evaluated', 0.35),
    variant(1, 'evaluated', 0.3),
    variant(2, 'rejected'),
    variant(3, 'evaluated', 0.5),
    variant(4, 'in_progress'),
    variant(5, 'failed'),
  ];

  it('say each generation that ended, once, with the best score so far', () => {
    const first = finishedGenerationLines('full-s1', variants, 10, new Set());
    expect(first.lines).toEqual([
      'full-s1: initial agent evaluated 0.350',
      'full-s1: generation 1/10 evaluated 0.300 (best 0.350, variant 0)',
      'full-s1: generation 2/10 rejected by the gate (best 0.350, variant 0)',
      'full-s1: generation 3/10 evaluated 0.500 (best 0.500, variant 3)',
      'full-s1: generation 5/10 failed (MetaAgent timed out) (best 0.500, variant 3)',
    ]);
    expect(first.ids).toEqual([0, 1, 2, 3, 5]);
    const again = finishedGenerationLines('full-s1', variants, 10, new Set(first.ids));
    expect(again).toEqual({ lines: [], ids: [] });
  });

  it.each([
    [4_000, '4 s'],
    [65_000, '1 min 05 s'],
    [3_720_000, '1 h 02 min'],
  ])('durations: %d ms reads "%s"', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
