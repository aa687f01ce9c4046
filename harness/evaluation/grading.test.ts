import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TaskOutcome } from '../../archive/index.ts';
import arithmetic, { type ArithmeticInput } from '../../domains/arithmetic/index.ts';
import type { GradeContext } from '../../domains/index.ts';
import { defineDomain, type Task } from '../../domains/index.ts';
import { extractPrediction, gradeOutput, tally } from './grading.ts';

/** These domains grade in-process; a command would be a bug. */
const ctx: GradeContext = { run: () => Promise.reject(new Error('no commands expected')) };

const task = (answer: number): Task<ArithmeticInput, number> => ({
  id: 'train-000',
  input: { question: 'A shop has 30 boxes of 40 cups. How many cups?' },
  answer,
});

describe('extractPrediction', () => {
  it.each([
    ['a tagged block', 'Thinking... <json>{"response": 42}</json>', { found: true, prediction: 42 }],
    ['a json fence', 'Answer:\n```json\n{"response": "42"}\n```', { found: true, prediction: '42' }],
    [
      'a bare object in prose',
      'So the result is {"response": 42}, I think.',
      { found: true, prediction: 42 },
    ],
    [
      'the last object with a response',
      '<json>{"response": 1}</json><json>{"response": 2}</json>',
      { found: true, prediction: 2 },
    ],
    [
      'a later object without response is skipped',
      '<json>{"response": 1}</json><json>{"note": "done"}</json>',
      { found: true, prediction: 1 },
    ],
    [
      'a null response is still a response',
      '<json>{"response": null}</json>',
      { found: true, prediction: null },
    ],
    [
      'an object response',
      '<json>{"response": {"value": 3}}</json>',
      { found: true, prediction: { value: 3 } },
    ],
    ['lenient JSON with an unquoted key', '<json>{response: 7,}</json>', { found: true, prediction: 7 }],
    ['an object without response', '<json>{"answer": 42}</json>', { found: false }],
    ['a top-level array', '<json>[{"response": 42}]</json>', { found: false }],
    ['plain prose', 'The answer is 42.', { found: false }],
    ['a cut-off tag', '<json>{"response": 42', { found: false }],
    ['empty output', '', { found: false }],
  ])('%s', (_name, output, expected) => {
    expect(extractPrediction(output)).toEqual(expected);
  });
});

describe('gradeOutput on the arithmetic domain', () => {
  it.each<[string, number, string, TaskOutcome, number]>([
    ['a tagged number', 1200, 'Let me compute 30 * 40.\n<json>{"response": 1200}</json>', 'correct', 1],
    ['a fenced number string', 1200, 'Final answer:\n```json\n{"response": "1200"}\n```', 'correct', 1],
    ['a bare object after prose', 1200, 'That gives 1200 cups. {"response": 1200}', 'correct', 1],
    ['thousands separators', 1200, '<json>{"response": "1,200"}</json>', 'correct', 1],
    ['a dollar sign', 42, 'The change is $42. <json>{"response": "$42"}</json>', 'correct', 1],
    ['a trailing .0', 1200, '<json>{"response": "1200.0"}</json>', 'correct', 1],
    ['an unquoted key', 1200, '<json>{response: 1200}</json>', 'correct', 1],
    ['a wrong number', 1200, '<json>{"response": 1199}</json>', 'wrong', 0],
    ['a string that is not a number', 1200, '<json>{"response": "about 1200"}</json>', 'wrong', 0],
    [
      'a draft then the final answer',
      1200,
      '<json>{"response": 70}</json> wait, <json>{"response": 1200}</json>',
      'correct',
      1,
    ],
    [
      'a right draft then a wrong final answer',
      1200,
      '<json>{"response": 1200}</json><json>{"response": 12}</json>',
      'wrong',
      0,
    ],
    [
      'an answer then an object without response',
      1200,
      '<json>{"response": 1200}</json><json>{"confidence": 0.9}</json>',
      'correct',
      1,
    ],
    ['no response field', 1200, '<json>{"answer": 1200}</json>', 'parse_failure', 0],
    ['no JSON at all', 1200, 'The answer is 1200.', 'parse_failure', 0],
    ['an output cut off mid-object', 1200, '<json>{"response": 1200', 'parse_failure', 0],
    ['null is not an answer', 1200, '<json>{"response": null}</json>', 'parse_failure', 0],
    ['a list is not an answer', 1200, '<json>{"response": [1200]}</json>', 'parse_failure', 0],
    ['a boolean is not an answer', 1200, '<json>{"response": true}</json>', 'parse_failure', 0],
  ])('%s', async (_name, answer, output, outcome, score) => {
    const graded = await gradeOutput(arithmetic, task(answer), output, ctx);
    expect(graded).toMatchObject({ outcome, score });
    expect(graded.error === null).toBe(outcome !== 'parse_failure');
  });

  it.each([
    ['no response', 'just words', undefined, /^no JSON object with "response"$/],
    ['an answer the schema rejects', '<json>{"response": [1200]}</json>', [1200], /^invalid answer: /],
  ])('keeps what it can of a parse failure: %s', async (_name, output, prediction, error) => {
    const graded = await gradeOutput(arithmetic, task(1200), output, ctx);
    expect(graded.prediction).toEqual(prediction);
    expect(graded.error).toMatch(error);
  });

  it('keeps the raw prediction, not a normalised one', async () => {
    const graded = await gradeOutput(arithmetic, task(1200), '<json>{"response": "1,200"}</json>', ctx);
    expect(graded.prediction).toBe('1,200');
  });
});

describe('gradeOutput clamps what a domain returns into [0, 1]', () => {
  const domainScoring = (value: number) =>
    defineDomain({
      name: 'fixed',
      description: 'scores every answer the same',
      splits: ['train'],
      load: () => [],
      answerSchema: z.string(),
      score: () => value,
    });

  it.each<[number, TaskOutcome, number]>([
    [1, 'correct', 1],
    [1.5, 'correct', 1],
    [0.5, 'wrong', 0.5],
    [-1, 'wrong', 0],
    [Number.NaN, 'wrong', 0],
    [Number.POSITIVE_INFINITY, 'wrong', 0],
  ])('a domain score of %d is %s', async (value, outcome, score) => {
    const graded = await gradeOutput(
      domainScoring(value),
      { id: 't', input: {}, answer: 'x' },
      '{"response": "x"}',
      ctx,
    );
    expect(graded).toMatchObject({ outcome, score });
  });
});

describe('gradeOutput on asynchronous graders', () => {
  const grader = (score: () => Promise<number | { score: number; detail: string }>) =>
    defineDomain({
      name: 'async',
      description: 'd',
      splits: ['train'],
      load: () => [],
      answerSchema: z.string(),
      score,
    });
  const output = '<json>{"response": "x"}</json>';
  const t = { id: 't', input: {}, answer: 'x' };

  it('keeps the detail a grader returns beside its score', async () => {
    const graded = await gradeOutput(
      grader(async () => ({ score: 0, detail: '3/4 tests passed' })),
      t,
      output,
      ctx,
    );
    expect(graded).toMatchObject({ outcome: 'wrong', score: 0, detail: '3/4 tests passed', error: null });
  });

  it('turns a grader that throws into an error result, never a crash', async () => {
    const graded = await gradeOutput(
      grader(() => Promise.reject(new Error('disk full'))),
      t,
      output,
      ctx,
    );
    expect(graded).toMatchObject({ outcome: 'error', score: 0, error: 'grader failed: disk full' });
  });
});

describe('tally', () => {
  const r = (outcome: TaskOutcome, score = outcome === 'correct' ? 1 : 0) => ({ outcome, score });

  it.each([
    ['nothing', [], { score: 0, n: 0, correct: 0, wrong: 0, parseFailures: 0, errors: 0 }],
    [
      'all correct',
      [r('correct'), r('correct')],
      { score: 1, n: 2, correct: 2, wrong: 0, parseFailures: 0, errors: 0 },
    ],
    [
      'one of each',
      [r('correct'), r('wrong'), r('parse_failure'), r('error')],
      { score: 0.25, n: 4, correct: 1, wrong: 1, parseFailures: 1, errors: 1 },
    ],
    [
      'partial credit counts in the score',
      [r('wrong', 0.5), r('correct')],
      { score: 0.75, n: 2, correct: 1, wrong: 1 },
    ],
  ])('%s', (_name, results, expected) => {
    expect(tally(results)).toMatchObject(expected);
  });
});
