import { z } from 'zod';
import { defineDomain, type Split, type Task } from '../define-domain.ts';
import { createRng } from '../rng.ts';
import { generateProblem } from './problems.ts';

export interface ArithmeticInput {
  question: string;
}

const SPLIT_SIZE: Record<Split, number> = { train: 40, val: 40, test: 40 };

/** Parses "42", "42.0", "$1,200", " -3 " as numbers; anything else is null. */
export function parseNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const cleaned = value
    .trim()
    .replace(/^\$/, '')
    .replace(/,(?=\d{3}\b)/g, '');
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return null;
  return Number(cleaned);
}

export function loadArithmetic(split: Split): Task<ArithmeticInput, number>[] {
  const rng = createRng(`arithmetic:${split}:v1`);
  return Array.from({ length: SPLIT_SIZE[split] }, (_, i) => {
    const problem = generateProblem(rng);
    return {
      id: `${split}-${String(i).padStart(3, '0')}`,
      input: { question: problem.question },
      answer: problem.answer,
    };
  });
}

export default defineDomain<ArithmeticInput, number, number | string>({
  name: 'arithmetic',
  description: 'Generated multi-step word problems with whole-number answers, graded numerically.',
  splits: ['train', 'val', 'test'],
  load: loadArithmetic,
  answerSchema: z.union([z.number(), z.string()]),
  score: (prediction, task) => {
    const value = parseNumber(prediction);
    return value !== null && Math.abs(value - task.answer) < 1e-6 ? 1 : 0;
  },
  stagedSamples: 10,
  formatHint: 'The answer is a single number.',
});
