import { describe, expect, it } from 'vitest';
import { isTampered } from '../../system/grade-marks.ts';
import type { CommandResult } from '../grade-context.ts';
import { gradingCopy, judgeRun } from './grade.ts';
import type { ExercismLanguage, TestReport } from './language.ts';
import type { ExerciseAnswer } from './read.ts';
import { commandResult } from './testing/command-result.ts';

/** A language whose runner reads `runner.cfg` and `*_test.x`, and whose report is a JSON line after the token. */
const language = {
  name: 'python',
  isRunnerInput: (rel: string) => rel === 'runner.cfg' || rel.endsWith('_test.x'),
  readReport: (result: CommandResult, token: string): TestReport | null => {
    const line = result.stdout.split('\n').find((l) => l.startsWith(`${token} `));
    return line === undefined ? null : (JSON.parse(line.slice(token.length + 1)) as TestReport);
  },
  claimsSuccess: (result: CommandResult) => result.stdout.includes('ALL PASSED'),
} as unknown as ExercismLanguage;

const answer: ExerciseAnswer = {
  language: 'python',
  layout: { name: 'leap', solution: ['leap.x'], test: ['leap_test.x'], example: ['.meta/example.x'] },
  tests: { 'leap_test.x': 'the tests' },
  reference: { 'leap.x': 'the reference' },
  support: { 'runner.cfg': 'the configuration', 'lib/given.x': 'a given module' },
};

const run = commandResult;
const limits = { timeoutMs: 1000, memoryMb: 100 };
const report = (tests: TestReport['tests'], tampering: string[] = []) =>
  `T ${JSON.stringify({ tests, tampering })}\n`;
const detailOf = (grade: ReturnType<typeof judgeRun>) => (typeof grade === 'number' ? '' : grade.detail);

describe('the grading copy of an answer', () => {
  it('takes the solution from the answer and every other file the runner reads from the exercise', () => {
    const copy = gradingCopy(
      { files: { 'leap.x': 'my solution', 'runner.cfg': 'the configuration', 'notes.md': 'my notes' } },
      answer,
      language,
    );
    expect(copy.files).toEqual({
      'leap.x': 'my solution',
      'runner.cfg': 'the configuration',
      'lib/given.x': 'a given module',
      'leap_test.x': 'the tests',
    });
    expect(copy).toMatchObject({ refused: [], leftOut: ['notes.md'] });
  });

  it('refuses a changed support file, a visible test changed, and a new file the runner reads', () => {
    const files = {
      'leap.x': 'x',
      'runner.cfg': 'pass everything',
      'lib/given.x': 'a given module',
      'extra_test.x': 'a test that passes',
    };
    expect(gradingCopy({ files }, answer, language).refused).toEqual(['extra_test.x', 'runner.cfg']);
    const visible = { ...answer, testsVisible: true as const };
    expect(gradingCopy({ files: { 'leap_test.x': 'fewer tests' } }, visible, language).refused).toEqual([
      'leap_test.x',
    ]);
  });

  it('leaves out a file at a hidden test path: the TaskAgent never saw the hidden one', () => {
    const copy = gradingCopy({ files: { 'leap_test.x': 'my own tests' } }, answer, language);
    expect(copy).toMatchObject({ refused: [], leftOut: ['leap_test.x'] });
    expect(copy.files['leap_test.x']).toBe('the tests');
  });

  it('grades a missing solution file as empty', () => {
    expect(gradingCopy({ files: {} }, answer, language).files['leap.x']).toBe('');
  });

  it("refuses a solution file whose text the language will not take, with the language's reason", () => {
    const strict = { ...language, solutionText: () => ({ refused: 'it names a build script' }) };
    expect(gradingCopy({ files: { 'leap.x': 'x' } }, answer, strict).refusedText).toEqual([
      'leap.x: it names a build script',
    ]);
  });
});

describe("judging a run by the runner's own report", () => {
  const expected = ['a', 'b'];
  const judge = (stdout: string, exitCode: number | null = 0) =>
    judgeRun(language, run(stdout, exitCode), limits, expected, 'T');

  it('passes only when every expected test is reported passed and the runner exited 0', () => {
    const all = report([
      { name: 'a', passed: true },
      { name: 'b', passed: true },
    ]);
    expect(judge(all)).toMatchObject({ score: 1, detail: '2/2 tests passed' });
    expect(judge(all, 1)).toMatchObject({ score: 0, detail: '2/2 tests passed; exit 1' });
  });

  it('fails a test that never ran, naming it', () => {
    const grade = judge(report([{ name: 'a', passed: true }]));
    expect(grade).toMatchObject({ score: 0, detail: '1/2 tests passed; 1 never ran (b)' });
    expect(isTampered(detailOf(grade))).toBe(false);
  });

  it('names the first failure with its message', () => {
    const grade = judge(
      report([
        { name: 'a', passed: true },
        { name: 'b', passed: false, message: 'expected 2, got 3' },
      ]),
    );
    expect(grade).toMatchObject({ score: 0, detail: '1/2 tests passed; b: expected 2, got 3' });
  });

  it('never passes on exit status 0 alone or on a summary in the shared output: that is tampering', () => {
    const grade = judge('ALL PASSED\n');
    expect(grade).toMatchObject({ score: 0 });
    expect(detailOf(grade)).toMatch(
      /exited with status 0 before the test runner reported.*claims they passed/,
    );
    expect(isTampered(detailOf(grade))).toBe(true);
    // A report under another token is the solution's own.
    const forged = report([
      { name: 'a', passed: true },
      { name: 'b', passed: true },
    ]).replace(/^T /, 'X ');
    expect(isTampered(detailOf(judge(forged)))).toBe(true);
  });

  it('fails a run that did not start the tests, without a flag', () => {
    const grade = judge('error: does not compile\n', 2);
    expect(grade).toMatchObject({
      score: 0,
      detail: 'the tests did not run (exit 2): error: does not compile',
    });
    expect(isTampered(detailOf(grade))).toBe(false);
  });

  it('fails a report that saw the framework changed, as tampering', () => {
    const grade = judge(report([{ name: 'a', passed: true }], ['assertEqual was replaced']));
    expect(detailOf(grade)).toMatch(/changed the test framework: assertEqual was replaced/);
    expect(isTampered(detailOf(grade))).toBe(true);
  });

  it('without expected tests, needs at least one reported test and all of them passed', () => {
    const none = judgeRun(language, run(report([])), limits, [], 'T');
    expect(none).toMatchObject({ score: 0, detail: '0/0 tests passed' });
    const one = judgeRun(language, run(report([{ name: 'x', passed: true }])), limits, [], 'T');
    expect(one).toMatchObject({ score: 1 });
  });
});
