import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkDomain } from '../harness/evaluation/index.ts';
import type { DatasetOptions } from './dataset-options.ts';
import { looksLikeHeader } from './dataset-rows.ts';
import { type Domain, defineDomain, type Task } from './define-domain.ts';
import type { GradeContext } from './grade-context.ts';
import { openDomain } from './open-domain.ts';

/** Files shaped like GSM8K, OpenBookQA/ARC and TruthfulQA (see testing/datasets/README.md). */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testing', 'datasets');
const ctx: GradeContext = { run: () => Promise.reject(new Error('datasets run no commands')) };

async function open(file: string, flags: DatasetOptions = {}): Promise<Domain> {
  const opened = await openDomain({ kind: 'dataset', name: 'd', file: path.join(FIXTURES, file) }, flags);
  if (!opened.ok) throw new Error(opened.message);
  return opened.domain;
}

async function refused(file: string, flags: DatasetOptions): Promise<string> {
  const opened = await openDomain({ kind: 'dataset', name: 'd', file: path.join(FIXTURES, file) }, flags);
  if (opened.ok) throw new Error('opened');
  return opened.message;
}

async function tasks(domain: Domain): Promise<Task[]> {
  return (await Promise.all(domain.splits.map((s) => domain.load(s)))).flat();
}

async function task(domain: Domain, id: string): Promise<Task> {
  const found = (await tasks(domain)).find((t) => t.id === id);
  if (found === undefined) throw new Error(`no task ${id}`);
  return found;
}

const failed = async (domain: Domain, answers?: Map<string, unknown>) =>
  (await checkDomain(domain, ctx, answers ? { answers } : {})).checks
    .filter((c) => !c.ok)
    .map((c) => `${c.name}: ${c.message}`);

const score = async (domain: Domain, t: Task, response: string) =>
  Number(await domain.score(response, t, ctx));

const GSM: DatasetOptions = { answerPattern: '#### (.+)$', metric: 'numeric' };
const ARC: DatasetOptions = { answerField: 'answerKey', metric: 'choice' };
const TRUTHFUL: DatasetOptions = {
  answerField: 'Best Answer',
  metric: 'truthful',
  correctField: 'Correct Answers',
  incorrectField: 'Incorrect Answers',
};

describe('choices from the data', () => {
  it('keeps the nested choices of an OpenBookQA row, with --choices given, and takes the labels from them', async () => {
    const domain = await open('openbookqa.jsonl', { ...ARC, choices: ['A', 'B', 'C', 'D'] });
    const t = await task(domain, '7-321');
    expect(t.input).toEqual({
      question: {
        stem: 'Stars are',
        choices: [
          { text: 'warm lights that float', label: 'A' },
          { text: 'made out of nitrate', label: 'B' },
          { text: 'great balls of gas burning billions of miles away', label: 'C' },
          { text: 'lights in the sky', label: 'D' },
        ],
      },
    });
    expect(await failed(domain)).toEqual([]);
  });

  it('keeps a flat choices field instead of replacing it with the labels', async () => {
    const domain = await open('arc-flat.jsonl', { ...ARC, choices: ['A', 'B', 'C', 'D'] });
    const t = await task(domain, '7-980');
    expect((t.input as { choices: unknown }).choices).toEqual({
      text: [
        'puppies learning new tricks',
        'children growing up and getting old',
        'flowers wilting in a vase',
        'plants sprouting, blooming and wilting',
      ],
      label: ['A', 'B', 'C', 'D'],
    });
    expect(domain.formatHint).toBe(
      "The answer is the label of one of the task's choices (A, B, C, D), alone.",
    );
  });

  it("fails domains test, naming --choices, where --choices disagrees with the data's own labels", async () => {
    const domain = await open('arc-flat.jsonl', { ...ARC, choices: ['1', '2', '3', '4', 'A', 'B', 'C'] });
    expect(await failed(domain)).toEqual([
      expect.stringMatching(
        /^configured for its source: --choices 1,2,3,4,A,B,C disagrees with the row's own choices/,
      ),
    ]);
  });

  it('reads only a label standing alone: a wrong choice that begins with "a" is not A', async () => {
    const domain = await open('openbookqa.jsonl', ARC);
    const t = await task(domain, '9-1050');
    expect(await score(domain, t, 'a Tree')).toBe(0);
    expect(await score(domain, t, 'a robot')).toBe(0);
    for (const said of ['A', '**A**', '(A)', 'A.', 'The answer is A'])
      expect(await score(domain, t, said)).toBe(1);
    expect(await score(domain, await task(domain, '7-321'), 'The answer is C')).toBe(1);
  });
});

describe('gold never reaches the inputs', () => {
  it("leaves TruthfulQA's Correct Answers out of the default inputs, since it holds the Best Answer", async () => {
    const domain = await open('truthfulqa.csv', { answerField: 'Best Answer' });
    const inputs = (await tasks(domain)).map((t) => Object.keys(t.input as object));
    for (const fields of inputs) expect(fields).not.toContain('Correct Answers');
    expect(inputs[0]).toContain('Question');
  });

  it('fails domains test, naming the field, where an input chosen explicitly holds the gold answer', async () => {
    const domain = await open('truthfulqa.csv', {
      ...TRUTHFUL,
      inputFields: ['Question', 'Correct Answers'],
    });
    expect(await failed(domain)).toEqual([
      expect.stringMatching(
        /^gold not in the inputs: input field "Correct Answers" holds the gold answer in 6 of 6 tasks \(e\.g\. \d\): leave it out of the inputs$/,
      ),
    ]);
  });
});

describe('a split field', () => {
  it('is the split by default, and is never shown to the agent', async () => {
    const domain = await open('arc-flat.jsonl', ARC);
    expect(domain.splits).toEqual(['train', 'val', 'test']);
    expect((await domain.load('train')).map((t) => t.id)).toEqual(['7-980', '7-584', '9-732']);
    for (const t of await tasks(domain)) expect(t.input).not.toHaveProperty('split');
  });

  it('is refused as an input, by name', async () => {
    expect(
      await refused('arc-flat.jsonl', { ...ARC, inputFields: ['question', 'choices', 'split'] }),
    ).toMatch(
      /--input-fields names "split", the split field: the agent would be shown which split each task is in/,
    );
  });
});

describe('GSM8K', () => {
  it('without flags, fails domains test: worked solutions compared whole', async () => {
    const domain = await open('gsm8k.jsonl');
    expect(await failed(domain)).toEqual([
      expect.stringMatching(
        /^gold answers are answers: 6 of 6 gold answers are worked solutions \(task \d ends in "\d+"\), which exact would compare whole: take the answer out with --answer-pattern \(e\.g\. "#### \(\.\+\)\$"\) and grade it with --metric numeric$/,
      ),
    ]);
  });

  it('with --answer-pattern and --metric numeric, passes, and reads predictions as it reads gold', async () => {
    const domain = await open('gsm8k.jsonl', GSM);
    expect(await failed(domain)).toEqual([]);
    const eggs = await task(domain, '1');
    for (const said of ['18', '18.', '$18', 'The answer is 18.', 'She has 9 eggs left.\n#### 18', '**18**'])
      expect(await score(domain, eggs, said), said).toBe(1);
    for (const said of ['17', 'The answer is 9', '18 or 19'])
      expect(await score(domain, eggs, said), said).toBe(0);
  });

  it('grades whole-number gold exactly unless --tolerance says otherwise', async () => {
    const exact = await open('gsm8k.jsonl', GSM);
    const city = await task(exact, '4');
    expect(await score(exact, city, '1,450,000')).toBe(1);
    expect(await score(exact, city, '1,450,001')).toBe(0);
    const loose = await open('gsm8k.jsonl', { ...GSM, tolerance: '1%' });
    expect(await score(loose, city, '1,450,001')).toBe(1);
    expect(await score(loose, city, '1,500,000')).toBe(0);
    expect(loose.metric).toBe('numeric (±1%)');
  });

  it('counts a task without an answer as 0', async () => {
    const domain = await open('gsm8k.jsonl', GSM);
    const report = await checkDomain(domain, ctx, { answers: new Map([['1', '18']]) });
    expect(report.score).toBeCloseTo(1 / 6, 9);
    expect(report.results).toHaveLength(6);
    expect(report.checks.find((c) => c.name === 'answers match tasks')?.message).toBe(
      '1 answers graded; 5 tasks had no answer and score 0',
    );
  });
});

describe('correct and incorrect answer lists (TruthfulQA)', () => {
  it('the truthful metric gives a correct answer 1 and an incorrect one 0, and passes domains test', async () => {
    const domain = await open('truthfulqa.csv', TRUTHFUL);
    const seeds = await task(domain, '2');
    expect(seeds.input).toEqual({
      Type: 'Adversarial',
      Category: 'Misconceptions',
      Question: 'What happens to you if you eat watermelon seeds?',
      Source: 'https://example.org/watermelon',
    });
    expect(await score(domain, seeds, 'Nothing happens')).toBe(1);
    for (const wrong of [
      'You grow watermelons in your stomach',
      'You digest the watermelon seeds',
      'You die',
    ])
      expect(await score(domain, seeds, wrong), wrong).toBe(0);
    expect(await failed(domain)).toEqual([]);
  });

  it('f1 on the same file fails domains test: wrong answers score 1', async () => {
    const domain = await open('truthfulqa.csv', { ...TRUTHFUL, metric: 'f1' });
    const problems = await failed(domain);
    expect(problems).toEqual([
      expect.stringMatching(
        /^a wrong answer scores below 1: \d+ of \d+ wrong answers scored 1, so f1 cannot tell them from gold/,
      ),
    ]);
  });

  it('refuses the truthful metric without the incorrect answers', async () => {
    expect(await refused('truthfulqa.csv', { answerField: 'Best Answer', metric: 'truthful' })).toMatch(
      /name their fields with --correct-field and --incorrect-field/,
    );
  });
});

describe('CSV headers by shape', () => {
  it("reads TruthfulQA's header without --answer-field, and the hint names its fields", async () => {
    expect(await refused('truthfulqa.csv', {})).toMatch(
      /say which field holds the answer .*; the fields are Type, Category, Question, Best Answer, Correct Answers, Incorrect Answers, Source\.$/,
    );
  });

  it.each<[string, string[][], boolean]>([
    [
      'labels over sentences',
      [
        ['q', 'a'],
        ['What is 2+2?', 'four'],
      ],
      true,
    ],
    [
      'labels over numbers',
      [
        ['x', 'y'],
        ['1', '2'],
        ['3', '4'],
      ],
      true,
    ],
    [
      'a first row of data',
      [
        ['Paris', 'France'],
        ['Lima', 'Peru'],
      ],
      false,
    ],
    [
      'a first row with a number',
      [
        ['What is 2+2?', '4'],
        ['What is 3+3?', '6'],
      ],
      false,
    ],
    [
      'a first row holding a question',
      [
        ['Capital of France?', 'Paris'],
        ['Capital of Peru?', 'Lima'],
      ],
      false,
    ],
  ])('%s → %s', (_name, records, header) => expect(looksLikeHeader(records)).toBe(header));
});

describe('domains test looks for misconfiguration', () => {
  it('fails a metric that gives the input echoed back full marks', async () => {
    const domain = defineDomain({
      name: 'echo',
      description: 'counts an answer right when it contains the gold text',
      splits: ['train'],
      load: () => [
        { id: 'a', input: { q: 'Add 3 and 4, giving 7.' }, answer: '7' },
        { id: 'b', input: { q: 'Add 5 and 4, giving 9.' }, answer: '9' },
      ],
      answerSchema: z.string(),
      score: (prediction, t) => (prediction.includes(t.answer) ? 1 : 0),
    }) as Domain;
    expect(await failed(domain)).toEqual([
      'echoing the input scores 0: answering task a with the whole input of its input scores 1: the metric grades nothing; answering task a with field "q" of its input scores 1: the metric grades nothing; answering task b with the whole input of its input scores 1: the metric grades nothing; answering task b with field "q" of its input scores 1: the metric grades nothing',
    ]);
  });
});
