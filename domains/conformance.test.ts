import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gradeOutput } from '../harness/grading.ts';
import { ALL_SPLITS, type Domain, defineDomain, type Split } from './define-domain.ts';
import { listDomainNames, loadDomain } from './discover.ts';

/** Runs against every folder under domains/: a new domain is checked the moment it exists. */
const names = listDomainNames();

it('finds the shipped domains', () => {
  expect(names).toContain('arithmetic');
});

describe.each(names)('domain %s', (name) => {
  let domain: Domain;

  beforeAll(async () => {
    domain = await loadDomain(name);
  });

  it('is named after its folder and describes itself', () => {
    expect(domain.name).toBe(name);
    expect(domain.description.trim()).not.toBe('');
    if (domain.formatHint !== undefined) expect(domain.formatHint.trim()).not.toBe('');
  });

  it('declares known, distinct splits including train', () => {
    expect(domain.splits).toContain('train');
    expect(new Set(domain.splits).size).toBe(domain.splits.length);
    for (const split of domain.splits) expect(ALL_SPLITS).toContain(split);
  });

  it('samples at least one task in the staged evaluation', () => {
    expect(Number.isInteger(domain.stagedSamples)).toBe(true);
    expect(domain.stagedSamples).toBeGreaterThanOrEqual(1);
  });

  describe.each(ALL_SPLITS)('split %s', (split: Split) => {
    it('loads the same non-empty tasks every time, with unique ids', async ({ skip }) => {
      if (!domain.splits.includes(split)) return skip();
      const tasks = await domain.load(split);
      expect(tasks.length).toBeGreaterThan(0);
      expect(await domain.load(split)).toEqual(tasks);
      for (const t of tasks) expect(typeof t.id === 'string' && t.id !== '').toBe(true);
      expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    });

    it('grades every gold answer 1, directly and as a TaskAgent output', async ({ skip }) => {
      if (!domain.splits.includes(split)) return skip();
      for (const task of await domain.load(split)) {
        const parsed = domain.answerSchema.safeParse(task.answer);
        expect(parsed.success, `gold answer of ${task.id}`).toBe(true);
        if (!parsed.success) continue;
        expect(domain.score(parsed.data, task), task.id).toBe(1);
        const output = `Done.\n<json>${JSON.stringify({ response: task.answer })}</json>`;
        expect(gradeOutput(domain, task, output), task.id).toMatchObject({ outcome: 'correct', score: 1 });
      }
    });

    it('grades a wrong answer in [0, 1) without throwing', async ({ skip }) => {
      if (!domain.splits.includes(split)) return skip();
      for (const task of await domain.load(split)) {
        const parsed = domain.answerSchema.safeParse('definitely wrong');
        if (parsed.success) {
          const score = domain.score(parsed.data, task);
          expect(score, task.id).toBeGreaterThanOrEqual(0);
          expect(score, task.id).toBeLessThan(1);
        }
        const graded = gradeOutput(domain, task, '<json>{"response": "definitely wrong"}</json>');
        expect(graded.outcome, task.id).not.toBe('correct');
        expect(graded.score, task.id).toBeLessThan(1);
      }
    });
  });
});

describe('defineDomain', () => {
  const spec = {
    description: 'a test domain',
    splits: ['train'] as Split[],
    load: () => [{ id: 'a', input: 'q', answer: 'x' }],
    answerSchema: z.string(),
    score: (prediction: string, task: { answer: string }) => (prediction === task.answer ? 1 : 0),
  };

  it.each(['Arithmetic', 'my domain', 'my_domain', '1st', '-lead', '', 'ünï', '../escape'])(
    'rejects the name %j',
    (name) => {
      expect(() => defineDomain({ ...spec, name })).toThrow(/must be lower-case letters, digits and dashes/);
    },
  );

  it.each(['a', 'text', 'word-puzzles', 'gsm8k'])('accepts the name %j', (name) => {
    expect(defineDomain({ ...spec, name }).name).toBe(name);
  });

  it('rejects a domain without splits', () => {
    expect(() => defineDomain({ ...spec, name: 'empty', splits: [] })).toThrow(/declares no splits/);
  });

  it.each([
    [undefined, 10],
    [3, 3],
  ])('stagedSamples %j becomes %d', (stagedSamples, expected) => {
    expect(defineDomain({ ...spec, name: 'x', stagedSamples }).stagedSamples).toBe(expected);
  });
});

describe('domain discovery', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'domains-'));
    mkdirSync(path.join(dir, 'no-index'));
    writeFileSync(path.join(dir, 'no-index', 'README.md'), 'not a domain\n');
    writeFileSync(path.join(dir, 'stray.ts'), 'export {};\n');
    const domainSource = (name: string) =>
      `export default { name: '${name}', splits: ['train'], load: () => [], score: () => 0, answerSchema: {} };\n`;
    for (const [folder, declared] of [
      ['good', 'good'],
      ['misnamed', 'other'],
    ]) {
      mkdirSync(path.join(dir, folder!));
      writeFileSync(path.join(dir, folder!, 'index.ts'), domainSource(declared!));
    }
    mkdirSync(path.join(dir, 'not-a-domain'));
    writeFileSync(path.join(dir, 'not-a-domain', 'index.ts'), 'export default 42;\n');
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists every folder with an index.ts, sorted', () => {
    expect(listDomainNames(dir)).toEqual(['good', 'misnamed', 'not-a-domain']);
  });

  it.each([
    ['good', null],
    ['misnamed', /defines a domain named "other", but its folder is "misnamed"/],
    ['not-a-domain', /must default-export defineDomain/],
  ])('loads %s', async (name, error) => {
    if (error === null) expect((await loadDomain(name, dir)).name).toBe(name);
    else await expect(loadDomain(name, dir)).rejects.toThrow(error);
  });
});
