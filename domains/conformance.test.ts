import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkDomain, createGradeContext } from '../harness/evaluation/index.ts';
import { resolveSandbox } from '../harness/process/index.ts';
import { defineDomain, type Split } from './define-domain.ts';
import { listDomainNames, loadDomain } from './discover.ts';
import { openDomain } from './open-domain.ts';
import { parseDomainRef } from './reference.ts';
import { INITIALS, LEAP_DAYS, writeExercises } from './testing/exercise-fixtures.ts';

const nodeModules = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules');
const sandbox = resolveSandbox('auto');
const ctx = createGradeContext({
  sandbox: sandbox.kind === 'missing' ? { kind: 'none', why: 'test' } : sandbox,
  nodeModules,
});

/** Runs against every folder under domains/: a new domain is checked the moment it exists. */
const names = listDomainNames();

it('finds the shipped domains', () => {
  expect(names).toEqual(expect.arrayContaining(['arithmetic', 'code', 'text']));
});

describe.each(names)('domain %s', (name) => {
  it('passes every conformance check and scores every gold answer 1', async () => {
    const report = await checkDomain(await loadDomain(name), ctx);
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.score).toBe(1);
    expect(report.tasks).toBeGreaterThan(0);
  }, 600_000);
});

describe('sources made in a test', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'sources-'));
    writeFileSync(path.join(dir, 'qa.csv'), 'id,q,answer\n1,"a, b?",x\n2,"say ""c""",y\n3,d,z\n4,e,w\n');
    writeExercises(path.join(dir, 'ex'), [LEAP_DAYS, INITIALS]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['dataset:qa.csv', 'exercism:ex'])(
    '%s passes every conformance check',
    async (text) => {
      const parsed = parseDomainRef(text.replace(/:/, `:${dir}/`));
      if (!parsed.ok) throw new Error(parsed.message);
      const opened = await openDomain(parsed.ref);
      if (!opened.ok) throw new Error(opened.message);
      const report = await checkDomain(opened.domain, ctx);
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      expect(report.score).toBe(1);
    },
    300_000,
  );
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
