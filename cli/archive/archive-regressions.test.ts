import { describe, expect, it } from 'vitest';
import { summarizeRegressions, type VariantRegressions } from '../../archive/index.ts';
import { regressionsText } from './archive-regressions.ts';

const row = (over: Partial<VariantRegressions>): VariantRegressions => ({
  variant: 1,
  parent: 0,
  regressed: [],
  fixed: [],
  rebroken: [],
  shared: 20,
  parentPassed: 10,
  childOnly: 0,
  parentOnly: 0,
  changes: [],
  ...over,
});

const text = (r: VariantRegressions) => regressionsText([r], summarizeRegressions([r]), false);

describe('archive regressions, as text', () => {
  it.each([
    [
      { parentOnly: 18, shared: 2 },
      "variant 1: evaluated on part of its parent's tasks (a staged sample): compared on the 2 of 20",
    ],
    [
      { childOnly: 18, shared: 2 },
      'variant 1: its parent 0 was evaluated on part of its tasks (a staged sample): compared on the 2 of 20',
    ],
    [
      { childOnly: 3, parentOnly: 5, shared: 2 },
      'variant 1 (5 tasks) and its parent 0 (7) were graded on different tasks',
    ],
    [{ childOnly: 2, shared: 0 }, 'variant 1: no task in common with its parent 0, not compared.'],
  ])('says what a staged sample on one side leaves out: %j', (over, note) => {
    expect(text(row(over))).toContain(note);
  });

  it('names each change, marks a rebroken one, and ends with the regression rate', () => {
    const out = text(
      row({
        regressed: ['t1', 't2'],
        rebroken: ['t2'],
        fixed: ['t3'],
        changes: [
          { domain: 'd', split: 'val', taskId: 't1', change: 'regressed' },
          { domain: 'd', split: 'val', taskId: 't2', change: 'regressed', fixedBy: 0 },
          { domain: 'd', split: 'val', taskId: 't3', change: 'fixed' },
        ],
      }),
    );
    expect(out).toContain('variant 1 (parent 0): regressed t1, t2*; fixed t3');
    expect(out).toMatch(/^\* rebroken: /m);
    expect(out.split('\n').at(-1)).toBe(
      'Regression rate: 1 of 1 children (100.0%) broke at least one task; 2 regressed of 10 tasks their parents passed (20.0%); 1 fixed; 1 rebroken.',
    );
  });
});
