import { describe, expect, it } from 'vitest';
import { regressionGrid } from './regression-grid.ts';
import {
  byTask,
  lineageOrder,
  passedAttempts,
  summarizeRegressions,
  variantRegressions,
} from './regressions.ts';
import type { TaskOutcomeRow } from './task-results.ts';

/** Results from a compact table: variant → "task:outcomes" where outcomes are one letter per attempt (c/w). */
function results(table: Record<number, string>): TaskOutcomeRow[] {
  return Object.entries(table).flatMap(([variant, cells]) =>
    cells
      .split(' ')
      .filter(Boolean)
      .flatMap((cell) => {
        const [taskId = '', tries = ''] = cell.split(':');
        return [...tries].map((t, attempt) => ({
          variantId: Number(variant),
          domain: 'arithmetic',
          split: 'val',
          taskId,
          attempt,
          outcome: t === 'c' ? ('correct' as const) : ('wrong' as const),
        }));
      }),
  );
}

const chain = (n: number) => Array.from({ length: n }, (_, id) => ({ id, parent: id === 0 ? null : id - 1 }));

describe('passedAttempts', () => {
  it.each([
    [[true], true],
    [[false], false],
    [[true, false], true],
    [[false, false, true], false],
    [[true, true, false], true],
    [[], false],
  ])('%j passed: %s', (tries, passed) => expect(passedAttempts(tries)).toBe(passed));
});

describe('byTask', () => {
  it('orders by domain, split and id, numbers in ids by value', () => {
    const keys = [
      'b\u0000val\u0000t-1',
      'a\u0000val\u0000t-10',
      'a\u0000val\u0000t-2',
      'a\u0000train\u0000t-3',
    ];
    expect(keys.sort(byTask).map((k) => k.replaceAll('\u0000', '/'))).toEqual([
      'a/train/t-3',
      'a/val/t-2',
      'a/val/t-10',
      'b/val/t-1',
    ]);
  });
});

describe('lineageOrder', () => {
  it('puts each parent before its children and keeps a lineage together', () => {
    const order = lineageOrder([
      { id: 0, parent: null },
      { id: 1, parent: 0 },
      { id: 2, parent: 0 },
      { id: 3, parent: 1 },
      { id: 4, parent: 2 },
      { id: 5, parent: 3 },
    ]);
    expect(order.map((v) => v.id)).toEqual([0, 1, 3, 5, 2, 4]);
  });
});

describe('variantRegressions', () => {
  it('lists what each child broke and fixed against its parent, on the tasks both have', () => {
    const rows = variantRegressions(
      chain(2),
      results({ 0: 'a:c b:c c:w d:w e:c', 1: 'a:w b:c c:c d:w f:c' }),
    );
    expect(rows).toEqual([
      expect.objectContaining({
        variant: 1,
        parent: 0,
        regressed: ['a'],
        fixed: ['c'],
        rebroken: [],
        shared: 4,
        parentPassed: 2,
        childOnly: 1,
        parentOnly: 1,
      }),
    ]);
  });

  it('pairs attempts by number and passes a task on at least half of the shared attempts', () => {
    // The child has a third attempt its parent lacks: only attempts 0 and 1 count.
    const rows = variantRegressions(chain(2), results({ 0: 'a:cw b:ww', 1: 'a:www b:wcc' }));
    expect(rows[0]).toMatchObject({ regressed: ['a'], fixed: ['b'] });
  });

  it('flags a task fixed on the lineage and broken again, and a second break after a second fix', () => {
    const rows = variantRegressions(
      chain(6),
      results({ 0: 'a:w', 1: 'a:c', 2: 'a:w', 3: 'a:w', 4: 'a:c', 5: 'a:w' }),
    );
    expect(rows.map((r) => [r.variant, r.regressed, r.fixed, r.rebroken])).toEqual([
      [1, [], ['a'], []],
      [2, ['a'], [], ['a']],
      [3, [], [], []],
      [4, [], ['a'], []],
      [5, ['a'], [], ['a']],
    ]);
    expect(rows[1]!.changes[0]!.fixedBy).toBe(1);
  });

  it('does not flag a break on another lineage than the fix', () => {
    const variants = [
      { id: 0, parent: null },
      { id: 1, parent: 0 },
      { id: 2, parent: 0 },
      { id: 3, parent: 2 },
    ];
    const rows = variantRegressions(variants, results({ 0: 'a:w', 1: 'a:c', 2: 'a:c', 3: 'a:w' }));
    expect(rows.find((r) => r.variant === 3)).toMatchObject({ regressed: ['a'], rebroken: ['a'] });
    const other = variantRegressions(variants, results({ 0: 'a:c', 1: 'a:c', 2: 'a:c', 3: 'a:w' }));
    expect(other.find((r) => r.variant === 3)).toMatchObject({ regressed: ['a'], rebroken: [] });
  });

  it('leaves out a variant with no results (rejected at the gate) and compares nothing for a staged one', () => {
    const rows = variantRegressions(chain(3), results({ 0: 'a:c b:c', 2: 'a:w' }));
    expect(rows.map((r) => [r.variant, r.shared, r.childOnly])).toEqual([[2, 0, 1]]);
    expect(summarizeRegressions(rows)).toMatchObject({ children: 0, rate: null });
  });
});

describe('summarizeRegressions', () => {
  it('counts children with a regression and regressed tasks over tasks the parents passed', () => {
    const variants = [
      { id: 0, parent: null },
      { id: 1, parent: 0 },
      { id: 2, parent: 0 },
    ];
    const rows = variantRegressions(
      variants,
      results({ 0: 'a:c b:c c:c d:w', 1: 'a:w b:w c:c d:c', 2: 'a:c b:c c:c d:w' }),
    );
    expect(summarizeRegressions(rows)).toEqual({
      children: 2,
      withRegression: 1,
      regressed: 2,
      fixed: 1,
      rebroken: 0,
      parentPassed: 6,
      rate: 2 / 6,
    });
  });
});

describe('regressionGrid', () => {
  it('has a column per graded variant in lineage order and marks each change against the parent', () => {
    const variants = [
      { id: 0, parent: null },
      { id: 1, parent: 0 },
      { id: 2, parent: 0 },
      { id: 3, parent: 1 },
      { id: 4, parent: 3 },
    ];
    const grid = regressionGrid(
      variants,
      results({ 0: 'a:w b:c', 1: 'a:c b:c', 2: 'a:w', 3: 'a:w b:w', 4: 'a:c b:c' }),
    );
    expect(grid.variants.map((v) => [v.id, v.depth])).toEqual([
      [0, 0],
      [1, 1],
      [3, 2],
      [4, 3],
      [2, 1],
    ]);
    expect(grid.tasks.map((t) => t.taskId)).toEqual(['a', 'b']);
    expect(grid.cells).toEqual(['fFBFf', 'ppRF.']);
  });
});
