import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DomainRef } from '../../domains/index.ts';
import { domainData } from './domain-data.ts';
import { domainHashes } from './domain-hashes.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../domains/testing/datasets');
const tmp = mkdtempSync(path.join(tmpdir(), 'domain-data-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const hashesOf = (ref: DomainRef) =>
  domainHashes({ domains: [ref], stagedSamples: null, evalSamples: null, dataset: {} });

describe('domainData', () => {
  it('a dataset file, with its .domain.json sidecar when there is one', () => {
    const dir = path.join(tmp, 'plain');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'sums.csv'), 'question,answer\nWhat is 1 + 1?,2\n');
    writeFileSync(path.join(dir, 'sums.domain.json'), '{"answerField": "answer"}');
    writeFileSync(path.join(dir, 'other.csv'), 'not read\n');
    const data = domainData({ kind: 'dataset', name: 'sums', file: path.join(dir, 'sums.csv') });
    expect(data).toEqual({
      name: 'sums',
      root: dir,
      entry: 'sums.csv',
      files: [
        { rel: 'sums.csv', bytes: 33 },
        { rel: 'sums.domain.json', bytes: 25 },
      ],
    });
  });

  it('a dataset folder keeps its own name, and every file under it', () => {
    const data = domainData({ kind: 'dataset', name: 'arc', file: path.join(FIXTURES, 'hf-arc') });
    expect(data?.root).toBe(FIXTURES);
    expect(data?.entry).toBe('hf-arc');
    expect(data?.files.map((f) => f.rel)).toEqual([
      'hf-arc/test.jsonl',
      'hf-arc/train.jsonl',
      'hf-arc/validation.jsonl',
    ]);
  });

  it('an lmeval task YAML with the files it names, from the folder holding them all', () => {
    const dir = path.join(tmp, 'lm');
    mkdirSync(path.join(dir, 'tasks', 'local'), { recursive: true });
    mkdirSync(path.join(dir, 'shared'));
    const row = '{"question": "What is 2 + 2?", "answer": "#### 4"}\n';
    writeFileSync(path.join(dir, 'shared', 'train.jsonl'), row);
    writeFileSync(path.join(dir, 'tasks', 'local', 'test.jsonl'), row);
    writeFileSync(
      path.join(dir, 'tasks', 't.yaml'),
      [
        'dataset_path: json',
        'dataset_kwargs:',
        '  data_files:',
        '    train: ../shared/train.jsonl',
        '    test: local/test.jsonl',
        'training_split: train',
        'test_split: test',
        'doc_to_text: "{{question}}"',
        'doc_to_target: "{{answer}}"',
        '',
      ].join('\n'),
    );
    const data = domainData({ kind: 'lmeval', name: 't', file: path.join(dir, 'tasks', 't.yaml') });
    expect(data?.root).toBe(dir);
    expect(data?.entry).toBe('tasks/t.yaml');
    expect(data?.files.map((f) => f.rel)).toEqual([
      'shared/train.jsonl',
      'tasks/local/test.jsonl',
      'tasks/t.yaml',
    ]);
  });

  it('copied as listed, an lmeval domain reads the same tasks from the copy', async () => {
    const ref: DomainRef = {
      kind: 'lmeval',
      name: 'gsm',
      file: path.join(FIXTURES, 'lmeval', 'gsm8k-local.yaml'),
    };
    const data = domainData(ref);
    expect(data?.files.map((f) => f.rel)).toEqual([
      'gsm8k-local.yaml',
      'gsm8k-local/test.jsonl',
      'gsm8k-local/train.jsonl',
    ]);
    const copy = path.join(tmp, 'copy');
    for (const f of data!.files) {
      mkdirSync(path.dirname(path.join(copy, f.rel)), { recursive: true });
      copyFileSync(path.join(data!.root, f.rel), path.join(copy, f.rel));
    }
    const [then] = await hashesOf(ref);
    const [now] = await hashesOf({ ...ref, file: path.join(copy, data!.entry) });
    expect(then).toMatchObject({ tasks: 6 });
    expect(now).toEqual({ ...then, ref: `gsm=lmeval:${path.join(copy, data!.entry)}` });
  });

  it('nothing for a domain of the project, or a file no longer there', () => {
    expect(domainData({ kind: 'named', name: 'arithmetic' })).toBeNull();
    expect(domainData({ kind: 'dataset', name: 'x', file: path.join(tmp, 'gone.jsonl') })).toBeNull();
  });
});
