import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

const FIXTURE = path.join(PROJECT_ROOT, 'domains', 'testing', 'datasets', 'lmeval', 'gsm8k-local.yaml');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lmeval-cli-'));
  writeFileSync(path.join(dir, 'broken.yaml'), 'task: broken\ndoc_to_text: [unclosed\n');
  writeFileSync(
    path.join(dir, 'python.yaml'),
    'task: python\ndataset_path: ./data\ntest_split: test\ndoc_to_text: !function utils.doc_to_text\ndoc_to_target: answer\n',
  );
  writeFileSync(
    path.join(dir, 'hub.yaml'),
    'task: hub\ndataset_path: gsm8k\ntest_split: test\ndoc_to_text: question\ndoc_to_target: answer\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hyperagents domains test lmeval:FILE', () => {
  it('checks the GSM8K-style task YAML: named by its task, every gold answer scores 1, every check passes', async () => {
    const result = await runCli('hyperagents', ['domains', 'test', `lmeval:${FIXTURE}`, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ domain: 'gsm8k-local', tasks: 6, score: 1 });
    expect(report.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
  });

  it('refuses dataset flags, which an lmeval: task would not read, pointing at its YAML', async () => {
    const result = await runCli('hyperagents', [
      'domains',
      'test',
      `lmeval:${FIXTURE}`,
      '--answer-field',
      'x',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'hyperagents: --answer-field applies to dataset:FILE domains, and no domain here reads it. An lmeval:FILE ' +
        'task takes its fields, metric and filters from its YAML: change them there.\n',
    );
  });

  it.each([
    ['broken.yaml', /lmeval:.*broken\.yaml: not valid YAML: .+ at line 3, column 1\.\n$/],
    ['python.yaml', /"doc_to_text: !function \.\.\." uses a custom YAML tag, which runs Python/],
    [
      'hub.yaml',
      /dataset_path gsm8k names a Hugging Face Hub dataset, which is not downloaded here: download it/,
    ],
    ['missing.yaml', /lmeval:.*missing\.yaml: no such file\./],
  ])('refuses %s in one line with exit 2, no stack', async (file, message) => {
    const result = await runCli('hyperagents', ['domains', 'test', `lmeval:${file}`], {}, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
