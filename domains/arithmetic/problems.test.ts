import { describe, expect, it } from 'vitest';
import { createRng } from '../../system/rng.ts';
import { generateProblem, type Problem } from './problems.ts';

/** Each template's wording, and the answer worked out again from the numbers in the question. */
const solvers: [RegExp, (n: number[]) => number][] = [
  [
    /bakes (\d+) trays of (\d+) muffins each, sells (\d+) of them and gives (\d+)/,
    ([t, p, s, g]) => t! * p! - s! - g!,
  ],
  [
    /buys (\d+) notebooks at (\d+) dollars each and pays with (\d+) dollars/,
    ([c, p, paid]) => paid! - c! * p!,
  ],
  [
    /receives (\d+) boxes of (\d+) cups, finds (\d+) broken, then buys (\d+) more cups .* over (\d+) shelves/,
    ([b, p, broken, extra, shelves]) => (b! * p! - broken! + extra!) / shelves!,
  ],
  [
    /has (\d+) dollars, saves (\d+) dollars a week for (\d+) weeks, then spends (\d+) dollars/,
    ([start, saved, weeks, spent]) => start! + saved! * weeks! - spent!,
  ],
  [
    /has (\d+) rows of (\d+) seats and (\d+) seats are taken\. (\d+) groups of 3/,
    ([r, s, t, g]) => r! * s! - t! - g! * 3,
  ],
  [
    /runs (\d+) km on each of (\d+) days but rests on (\d+) of them, then adds one long run of (\d+) km/,
    ([km, d, r, b]) => km! * (d! - r!) + b!,
  ],
];

function solve(problem: Problem): number | undefined {
  for (const [pattern, compute] of solvers) {
    const match = pattern.exec(problem.question);
    if (match !== null) return compute(match.slice(1).map(Number));
  }
  return undefined;
}

const problems = (seed: string, count: number): Problem[] => {
  const rng = createRng(seed);
  return Array.from({ length: count }, () => generateProblem(rng));
};

describe('generateProblem', () => {
  const many = problems('problems-test', 1000);

  it('gives the same problems for the same seed', () => {
    expect(problems('same', 50)).toEqual(problems('same', 50));
    expect(problems('same', 50)).not.toEqual(problems('other', 50));
  });

  it('answers every problem with a non-negative whole number', () => {
    for (const p of many) {
      expect(Number.isInteger(p.answer), p.question).toBe(true);
      expect(p.answer, p.question).toBeGreaterThanOrEqual(0);
    }
  });

  it('asks one question of at least two steps', () => {
    for (const p of many) {
      expect(p.question).toMatch(/^[A-Z][^?]*\?$/);
      expect(p.steps).toBeGreaterThanOrEqual(2);
    }
  });

  it('has an answer that follows from the numbers in the question', () => {
    for (const p of many) expect(solve(p), p.question).toBe(p.answer);
  });

  it('uses every template', () => {
    const used = new Set(many.map((p) => solvers.findIndex(([pattern]) => pattern.test(p.question))));
    expect([...used].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
