import { describe, expect, it } from 'vitest';
import { ALL_SPLITS, type Task } from '../define-domain.ts';
import type { GradeContext } from '../grade-context.ts';
import arithmetic, { type ArithmeticInput, loadArithmetic } from './index.ts';

/** Arithmetic grades in-process; a command would be a bug. */
const ctx: GradeContext = { run: () => Promise.reject(new Error('arithmetic runs no commands')) };

describe('arithmetic splits', () => {
  it.each(ALL_SPLITS)('%s loads the same tasks twice', async (split) => {
    expect(await arithmetic.load(split)).toEqual(await arithmetic.load(split));
  });

  it.each(ALL_SPLITS)('%s has 40 tasks with unique ids named after the split', (split) => {
    const tasks = loadArithmetic(split);
    expect(tasks).toHaveLength(40);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(40);
    for (const t of tasks) expect(t.id).toMatch(new RegExp(`^${split}-\\d{3}$`));
  });

  it.each(ALL_SPLITS)('%s answers are non-negative whole numbers', (split) => {
    for (const t of loadArithmetic(split)) {
      expect(Number.isInteger(t.answer), t.input.question).toBe(true);
      expect(t.answer).toBeGreaterThanOrEqual(0);
    }
  });

  it.each([
    ['train', 'val'],
    ['train', 'test'],
    ['val', 'test'],
  ] as const)('%s and %s hold different questions', (a, b) => {
    const questions = (split: 'train' | 'val' | 'test') => loadArithmetic(split).map((t) => t.input.question);
    const shared = questions(a).filter((q) => questions(b).includes(q));
    expect(shared.length).toBeLessThan(3);
  });
});

describe('arithmetic score', () => {
  const task: Task<ArithmeticInput, number> = { id: 't', input: { question: 'How many?' }, answer: 1200 };

  it.each<[number | string, number]>([
    [1200, 1],
    ['1200', 1],
    ['1,200', 1],
    ['$1,200', 1],
    ['1200.0', 1],
    [1200.0000001, 1],
    [1201, 0],
    [120, 0],
    ['12,00', 0],
    ['1200 cups', 0],
    ['', 0],
  ])('%j scores %d', (prediction, expected) => {
    expect(arithmetic.score(prediction, task, ctx)).toBe(expected);
  });

  it.each(ALL_SPLITS)(
    '%s gold answers score 1 as numbers and as strings, and a neighbour scores 0',
    (split) => {
      for (const t of loadArithmetic(split)) {
        expect(arithmetic.score(t.answer, t, ctx)).toBe(1);
        expect(arithmetic.score(String(t.answer), t, ctx)).toBe(1);
        expect(arithmetic.score(t.answer + 1, t, ctx)).toBe(0);
      }
    },
  );
});
