import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDomain } from '../harness/evaluation/index.ts';
import type { DatasetAnswer } from './dataset.ts';
import type { DatasetOptions } from './dataset-options.ts';
import type { Domain, Task } from './define-domain.ts';
import type { GradeContext } from './grade-context.ts';
import { openDomain } from './open-domain.ts';
import { parseDomainRefs } from './reference.ts';

/** Files shaped like public benchmark files (see testing/datasets/README.md). */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testing', 'datasets');
const ctx: GradeContext = { run: () => Promise.reject(new Error('datasets run no commands')) };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'dataset-formats-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const where = (file: string) => (path.isAbsolute(file) ? file : path.join(FIXTURES, file));

async function open(file: string, flags: DatasetOptions = {}): Promise<Domain> {
  const opened = await openDomain({ kind: 'dataset', name: 'd', file: where(file) }, flags);
  if (!opened.ok) throw new Error(opened.message);
  return opened.domain;
}

async function refused(file: string, flags: DatasetOptions = {}): Promise<string> {
  const opened = await openDomain({ kind: 'dataset', name: 'd', file: where(file) }, flags);
  if (opened.ok) throw new Error('opened');
  return opened.message;
}

type Loaded = Task<Record<string, unknown>, DatasetAnswer> & { split: string };

async function tasks(domain: Domain): Promise<Loaded[]> {
  const out: Loaded[] = [];
  for (const split of domain.splits)
    for (const t of await domain.load(split)) out.push({ ...(t as Loaded), split });
  return out;
}

const failed = async (domain: Domain) =>
  (await checkDomain(domain, ctx, {})).checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.message}`);

const GSM: DatasetOptions = { answerPattern: '#### (.+)$', metric: 'numeric' };

/** A scratch file with the given content. */
function scratch(name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

describe('file formats', () => {
  it('reads GSM8K as JSON lines, gzipped JSON lines, a JSON array and Parquet, to the same tasks', async () => {
    const lines = readFileSync(where('gsm8k.jsonl'), 'utf8').trim().split('\n');
    const array = scratch('gsm8k.json', `[\n${lines.join(',\n')}\n]\n`);
    const questions = async (file: string) =>
      (await tasks(await open(file, GSM))).map((t) => [t.input.question, t.answer.accepted[0]]).sort();
    const expected = await questions('gsm8k.jsonl');
    expect(expected).toHaveLength(6);
    expect(await questions('gsm8k.jsonl.gz')).toEqual(expected);
    expect(await questions(array)).toEqual(expected);
    expect(await questions('hf-gsm8k/data/test-00000-of-00001.parquet')).toEqual(
      expected.filter(([q]) => /sprints|chicken/.test(String(q))),
    );
  });

  it('reads a .json file that holds JSON lines, as many exports name them', async () => {
    const file = scratch('lines.json', `${readFileSync(where('gsm8k.jsonl'), 'utf8')}`);
    expect(await tasks(await open(file, GSM))).toHaveLength(6);
  });

  it('reads TruthfulQA as TSV like its CSV, quotes taken as they are', async () => {
    const options: DatasetOptions = {
      answerField: 'Best Answer',
      metric: 'truthful',
      correctField: 'Correct Answers',
      incorrectField: 'Incorrect Answers',
    };
    const fromTsv = await tasks(await open('truthfulqa.tsv', options));
    const fromCsv = await tasks(await open('truthfulqa.csv', options));
    expect(fromTsv.map((t) => [t.id, t.input, t.answer])).toEqual(
      fromCsv.map((t) => [t.id, t.input, t.answer]),
    );
    const quoted = scratch('quoted.tsv', 'question\tanswer\nWhat did she say? She said "hi"\thi\n');
    expect((await tasks(await open(quoted))).map((t) => t.input.question)).toEqual([
      'What did she say? She said "hi"',
    ]);
  });

  it.each([
    [
      'a corrupt gzip',
      'broken.jsonl.gz',
      Buffer.from('not gzip at all'),
      /broken\.jsonl\.gz is not a whole gzip file .*download it again, or, if it is not compressed, rename it without \.gz/,
    ],
    [
      'a truncated gzip',
      'cut.jsonl.gz',
      () => readFileSync(where('gsm8k.jsonl.gz')).subarray(0, 60),
      /cut\.jsonl\.gz is not a whole gzip file/,
    ],
    [
      'a bad Parquet file',
      'bad.parquet',
      Buffer.from('PAR1 this is not parquet'),
      /bad\.parquet is not a Parquet file that can be read .*download it again, or convert it to \.jsonl/,
    ],
    [
      'a JSON object instead of an array',
      'object.json',
      Buffer.from('{"rows": []}'),
      /object\.json holds a JSON object, not an array of rows/,
    ],
    [
      'broken JSON',
      'broken.json',
      Buffer.from('[{"question": "a",'),
      /broken\.json is not valid JSON .*an array of objects, or one object per line/,
    ],
    [
      'an unknown extension',
      'data.xlsx',
      Buffer.from('x'),
      /data\.xlsx: a dataset is a \.jsonl, \.json .*\.parquet file, or a folder of split files/,
    ],
  ])('refuses %s by name, with what to do and no stack trace', async (_what, name, content, message) => {
    const file = scratch(name, typeof content === 'function' ? content() : content);
    const said = await refused(file, GSM);
    expect(said).toMatch(message);
    expect(said).not.toMatch(/\n\s+at /);
  });
});

describe('a folder of split files, as Hugging Face ships them', () => {
  it('reads data/train-00000-of-00001.parquet and data/test-… into their splits, ids naming the split', async () => {
    const domain = await open('hf-gsm8k', GSM);
    expect(domain.splits).toEqual(['train', 'test']);
    const all = await tasks(domain);
    expect(all.map((t) => [t.split, t.id])).toEqual([
      ['train', 'train-1'],
      ['train', 'train-2'],
      ['train', 'train-3'],
      ['train', 'train-4'],
      ['test', 'test-1'],
      ['test', 'test-2'],
    ]);
    expect(await failed(domain)).toEqual([]);
  });

  it('reads train.jsonl, validation.jsonl and test.jsonl of an ARC-shaped folder, with its own choices', async () => {
    const domain = await open('hf-arc', { answerField: 'answerKey', metric: 'choice' });
    expect(domain.splits).toEqual(['train', 'val', 'test']);
    expect((await tasks(domain)).map((t) => [t.split, t.id])).toEqual([
      ['train', '7-980'],
      ['train', '7-584'],
      ['train', expect.any(String)],
      ['val', expect.any(String)],
      ['val', expect.any(String)],
      ['test', expect.any(String)],
    ]);
    expect(await failed(domain)).toEqual([]);
  });

  it('reads .csv and .json split files too, and gzipped ones', async () => {
    const folder = path.join(dir, 'csv-splits');
    scratch('csv-splits/train.csv', 'question,answer\nWhat is 2+2?,4\nWhat is 3+3?,6\n');
    scratch('csv-splits/validation.json', '[{"question": "What is 4+4?", "answer": "8"}]');
    copyFileSync(where('gsm8k.jsonl.gz'), scratch('csv-splits/test.jsonl.gz', ''));
    const domain = await open(folder, {});
    expect((await tasks(domain)).map((t) => [t.split, t.id])).toEqual([
      ['train', 'train-2'],
      ['train', 'train-3'],
      ['val', 'val-1'],
      ...[1, 2, 3, 4, 5, 6].map((i) => ['test', `test-${i}`]),
    ]);
  });

  it('refuses a folder with no split file, or two configurations, saying which folder to give', async () => {
    mkdirSync(path.join(dir, 'empty'), { recursive: true });
    scratch('empty/notes.txt', 'x');
    expect(await refused(path.join(dir, 'empty'))).toMatch(
      /empty holds no split files: a dataset folder has train, validation and\/or test files .* such as train\.jsonl or data\/test-00000-of-00001\.parquet/,
    );
    scratch('configs/main/test.jsonl', '{"question":"a","answer":"b"}\n');
    scratch('configs/socratic/test.jsonl', '{"question":"a","answer":"b"}\n');
    expect(await refused(path.join(dir, 'configs'))).toMatch(
      /configs holds split files in 2 folders \(main, socratic\), which are different configurations of the data: give one of those folders/,
    );
  });

  it('names the split file whose rows are broken, and a corrupt split file by its path', async () => {
    scratch('broken-splits/train.jsonl', '{"question":"a","answer":"b"}\n{"question":\n');
    scratch('broken-splits/test.jsonl.gz', 'not gzip');
    expect(await refused(path.join(dir, 'broken-splits'))).toMatch(
      /broken-splits\/test\.jsonl\.gz is not a whole gzip file/,
    );
    rmSync(path.join(dir, 'broken-splits', 'test.jsonl.gz'));
    const domain = await open(path.join(dir, 'broken-splits'));
    expect(domain.skipped).toEqual([
      { line: 2, reason: expect.stringMatching(/^not valid JSON .*\(in train\.jsonl\)$/) },
    ]);
  });
});

describe('nested fields', () => {
  it('takes question.stem from an OpenBookQA row as the input, its nested choices shown beside it', async () => {
    const domain = await open('openbookqa.jsonl', {
      answerField: 'answerKey',
      inputFields: ['question.stem'],
    });
    const first = (await tasks(domain)).find((t) => t.id === '7-980');
    expect(first!.input).toEqual({
      'question.stem': 'The sun is responsible for',
      choices: expect.arrayContaining([{ text: 'plants sprouting, blooming and wilting', label: 'D' }]),
    });
    expect(await failed(domain)).toEqual([]);
  });

  it('refuses a nested field no row has, listing the nested paths there are', async () => {
    expect(
      await refused('openbookqa.jsonl', { answerField: 'answerKey', inputFields: ['question.stm'] }),
    ).toMatch(
      /--input-fields names "question\.stm", which is not a field; the fields are id, question \(question\.stem, question\.choices\), answerKey/,
    );
  });

  it('skips, by line, a row that lacks a nested field the others have', async () => {
    const file = scratch(
      'nested.jsonl',
      '{"q":{"stem":"2+2?"},"answer":"4"}\n{"q":{"text":"3+3?"},"answer":"6"}\n{"q":{"stem":"4+4?"},"answer":"8"}\n',
    );
    const domain = await open(file, { inputFields: ['q.stem'] });
    expect(domain.skipped).toEqual([{ line: 2, reason: 'no input field "q.stem" in this row' }]);
  });
});

describe('Parquet struct and list columns', () => {
  it('takes the accepted answers from a struct of lists (SQuAD), and shows a list column in the input', async () => {
    const domain = await open('squad-nested.parquet', {
      answerField: 'answers.text',
      inputFields: ['question', 'tags'],
    });
    const all = await tasks(domain);
    expect(all.map((t) => [t.input.question, t.input.tags, t.answer.accepted])).toEqual(
      expect.arrayContaining([
        ['Which river flows through the capital of Egypt?', ['geography', 'rivers'], ['the Nile', 'Nile']],
        ['How many legs does a spider have?', ['biology'], ['eight', '8']],
        ['What gas do plants give off in sunlight?', [], ['oxygen']],
      ]),
    );
    expect(await failed(domain)).toEqual([]);
  });

  it('names the nested paths of a struct column when the answer field is not one of them', async () => {
    expect(await refused('squad-nested.parquet', { answerField: 'answers.txt' })).toMatch(
      /answers \(answers\.text, answers\.answer_start\)/,
    );
  });
});

describe('an answer index into the choices', () => {
  it('maps an MMLU-shaped JSON array, answer 0-3 into a list of choices, to A-D in index order, with no flags', async () => {
    const domain = await open('mmlu.json');
    expect(domain.metric).toBe('choice');
    const all = await tasks(domain);
    expect(all.map((t) => [t.input.question, t.answer.accepted])).toEqual(
      expect.arrayContaining([
        ['Which gas do plants take in to make sugar?', ['C']],
        ['What is 7 times 8?', ['B']],
        ['Which planet is closest to the sun?', ['A']],
        ['Which of these is a prime number?', ['D']],
      ]),
    );
    const gas = all.find((t) => String(t.input.question).startsWith('Which gas'))!;
    expect(gas.input.choices).toEqual([
      { label: 'A', text: 'Oxygen' },
      { label: 'B', text: 'Nitrogen' },
      { label: 'C', text: 'Carbon dioxide' },
      { label: 'D', text: 'Helium' },
    ]);
    expect(await domain.score('C', gas, ctx)).toBe(1);
    expect(await domain.score('2', gas, ctx)).toBe(0);
    expect(domain.formatHint).toMatch(/A, B, C, D/);
    expect(await failed(domain)).toEqual([]);
  });

  it('keeps labels that are digits as labels (ARC\'s "1"-"4"), and skips an index past the choices', async () => {
    const file = scratch(
      'digits.jsonl',
      [
        '{"id":"a","question":"?","choices":{"text":["x","y","z"],"label":["1","2","3"]},"answerKey":"3"}',
        '{"id":"b","question":"?","choices":{"text":["x","y","z"],"label":["1","2","3"]},"answerKey":"1"}',
      ].join('\n'),
    );
    const domain = await open(file, { answerField: 'answerKey' });
    expect((await tasks(domain)).map((t) => [t.id, t.answer.accepted]).sort()).toEqual([
      ['a', ['3']],
      ['b', ['1']],
    ]);
    const indexed = await open(
      scratch(
        'far.jsonl',
        '{"id":"b","question":"?","choices":["x","y"],"answer":7}\n{"id":"c","question":"?","choices":["x","y"],"answer":1}\n',
      ),
    );
    expect(indexed.skipped).toEqual([
      { line: 1, reason: 'the answer 7 reads as an index into the choices, but there are only 2 (A, B)' },
    ]);
  });
});

describe('options in the reference', () => {
  it('lets two datasets with different options share one run, the command line flags applying to neither', async () => {
    const refs = parseDomainRefs([
      `gsm=dataset:${where('gsm8k.jsonl')}?answer-pattern=%23%23%23%23 (.%2B)$&metric=numeric`,
      `dataset:${where('truthfulqa.csv')}?answer-field=Best Answer&metric=truthful&correct-field=Correct Answers&incorrect-field=Incorrect Answers`,
    ]);
    if (!refs.ok) throw new Error(refs.message);
    expect(refs.refs.map((r) => r.name)).toEqual([
      'gsm',
      'truthfulqa-best-answer-truthful-correct-answers-inc',
    ]);
    const flags: DatasetOptions = { answerField: 'nope', metric: 'f1' };
    const gsm = await openDomain(refs.refs[0]!, flags);
    const truthful = await openDomain(refs.refs[1]!, flags);
    if (!gsm.ok || !truthful.ok) throw new Error('not opened');
    expect(gsm.domain.metric).toMatch(/^numeric/);
    expect(truthful.domain.metric).toBe('truthful');
    expect(await failed(gsm.domain)).toEqual([]);
    expect(await failed(truthful.domain)).toEqual([]);
  });

  it('names the file and the field when a reference option names a field the file lacks', async () => {
    const refs = parseDomainRefs([`dataset:${where('gsm8k.jsonl')}?answer-field=solution`]);
    if (!refs.ok) throw new Error(refs.message);
    const opened = await openDomain(refs.refs[0]!, {});
    expect(opened.ok ? '' : opened.message).toMatch(
      /gsm8k\.jsonl: say which field holds the answer .*; the fields are question, answer/,
    );
  });
});

describe("inspect's samples", () => {
  it('are read without flags: input (text or chat messages) and choices shown, target graded, metadata kept back', async () => {
    const domain = await open('inspect.jsonl');
    expect(domain.metric).toBe('choice');
    const all = await tasks(domain);
    const boil = all.find((t) => t.id === 'boil')!;
    expect(boil.input).toEqual({
      input: [
        { role: 'system', content: 'Answer with the letter of one choice.' },
        { role: 'user', content: 'At sea level, water boils at how many degrees Celsius?' },
      ],
      choices: [
        { label: 'A', text: '90' },
        { label: 'B', text: '100' },
        { label: 'C', text: '110' },
      ],
    });
    const planet = all.find((t) => t.id === 'red-planet')!;
    expect(Object.keys(planet.input)).toEqual(['input', 'choices']);
    expect(await domain.score('B', planet, ctx)).toBe(1);
    expect(await domain.score('Mars', planet, ctx)).toBe(0);
    expect(await failed(domain)).toEqual([]);
  });

  it('grade a free-text target, a list of targets any of which is right', async () => {
    const file = scratch(
      'inspect-text.jsonl',
      [
        '{"id":"fr","input":"What is the capital of France?","target":"Paris"}',
        '{"id":"it","input":"What is the capital of Italy?","target":["Rome","Roma"]}',
      ].join('\n'),
    );
    const domain = await open(file);
    const it = (await tasks(domain)).find((t) => t.id === 'it')!;
    expect(it.input).toEqual({ input: 'What is the capital of Italy?' });
    expect(await domain.score('roma', it, ctx)).toBe(1);
    expect(await domain.score('Paris', it, ctx)).toBe(0);
  });

  it('refuse samples that need a sandbox, by the field', async () => {
    const file = scratch(
      'inspect-sandbox.jsonl',
      '{"id":"a","input":"ls","target":"x","sandbox":"docker"}\n',
    );
    expect(await refused(file)).toMatch(/its inspect samples use "sandbox", which needs inspect's sandbox/);
  });
});

describe('a prompt template with few-shot examples', () => {
  const ARC = { answerField: 'answerKey' };
  // Not "Answer:": a reply that echoes the prompt would read as stating the last example's answer.
  const TEMPLATE = 'Question: {question}\n{choices}\nRight choice:';

  it('writes each ARC task from the template, the choices as labelled lines, after train examples with their answers', async () => {
    const domain = await open('hf-arc', { ...ARC, promptTemplate: TEMPLATE, fewShot: 2 });
    const all = await tasks(domain);
    const questionOf = (t: Loaded) => String(t.input.prompt).split('\n\n').at(-1)!;
    const examplesOf = (t: Loaded) => String(t.input.prompt).split('\n\n').slice(0, -1);
    const [train1, train2, train3] = all.filter((t) => t.split === 'train');
    const test = all.find((t) => t.split === 'test')!;
    expect(Object.keys(test.input)).toEqual(['prompt']);
    expect(examplesOf(test)).toEqual([
      `${questionOf(train1!)} D`,
      `${questionOf(train2!)} ${train2!.answer.accepted[0]}`,
    ]);
    expect(examplesOf(test)[0]).toBe(
      'Question: The sun is responsible for\nA. puppies learning new tricks\nB. children growing up and getting old\nC. flowers wilting in a vase\nD. plants sprouting, blooming and wilting\nRight choice: D',
    );
    expect(questionOf(test)).toMatch(/^Question: .*\nA\. .*\nRight choice:$/s);
    // A train task's examples are the other train tasks: never itself, never a val or test row.
    expect(examplesOf(train1!)).toEqual([
      `${questionOf(train2!)} ${train2!.answer.accepted[0]}`,
      `${questionOf(train3!)} ${train3!.answer.accepted[0]}`,
    ]);
    for (const t of all)
      for (const example of examplesOf(t))
        expect(all.filter((o) => o.split !== 'train').map(questionOf)).not.toContain(
          example.replace(/ [A-D]$/, ''),
        );
    expect(await failed(domain)).toEqual([]);
  });

  it('reads the template from a file, and shows GSM8K examples with their worked answers', async () => {
    const template = scratch('gsm.txt', 'Question: {question}\nAnswer:');
    const domain = await open('hf-gsm8k', { ...GSM, promptTemplate: template, fewShot: 1 });
    const test = (await tasks(domain)).find((t) => t.split === 'test')!;
    expect(String(test.input.prompt)).toMatch(
      /^Question: Mia has 16 eggs\..*\nAnswer: She has 16 - 3 - 4 = .*#### 18\n\nQuestion: .*\nAnswer:$/s,
    );
  });

  it.each<[string, DatasetOptions, RegExp]>([
    [
      'a placeholder naming no field',
      { promptTemplate: 'Q: {questoin}' },
      /--prompt-template: the placeholder \{questoin\} names no field; the fields are question, answer\. Write a literal brace as \{\{ or \}\}/,
    ],
    [
      'a template with no placeholder',
      { promptTemplate: 'prompt.txt' },
      /--prompt-template has no \{field\} placeholder.*Or is it a file that does not exist/,
    ],
    [
      'the answer in the template',
      { promptTemplate: '{question} {answer}' },
      /--prompt-template shows \{answer\}, the answer, in every task/,
    ],
    ['few-shot with no template', { fewShot: 2 }, /--few-shot needs --prompt-template/],
    [
      'more examples than train rows',
      { promptTemplate: '{question}', fewShot: 4 },
      /--few-shot 4 takes its examples from the train split, which has 4 tasks; use --few-shot 3 or fewer/,
    ],
  ])('refuses %s, saying what to do', async (_what, options, message) => {
    expect(await refused('hf-gsm8k', { ...GSM, ...options })).toMatch(message);
  });
});
