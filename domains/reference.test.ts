import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDomainRef, nameFromPath, parseDomainRef, parseDomainRefs } from './reference.ts';

describe('parseDomainRef', () => {
  it.each([
    ['arithmetic', { kind: 'named', name: 'arithmetic' }],
    [
      'dataset:data/GSM8K test.jsonl',
      { kind: 'dataset', name: 'gsm8k-test', file: path.resolve('data/GSM8K test.jsonl') },
    ],
    [
      'gsm=dataset:data/gsm8k.jsonl',
      { kind: 'dataset', name: 'gsm', file: path.resolve('data/gsm8k.jsonl') },
    ],
    [
      'exercism:polyglot/javascript/exercises/practice/',
      { kind: 'exercism', name: 'practice', dir: path.resolve('polyglot/javascript/exercises/practice') },
    ],
    ['js-polyglot=exercism:/x/practice', { kind: 'exercism', name: 'js-polyglot', dir: '/x/practice' }],
    [
      'exercism:/x/python?tests=visible',
      { kind: 'exercism', name: 'python-tests-visible', dir: '/x/python', tests: 'visible' },
    ],
    ['py=exercism:/x/python?tests=hidden', { kind: 'exercism', name: 'py', dir: '/x/python' }],
    [
      'module:../evals/HumanEval.ts',
      { kind: 'module', name: 'humaneval', file: path.resolve('../evals/HumanEval.ts') },
    ],
    ['he=module:/x/humaneval.mjs', { kind: 'module', name: 'he', file: '/x/humaneval.mjs' }],
    [
      'lmeval:domains/testing/datasets/lmeval/gsm8k-local.yaml',
      {
        kind: 'lmeval',
        name: 'gsm8k-local',
        file: path.resolve('domains/testing/datasets/lmeval/gsm8k-local.yaml'),
      },
    ],
    ['g=lmeval:/x/My Task.yaml', { kind: 'lmeval', name: 'g', file: '/x/My Task.yaml' }],
    ['lmeval:/x/My Task.yaml', { kind: 'lmeval', name: 'my-task', file: '/x/My Task.yaml' }],
    [
      'gsm=dataset:/d/gsm8k.jsonl?answer-field=answer&metric=numeric',
      {
        kind: 'dataset',
        name: 'gsm',
        file: '/d/gsm8k.jsonl',
        options: { 'answer-field': 'answer', metric: 'numeric' },
      },
    ],
    [
      'dataset:/d/gsm8k.jsonl?metric=numeric&answer-pattern=%23%23%23%23%20(.%2B)%24',
      {
        kind: 'dataset',
        name: 'gsm8k-numeric',
        file: '/d/gsm8k.jsonl',
        options: { metric: 'numeric', 'answer-pattern': '#### (.+)$' },
      },
    ],
  ])('%s', (text, ref) => {
    expect(parseDomainRef(text)).toEqual({ ok: true, ref });
  });

  it.each([
    ['dataset:', /names no file/],
    ['Big=dataset:a.csv', /cannot name a domain/],
    ['http://example.com/x.csv', /only sources are dataset:FILE, exercism:DIR, module:FILE and lmeval:FILE/],
    ['x=arithmetic', /only dataset:FILE, exercism:DIR, module:FILE and lmeval:FILE can be renamed/],
    ['exercism:/x?test=visible', /Unknown option "test" \(exercism: takes tests=hidden\|visible\)/],
    ['exercism:/x?tests=shown', /tests=shown is not one of tests=hidden\|visible/],
    ['exercism:/x?tests', /"tests" is not an option of the form key=value/],
    [
      'dataset:a.csv?tests=visible',
      /Unknown option "tests" \(dataset: takes input-fields, answer-field, id-field, split-field, metric, choices, tolerance, correct-field, incorrect-field, answer-pattern, header, case-sensitive, prompt-template, few-shot\)/,
    ],
    [
      'dataset:a.csv?metric=fuzzy',
      /Option metric=fuzzy is not valid: Invalid option: expected one of "exact"/,
    ],
    ['dataset:a.csv?metric', /"metric" is not an option of the form key=value/],
    ['dataset:a.csv?metric=exact&metric=f1', /Option "metric" is given twice/],
    ['dataset:a.csv?few-shot=many', /Option few-shot=many is not valid/],
  ])('rejects %s', (text, message) => {
    const parsed = parseDomainRef(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });
});

it('writes a reference with its options out in full, and reads it back the same', () => {
  const parsed = parseDomainRef('exercism:/x/python?tests=visible');
  if (!parsed.ok) throw new Error(parsed.message);
  const text = formatDomainRef(parsed.ref);
  expect(text).toBe('python-tests-visible=exercism:/x/python?tests=visible');
  expect(parseDomainRef(text)).toEqual(parsed);
  const dataset = parseDomainRef('dataset:/d/gsm.jsonl?answer-pattern=%23%23%23%23 (.%2B)$&metric=numeric');
  if (!dataset.ok) throw new Error(dataset.message);
  expect(parseDomainRef(formatDomainRef(dataset.ref))).toEqual(dataset);
});

it('writes a module reference out with its name, so a resumed run opens the same file', () => {
  const parsed = parseDomainRef('module:/x/humaneval.ts');
  if (!parsed.ok) throw new Error(parsed.message);
  expect(formatDomainRef(parsed.ref)).toBe('humaneval=module:/x/humaneval.ts');
  expect(parseDomainRef(formatDomainRef(parsed.ref))).toEqual(parsed);
});

describe('nameFromPath', () => {
  it.each([
    ['qa.csv', 'qa'],
    ['2024_Trivia.CSV', 'trivia'],
    ['dir/', 'dir'],
    ['123.jsonl', 'dataset'],
  ])('%s → %s', (p, name) => expect(nameFromPath(p)).toBe(name));
});

describe('parseDomainRefs', () => {
  it('splits on commas, keeps order and drops exact repeats', () => {
    const parsed = parseDomainRefs(['code,dataset:a.csv', 'code']);
    expect(parsed.ok && parsed.refs.map((r) => r.name)).toEqual(['code', 'a']);
  });

  it('asks to rename when two sources would share a name', () => {
    const parsed = parseDomainRefs(['dataset:x/qa.csv,dataset:y/qa.jsonl']);
    expect(parsed).toEqual({
      ok: false,
      message: expect.stringMatching(/Two domains would be named "qa": rename one with NAME=/),
    });
  });
});
