import { z } from 'zod';
import { createRng } from '../../system/rng.ts';
import { defineDomain, type Split, type Task } from '../define-domain.ts';
import { numbersMatch } from '../numbers.ts';
import { generateProblem } from './problems.ts';

export interface ArithmeticInput {
  question: string;
}

const SPLIT_SIZE: Record<Split, number> = { train: 40, val: 40, test: 40 };

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
  score: (prediction, task) => (numbersMatch(prediction, task.answer) ? 1 : 0),
  metric: 'numeric',
  stagedSamples: 10,
  formatHint: 'The answer is a single number.',
});
