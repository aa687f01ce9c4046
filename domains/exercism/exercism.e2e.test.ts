import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDomain, createGradeContext } from '../../harness/evaluation/index.ts';
import { resolveSandbox } from '../../harness/process/index.ts';
import { openDomain } from '../open-domain.ts';
import { parseDomainRef } from '../reference.ts';
import { INITIALS, writeExercises } from '../testing/exercise-fixtures.ts';
import { exercismDomain, gradeExercise } from './exercism-domain.ts';
import { LANGUAGES } from './languages.ts';
import { python } from './python.ts';
import { type ExerciseTask, readExercises } from './read.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Real exercises from Exercism's tracks (MIT, see LICENSE there), in the polyglot-benchmark layout. */
const FIXTURES = path.join(root, 'test', 'fixtures', 'exercism');
const sandbox = resolveSandbox('bwrap');
if (sandbox.kind !== 'bwrap') throw new Error('these tests need bubblewrap (apt-get install bubblewrap)');
const ctx = createGradeContext({ sandbox, nodeModules: path.join(root, 'node_modules') });

const taskOf = (id: string, testsVisible = false): ExerciseTask => {
  const task = readExercises(FIXTURES, { testsVisible }).tasks.find((t) => t.id === id);
  if (!task) throw new Error(`${id} not read`);
  return task;
};

let tsDir: string;
beforeAll(() => {
  tsDir = writeExercises(mkdtempSync(path.join(tmpdir(), 'exercises-')), [INITIALS]);
});
afterAll(() => rmSync(tsDir, { recursive: true, force: true }));

describe('exercises of every language as workspace tasks', () => {
  it('names each task by language and exercise, from the track folders', () => {
    const { tasks, skipped } = readExercises(FIXTURES);
    expect(skipped).toEqual([]);
    expect(tasks.map((t) => t.id)).toEqual([
      'cpp/binary-search-tree',
      'cpp/space-age',
      'go/bowling',
      'go/octal',
      'java/bowling',
      'java/resistor-color-trio',
      'java/series',
      'javascript/bowling',
      'javascript/space-age',
      'python/bowling',
      'python/transpose',
      'rust/acronym',
      'rust/bowling',
      'rust/gigasecond',
    ]);
    expect(readExercises(tsDir).tasks.map((t) => t.id)).toEqual(['typescript/initials']);
  });

  it('gives the TaskAgent stubs and build files, never the tests or the example', () => {
    const go = taskOf('go/octal');
    expect(Object.keys(go.workspace?.files ?? {})).toEqual(['go.mod', 'octal.go']);
    expect(go.input).toMatchObject({ exercise: 'octal', language: 'go', files: ['go.mod', 'octal.go'] });
    expect(go.workspace).toMatchObject({ language: 'go' });
    expect(go.workspace?.testCommand).toBeUndefined();
    expect(Object.keys(go.answer.tests)).toEqual(['octal_test.go']);
    expect(Object.keys(go.answer.reference)).toEqual(['octal.go']);
    const js = taskOf('javascript/space-age');
    expect(Object.keys(js.workspace?.files ?? {})).toEqual(['space-age.js']);
    expect(js.input.instructions).toMatch(/^# Introduction[\s\S]*# Instructions/);
    expect(JSON.stringify(js.workspace)).not.toContain('proof');
  });

  it('puts the tests and their command in the workspace when they are visible', () => {
    const task = taskOf('python/transpose', true);
    expect(Object.keys(task.workspace?.files ?? {})).toEqual(['transpose.py', 'transpose_test.py']);
    expect(task.workspace?.testCommand).toBe('python3 -m pytest -q');
  });

  const cases: [string, () => ExerciseTask, RegExp][] = [
    ['python/transpose', () => taskOf('python/transpose'), /^\d+\/\d+ tests passed$/],
    ['go/octal', () => taskOf('go/octal'), /^\d+\/\d+ tests passed$/],
    ['javascript/space-age', () => taskOf('javascript/space-age'), /^\d+\/\d+ tests passed$/],
    [
      'typescript/initials',
      () => readExercises(tsDir).tasks[0]!,
      /^2\/2 tests passed$/, // one test is marked xit: grading enables it
    ],
  ];
  it.each(cases)(
    '%s: the reference scores 1 and the untouched stub 0, with the test output',
    async (_id, task, passed) => {
      const t = task();
      const start = t.workspace!.files;
      const gold = await gradeExercise({ files: { ...start, ...t.answer.reference } }, t.answer, ctx);
      expect(gold).toMatchObject({ score: 1, detail: expect.stringMatching(passed) });
      const stub = await gradeExercise({ files: start }, t.answer, ctx);
      expect(stub).toMatchObject({ score: 0 });
      expect(typeof stub === 'object' && stub.log).toBeTruthy();
      expect(typeof stub === 'object' && stub.log!.length).toBeLessThanOrEqual(8193);
    },
    300_000,
  );

  it('lets the hidden tests win over a test file of the same name the TaskAgent wrote', async () => {
    const t = taskOf('python/transpose');
    const cheat = { 'transpose_test.py': 'def test_nothing():\n    assert True\n' };
    const grade = await gradeExercise({ files: { ...t.workspace!.files, ...cheat } }, t.answer, ctx);
    expect(grade).toMatchObject({ score: 0 });
  }, 120_000);
});

describe('a language whose toolchain is missing', () => {
  const missing = {
    ...LANGUAGES,
    python: {
      ...python,
      toolchain: () => ({
        ok: false as const,
        missing: '/usr/bin/python3',
        packages: ['python3', 'python3-pytest'],
      }),
    },
  };

  it('skips its exercises with the Debian packages named, and domains test counts them as skipped', async () => {
    const set = readExercises(path.join(FIXTURES), { languages: missing });
    expect(set.tasks.map((t) => t.id)).not.toContain('python/transpose');
    expect(set.tasks.map((t) => t.id)).toContain('go/octal');
    expect(set.skipped).toEqual(
      ['python/bowling', 'python/transpose'].map((id) => ({
        line: 0,
        id,
        reason: `${id}: python exercises need /usr/bin/python3, which is not installed: apt-get install python3 python3-pytest`,
      })),
    );
    const js = { tasks: set.tasks.filter((t) => t.input.language === 'javascript'), skipped: set.skipped };
    const report = await checkDomain(exercismDomain(js, { name: 'polyglot', splitOf: () => 'train' }), ctx);
    expect(report.groups).toEqual([
      { group: 'javascript', passed: 2, failed: 0, skipped: 0 },
      { group: 'python', passed: 0, failed: 0, skipped: 2 },
    ]);
  }, 300_000);

  it('refuses to grade, never scoring 0 in silence', async () => {
    const t = taskOf('python/transpose');
    await expect(gradeExercise({ files: t.answer.reference }, t.answer, ctx, missing)).rejects.toThrow(
      /apt-get install python3 python3-pytest/,
    );
  });
});

describe('exercism: references', () => {
  it.each([
    [
      'the whole benchmark',
      FIXTURES,
      [
        'cpp/binary-search-tree',
        'cpp/space-age',
        'go/bowling',
        'go/octal',
        'java/bowling',
        'java/resistor-color-trio',
        'java/series',
        'javascript/bowling',
        'javascript/space-age',
        'python/bowling',
        'python/transpose',
        'rust/acronym',
        'rust/bowling',
        'rust/gigasecond',
      ],
    ],
    ['one language', path.join(FIXTURES, 'python'), ['python/bowling', 'python/transpose']],
  ])('opens %s', async (_what, dir, ids) => {
    const parsed = parseDomainRef(`exercism:${dir}`);
    if (!parsed.ok) throw new Error(parsed.message);
    const opened = await openDomain(parsed.ref);
    if (!opened.ok) throw new Error(opened.message);
    const all = await Promise.all(opened.domain.splits.map((s) => opened.domain.load(s)));
    expect(
      all
        .flat()
        .map((t) => t.id)
        .sort(),
    ).toEqual(ids);
  });

  it('records visible tests in the name, description and metric of the domain', async () => {
    const parsed = parseDomainRef(`exercism:${path.join(FIXTURES, 'python')}?tests=visible`);
    if (!parsed.ok) throw new Error(parsed.message);
    const opened = await openDomain(parsed.ref);
    if (!opened.ok) throw new Error(opened.message);
    expect(opened.domain.name).toBe('python-tests-visible');
    expect(opened.domain.metric).toBe('all tests pass (tests visible)');
    expect(opened.domain.description).toMatch(/tests visible in the workspace/);
    const [task] = await opened.domain.load(opened.domain.splits[0]!);
    expect(Object.keys(task?.workspace?.files ?? {})).toContain('transpose_test.py');
  });
});
