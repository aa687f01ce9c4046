import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLmevalDomain } from './lmeval-domain.ts';
import { promptTemplate, readLmevalTask } from './lmeval-task.ts';
import { parseDomainRef } from './reference.ts';

const FIXTURE = path.resolve('domains/testing/datasets/lmeval/gsm8k-local.yaml');
const GSM = readFileSync(FIXTURE, 'utf8');
const here = (p: string) => p === '/t/data' || p === '/t/data.jsonl';
const read = (text: string) => readLmevalTask(text, '/t/task.yaml', here);
const BASE = [
  'dataset_path: data.jsonl',
  'test_split: test',
  'doc_to_text: "Q: {{question}}"',
  'doc_to_target: answer',
].join('\n');
/** The message for the base task with `extra` lines added; a key in `extra` replaces the base's. */
const refusal = (extra: string) => {
  const keys = [...extra.matchAll(/^(\w+):/gm)].map((m) => m[1]);
  const base = BASE.split('\n').filter((line) => !keys.includes(line.split(':')[0]));
  const got = read(`${base.join('\n')}\n${extra}`);
  return got.ok ? 'accepted' : got.message;
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('lm-eval task YAML', () => {
  it('maps the GSM8K-style task to a prompt template, answer field, answer pattern and few-shot', () => {
    const got = readLmevalTask(GSM, FIXTURE, () => true);
    expect(got).toEqual({
      ok: true,
      task: {
        task: 'gsm8k_local',
        source: {
          kind: 'files',
          files: [
            { file: path.join(path.dirname(FIXTURE), 'gsm8k-local/test.jsonl'), split: 'test' },
            { file: path.join(path.dirname(FIXTURE), 'gsm8k-local/train.jsonl'), split: 'train' },
          ],
        },
        options: {
          promptTemplate: 'Question: {question}\nAnswer:',
          answerField: 'answer',
          metric: 'exact',
          answerPattern: '#### (\\-?[0-9\\.\\,]+)',
          fewShot: 1,
        },
      },
    });
  });

  it.each([
    ['Question: {{question}}\nAnswer:', 'Question: {question}\nAnswer:'],
    ['{{ question.stem }} ?', '{question.stem} ?'],
    ['question', '{question}'],
    ['{"json": {{x}}}', '{{"json": {x}}}'],
  ])('reads the template %j as %j', (jinja, ours) => {
    expect(promptTemplate(jinja)).toEqual({ ok: true, template: ours });
  });

  it.each([
    ['{% for c in choices %}{{c}}{% endfor %}', 'the Jinja block {% for c in choices %}'],
    ['{{question | trim}}', 'the filter "|trim"'],
    ['{{choices[0]}}', 'an expression'],
    ['{{ "Q: " + question }}', 'an expression'],
  ])('refuses the template %j naming %j', (jinja, named) => {
    const got = promptTemplate(jinja);
    expect(got.ok).toBe(false);
    expect(got.ok ? '' : got.message).toContain(named);
  });

  it('reads a file as one file, a folder by its split names, and a dataset_name as its subfolder', () => {
    expect(read(BASE)).toMatchObject({ ok: true, task: { source: { kind: 'file', file: '/t/data.jsonl' } } });
    expect(read(`${BASE.replace('data.jsonl', 'data')}\nvalidation_split: validation`)).toMatchObject({
      ok: true,
      task: { source: { kind: 'folder', dir: '/t/data', splits: { test: 'test', validation: 'val' } } },
    });
    expect(read(`${BASE.replace('data.jsonl', 'data')}\ndataset_name: main`)).toMatchObject({
      ok: true,
      task: { source: { kind: 'folder', dir: '/t/data/main' } },
    });
  });

  it.each([
    ['output_type: multiple_choice', 'output_type multiple_choice scores'],
    ['output_type: loglikelihood', 'output_type loglikelihood scores'],
    ['process_docs: !function utils.process_docs', '"process_docs: !function ..." uses a custom YAML tag'],
    ['include: _default.yaml', '"include" merges another task file'],
    ['doc_to_choice: "{{choices}}"', '"doc_to_choice"'],
    ['fewshot_config:\n  sampler: first_n', '"fewshot_config"'],
    ['description: "Solve it."', '"description" puts text before every prompt'],
    ['unknown_key: 1', '"unknown_key" is not read here'],
    ['metric_list:\n  - metric: bleu', 'metric "bleu" is not computed here: use exact_match'],
    [
      'metric_list:\n  - metric: exact_match\n    ignore_punctuation: true',
      'ignore_punctuation: true is not read here',
    ],
    [
      'metric_list:\n  - metric: exact_match\n    ignore_case: "no"',
      'ignore_case: "no" is not read here: it is true or false',
    ],
    ['metric_list:\n  - metric: exact_match\n    regexes_to_ignore: [","]', 'regexes_to_ignore'],
    [
      'filter_list:\n  - name: a\n    filter:\n      - function: lowercase\n      - function: take_first',
      'the filters lowercase, take_first are not read here',
    ],
    [
      'filter_list:\n  - name: a\n    filter:\n      - function: regex\n        regex_pattern: "(a)|(b)"\n      - function: take_first',
      'has 2 groups',
    ],
    [
      'filter_list:\n  - name: a\n    filter:\n      - function: regex\n        group_select: 2\n      - function: take_first',
      'group_select 2',
    ],
    ['num_fewshot: -1', 'num_fewshot -1'],
    ['target_delimiter: "\\n"', 'target_delimiter'],
    ['doc_to_target: "{{answer}} and {{other}}"', 'is not one field'],
    ['doc_to_text: "{{q|upper}}"', 'doc_to_text: {{q|upper}} uses the filter "|upper"'],
    ['dataset_path: gsm8k', 'dataset_path gsm8k names a Hugging Face Hub dataset'],
    ['dataset_path: json', 'dataset_path json needs dataset_kwargs.data_files'],
    [
      'dataset_path: json\ndataset_kwargs:\n  data_files:\n    train: a.jsonl',
      'data_files has no file for split "test"',
    ],
    ['test_split: null', 'test_split is missing'],
    ['x: [1', 'not valid YAML'],
  ])('refuses %j by name', (extra, named) => {
    expect(refusal(extra)).toContain(named);
    expect(refusal(extra)).not.toContain('\n    at ');
  });

  it('accepts a regex filter picking the last match, and a pattern without a group as the whole match', () => {
    const pipeline = (lines: string) =>
      `filter_list:\n  - name: a\n    filter:\n      - function: regex\n${lines}      - function: take_first`;
    expect(
      read(`${BASE}\n${pipeline('        regex_pattern: "(-?[0-9]+)"\n        group_select: -1\n')}`),
    ).toMatchObject({ ok: true, task: { options: { answerPattern: '[\\s\\S]*(?:(-?[0-9]+))' } } });
    expect(read(`${BASE}\n${pipeline('        regex_pattern: "[0-9]+"\n')}`)).toMatchObject({
      ok: true,
      task: { options: { answerPattern: '([0-9]+)' } },
    });
  });

  it('opens the GSM8K-style fixture: prompts with one solved example, gold after ####, graded by it', async () => {
    const opened = await openLmevalDomain(FIXTURE, 'gsm8k-local');
    if (!opened.ok) throw new Error(opened.message);
    const { domain } = opened;
    expect(domain.splits).toEqual(['train', 'test']);
    const [task] = await domain.load('test');
    const prompt = String(task!.input.prompt);
    expect(prompt).toMatch(/^Question: Mia has 16 eggs[\s\S]*#### 18\n\nQuestion: .+\nAnswer:$/);
    expect(task!.answer.accepted).toHaveLength(1);
    const gold = task!.answer.accepted[0]!;
    expect(await domain.score(`Let me think.\n#### ${gold}`, task!, {} as never)).toBe(1);
    expect(await domain.score(`Let me think.\n#### ${gold}1`, task!, {} as never)).toBe(0);
  });

  it('reads a folder of split files, with the validation split as the test tasks and the test file unused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lmeval-'));
    dirs.push(dir);
    mkdirSync(path.join(dir, 'data'));
    const row = (q: string, a: string) => JSON.stringify({ q, a });
    writeFileSync(path.join(dir, 'data', 'validation.jsonl'), `${row('2+2?', '4')}\n${row('3+3?', '6')}\n`);
    writeFileSync(path.join(dir, 'data', 'test.jsonl'), `${row('unlabelled', 'x')}\n`);
    writeFileSync(path.join(dir, 'data', 'train.jsonl'), `${row('1+1?', '2')}\n`);
    const yaml = path.join(dir, 'sums.yaml');
    writeFileSync(
      yaml,
      'task: sums\ndataset_path: ./data\ntest_split: validation\ntraining_split: train\ndoc_to_text: "{{q}} ="\ndoc_to_target: a\n',
    );
    const opened = await openLmevalDomain(yaml, 'sums');
    if (!opened.ok) throw new Error(opened.message);
    expect(opened.domain.splits).toEqual(['train', 'test']);
    expect((await opened.domain.load('test')).map((t) => t.input.prompt)).toEqual(['2+2? =', '3+3? =']);
    expect(parseDomainRef(`lmeval:${yaml}`)).toEqual({
      ok: true,
      ref: { kind: 'lmeval', name: 'sums', file: yaml },
    });
  });

  it('compares case as lm-eval does: unless ignore_case is true', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lmeval-case-'));
    dirs.push(dir);
    writeFileSync(
      path.join(dir, 'capitals.jsonl'),
      `${JSON.stringify({ q: 'Capital of France?', a: 'Paris' })}\n`,
    );
    const scores = async (metric: string) => {
      const yaml = path.join(dir, 'capitals.yaml');
      writeFileSync(
        yaml,
        `dataset_path: json\ndataset_kwargs:\n  data_files:\n    test: capitals.jsonl\ntest_split: test\ndoc_to_text: "{{q}}"\ndoc_to_target: a\n${metric}`,
      );
      const opened = await openLmevalDomain(yaml, 'capitals');
      if (!opened.ok) throw new Error(opened.message);
      const [task] = await opened.domain.load(opened.domain.splits[0]!);
      return Promise.all(
        ['Paris', 'paris', ' Paris '].map((a) => opened.domain.score(a, task!, {} as never)),
      );
    };
    expect(await scores('')).toEqual([1, 0, 1]);
    expect(await scores('metric_list:\n  - metric: exact_match\n    ignore_case: false\n')).toEqual([
      1, 0, 1,
    ]);
    expect(await scores('metric_list:\n  - metric: exact_match\n    ignore_case: true\n')).toEqual([1, 1, 1]);
  });

  it('says so when the file is missing', async () => {
    expect(await openLmevalDomain('/nowhere/task.yaml', 'task')).toEqual({
      ok: false,
      message: 'lmeval:/nowhere/task.yaml: no such file.',
    });
  });
});
