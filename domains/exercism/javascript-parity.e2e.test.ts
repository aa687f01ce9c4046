import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createGradeContext } from '../../harness/evaluation/index.ts';
import { resolveSandbox } from '../../harness/process/index.ts';
import type { Grade } from '../define-domain.ts';
import { gradeExercise } from './exercism-domain.ts';
import { type ExerciseTask, readExercises } from './read.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Real exercises of Exercism's JavaScript and TypeScript tracks (MIT, see the LICENSE of each track folder),
 * one or more per way the tracks' CI runs them that the spec runner must match.
 */
const FIXTURES = path.join(root, 'test', 'fixtures', 'exercism-parity');
const sandbox = resolveSandbox('bwrap');
if (sandbox.kind !== 'bwrap') throw new Error('these tests need bubblewrap (apt-get install bubblewrap)');
const ctx = createGradeContext({ sandbox, nodeModules: path.join(root, 'node_modules') });

const { tasks, skipped } = readExercises(FIXTURES);
const taskOf = (id: string): ExerciseTask => {
  const task = tasks.find((t) => t.id === id);
  if (!task) throw new Error(`${id} not read`);
  return task;
};
const grade = (task: ExerciseTask, files = task.answer.reference): Promise<Grade> =>
  gradeExercise({ files }, task.answer, ctx);
const scoreOf = (g: Grade) => (typeof g === 'number' ? g : g.score);
const detailOf = (g: Grade) => (typeof g === 'number' ? '' : g.detail);

describe('JavaScript and TypeScript exercises graded as the tracks CI grades them', () => {
  it('reads practice and concept exercises (a concept exercise names its reference files.exemplar)', () => {
    expect(skipped).toEqual([]);
    expect(tasks.map((t) => t.id).sort()).toEqual([
      'javascript/error-handling',
      'javascript/fruit-picker',
      'javascript/lens-person',
      'javascript/lucky-numbers',
      'javascript/parallel-letter-frequency',
      'javascript/reverse-string',
      'javascript/word-search',
      'typescript/list-ops',
      'typescript/two-fer',
    ]);
    const lucky = taskOf('javascript/lucky-numbers');
    expect(Object.keys(lucky.answer.reference)).toEqual(['lucky-numbers.js']);
    // The concept's introduction is what teaches the learner; the TaskAgent is told it too.
    expect(lucky.input.instructions).toContain('# Introduction');
  });

  it('passes every reference', async () => {
    for (const task of tasks) {
      const g = await grade(task);
      expect([task.id, scoreOf(g), detailOf(g)]).toEqual([
        task.id,
        1,
        expect.stringMatching(/tests passed$/),
      ]);
    }
  }, 300_000);

  it('runs a CommonJS reference (module.exports) under a spec that imports it as an ES module', async () => {
    const task = taskOf('javascript/word-search');
    expect(task.answer.reference['word-search.js']).toContain('module.exports = WordSearch');
    expect(scoreOf(await grade(task))).toBe(1);
  }, 60_000);

  it('enables xtest but keeps test.skip skipped and uncounted', async () => {
    const task = taskOf('javascript/reverse-string');
    const spec = task.answer.tests['reverse-string.spec.js']!;
    const skippedTests = spec.match(/test\.skip\(/g)?.length ?? 0;
    const all = spec.match(/\b(x?test|test\.skip)\(/g)?.length ?? 0;
    expect(skippedTests).toBe(2);
    const g = await grade(task);
    expect(detailOf(g)).toBe(`${all - skippedTests}/${all - skippedTests} tests passed`);
    // An xtest still counts: a solution that passes only the first test fails.
    const first = { 'reverse-string.js': 'export const reverseString = () => "";\n' };
    expect(scoreOf(await grade(task, first))).toBe(0);
  }, 60_000);

  it("rewrites a reference's ../ imports to ./, as the CI copies it beside the tests", async () => {
    const task = taskOf('javascript/lens-person');
    expect(task.answer.reference['lens-person.js']).toContain("from './address'");
    expect(task.answer.reference['lens-person.js']).not.toContain("from '../");
    expect(scoreOf(await grade(task))).toBe(1);
  }, 60_000);

  it('matches a thrown error against expect.objectContaining', async () => {
    const task = taskOf('javascript/error-handling');
    expect(task.answer.tests['error-handling.spec.js']).toContain('toThrow(\n      expect.objectContaining');
    expect(scoreOf(await grade(task))).toBe(1);
    // The wrong error type does not match.
    const wrong = task.answer.reference['error-handling.js']!.replaceAll('TypeError', 'RangeError');
    expect(scoreOf(await grade(task, { 'error-handling.js': wrong }))).toBe(0);
  }, 60_000);

  it('mocks modules with jest.mock, called after the imports but applied before them, as babel-jest does', async () => {
    const task = taskOf('javascript/fruit-picker');
    expect(task.answer.tests['fruit-picker.spec.js']).toContain("jest.mock('./notifier'");
    const g = await grade(task);
    expect([scoreOf(g), detailOf(g)]).toEqual([1, '4/4 tests passed']);
    // The solution's own import of the notifier gets the mock: one that never notifies fails.
    const silent = task.answer.reference['fruit-picker.js']!.replace(/notify\(\{[^}]*\}\)/g, 'undefined');
    expect(silent).not.toBe(task.answer.reference['fruit-picker.js']);
    const failed = await grade(task, { 'fruit-picker.js': silent });
    expect([scoreOf(failed), detailOf(failed)]).toEqual([0, expect.stringMatching(/^2\/4 tests passed/)]);
  }, 60_000);

  it('runs a test that starts 50 worker threads within the memory and time limits', async () => {
    const task = taskOf('javascript/parallel-letter-frequency');
    expect(task.answer.tests['parallel-letter-frequency.spec.js']).toContain('Array(50)');
    expect(task.answer.reference['parallel-letter-frequency.js']).toContain('new Worker(__filename');
    const g = await grade(task);
    expect([scoreOf(g), detailOf(g)]).toEqual([1, '13/13 tests passed']);
  }, 60_000);

  it('runs matchers a spec adds with expect.extend', async () => {
    const task = taskOf('typescript/list-ops');
    expect(task.answer.tests['list-ops.test.ts']).toContain('expect.extend(');
    expect(scoreOf(await grade(task))).toBe(1);
  }, 120_000);

  it('fails a TypeScript solution with a type error, with the error in the log', async () => {
    const task = taskOf('typescript/two-fer');
    const reference = task.answer.reference['two-fer.ts']!;
    const typeError = `${reference}\nexport const count: number = 'two'\n`;
    const g = await grade(task, { ...task.answer.reference, 'two-fer.ts': typeError });
    expect(scoreOf(g)).toBe(0);
    expect(detailOf(g)).toContain('(type check)');
    expect(typeof g === 'number' ? '' : g.log).toMatch(/two-fer\.ts\(\d+,\d+\): error TS2322/);
  }, 120_000);
});
