import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetDomain } from './dataset.ts';
import type { DatasetOptions } from './dataset-options.ts';
import type { GradeContext } from './grade-context.ts';

/** Datasets grade in-process; a command would be a bug. */
const ctx: GradeContext = { run: () => Promise.reject(new Error('datasets run no commands')) };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dataset-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(name: string, content: string, options: DatasetOptions = {}) {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  const opened = datasetDomain(file, 'd', options);
  if (!opened.ok) throw new Error(opened.message);
  return opened.domain;
}

async function all(domain: ReturnType<typeof open>) {
  return (await Promise.all(domain.splits.map((s) => domain.load(s)))).flat();
}

describe('datasetDomain', () => {
  it('reads a CSV without a header by column number, ids from line numbers', async () => {
    const domain = open('plain.csv', 'What is 2+2?,4\nWhat is 3+3?,6\n', {
      answerField: '2',
      metric: 'numeric',
    });
    const tasks = await all(domain);
    expect(tasks.map((t) => [t.id, t.input, t.answer.accepted])).toEqual(
      expect.arrayContaining([
        ['1', { 1: 'What is 2+2?' }, ['4']],
        ['2', { 1: 'What is 3+3?' }, ['6']],
      ]),
    );
  });

  it('puts rows in the split their split field names, with the usual aliases', async () => {
    const domain = open('split.csv', 'q,answer,part\na,x,train\nb,y,validation\nc,z,TEST\nd,w,dev\n', {
      splitField: 'part',
    });
    expect(domain.splits).toEqual(['train', 'val', 'test']);
    expect((await domain.load('val')).map((t) => t.input.q)).toEqual(['b', 'd']);
  });

  it('skips bad rows by line: unknown split, missing answer, repeated id', () => {
    const domain = open(
      'bad.csv',
      'id,q,answer,split\n1,a,x,train\n2,b,,train\n1,c,y,train\n3,d,z,holdout\n',
      { splitField: 'split' },
    );
    expect(domain.skipped).toEqual([
      { line: 3, reason: 'no answer in field "answer"' },
      { line: 4, reason: 'id "1" was used by an earlier row' },
      { line: 5, reason: 'split "holdout" is not train, val (validation, dev) or test' },
    ]);
  });

  it('skips rows with broken quoting or a NUL byte by line, and keeps the rest', () => {
    const domain = open('quoting.csv', 'id,q,answer\n1,say "hi",x\n2,"b"c,y\n3,ok\u0000,z\n4,fine,w\n');
    expect(domain.skipped).toEqual([
      { line: 2, reason: expect.stringMatching(/^a quote inside a field that does not start with one/) },
      { line: 3, reason: expect.stringMatching(/^text after the closing quote/) },
      { line: 4, reason: expect.stringMatching(/^a NUL byte/) },
    ]);
  });

  it('skips a row whose answer list is empty or holds an empty answer, which would give an empty reply marks', async () => {
    const domain = open(
      'lists.jsonl',
      [
        '{"id":"a","q":"?","answer":[]}',
        '{"id":"b","q":"?","answer":["Paris",""]}',
        '{"id":"c","q":"?","answer":[null]}',
        '{"id":"d","q":"?","answer":["Bern"," berne "]}',
      ].join('\n'),
    );
    expect(domain.skipped).toEqual([
      { line: 1, reason: 'no answer in field "answer" (an empty list)' },
      { line: 2, reason: 'an empty answer in the list in field "answer"' },
      { line: 3, reason: 'an empty answer in the list in field "answer"' },
    ]);
    expect((await all(domain)).map((t) => [t.id, t.answer.accepted])).toEqual([['d', ['Bern', 'berne']]]);
  });

  it.each<[string, DatasetOptions, string, string | number, number]>([
    ['exact ignores case and spaces', {}, '{"id":"1","q":"?","answer":"New York"}', ' new  york ', 1],
    ['numeric reads 1,000', { metric: 'numeric' }, '{"id":"1","q":"?","answer":"1000"}', '1,000', 1],
    [
      'choice shows the labels and reads (B)',
      { metric: 'choice', choices: ['A', 'B'] },
      '{"id":"1","q":"?","answer":"B"}',
      '(B)',
      1,
    ],
    [
      'f1 takes the best accepted answer',
      { metric: 'f1' },
      '{"id":"1","q":"?","answer":["Eiffel Tower","tower"]}',
      'the tower',
      1,
    ],
    [
      'f1 gives partial credit',
      { metric: 'f1' },
      '{"id":"1","q":"?","answer":"Eiffel Tower"}',
      'Eiffel',
      2 / 3,
    ],
  ])('%s', async (_name, options, line, prediction, score) => {
    const domain = open('one.jsonl', `${line}\n`, options);
    const [task] = await all(domain);
    expect(await domain.score(prediction, task!, ctx)).toBeCloseTo(score, 9);
    expect(await domain.score(domain.goldResponse(task!), task!, ctx)).toBe(1);
  });

  it('shows the choice labels to the agent', async () => {
    const domain = open('mc.jsonl', '{"q":"Capital of Peru?","A":"Lima","B":"Quito","answer":"A"}\n', {
      metric: 'choice',
      choices: ['A', 'B'],
    });
    expect((await all(domain))[0]!.input).toEqual({
      q: 'Capital of Peru?',
      A: 'Lima',
      B: 'Quito',
      choices: ['A', 'B'],
    });
    expect(domain.formatHint).toBe('The answer is the label of one choice: one of A, B.');
  });

  it.each<[string, string, DatasetOptions, RegExp]>([
    ['no answer field', 'q,a\nx,y\n', {}, /say which field holds the answer with --answer-field/],
    [
      'an id field that is not there',
      'q,answer\nx,y\n',
      { idField: 'key' },
      /--id-field names "key", which is not a field/,
    ],
    [
      'a pattern without a group',
      'q,answer\nx,y\n',
      { answerPattern: '####' },
      /must have exactly one capturing group/,
    ],
    ['no usable row', 'q,answer\nx,\n', {}, /no usable rows \(line 2: no answer/],
    [
      'a header with a stray quote',
      'q,"answer"x\nx,y\n',
      {},
      /explain\.csv, line 1: text after the closing quote of a field .*The first row gives the fields/,
    ],
  ])('explains %s', (_name, content, options, message) => {
    const file = path.join(dir, 'explain.csv');
    writeFileSync(file, content);
    const opened = datasetDomain(file, 'd', options);
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.message).toMatch(message);
  });

  it('gives a different grader version when the metric or its settings change', () => {
    const content = '{"id":"1","q":"?","answer":"5"}\n';
    const versions = [{}, { metric: 'numeric' as const }, { metric: 'numeric' as const, tolerance: 0.1 }].map(
      (o) => open('v.jsonl', content, o).graderVersion,
    );
    expect(new Set(versions).size).toBe(3);
  });
});
