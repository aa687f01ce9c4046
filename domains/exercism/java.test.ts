import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createGradeContext } from '../../harness/evaluation/index.ts';
import { resolveSandbox } from '../../harness/process/index.ts';
import { countJUnitTests, java } from './java.ts';
import { gradeFolder, readExerciseFolder } from './testing/exercise-folder.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const exercise = (name: string) =>
  readExerciseFolder(
    path.join(here, '..', '..', 'test', 'fixtures', 'exercism', 'java', 'exercises', 'practice', name),
  );

const summary = (found: number, successful: number) =>
  `Test run finished after 120 ms\n[         2 containers found      ]\n[        ${found} tests found           ]\n[         0 tests skipped         ]\n[        ${successful} tests successful      ]\n[         ${found - successful} tests failed          ]\n`;

describe("reading the JUnit console launcher's summary", () => {
  it.each([
    ['all passed', summary(11, 11), { passed: 11, total: 11 }],
    ['some failed', summary(11, 4), { passed: 4, total: 11 }],
    ['no summary (javac failed)', 'Series.java:3: error: cannot find symbol\n', null],
  ])('%s', (_name, stdout, count) => {
    expect(countJUnitTests(stdout)).toEqual(count);
  });
});

describe('the Java exercise layout', () => {
  it('writes the reference into src/main/java and keeps the build file and given classes as support', () => {
    const { layout } = exercise('series');
    expect(java.referenceTarget(layout, '.meta/src/reference/java/Series.java')).toBe(
      'src/main/java/Series.java',
    );
    expect(['build.gradle', 'src/main/java/Record.java'].every(java.isSupportFile)).toBe(true);
    expect(['src/test/java/SeriesTest.java', 'gradlew', '.meta/config.json'].some(java.isSupportFile)).toBe(
      false,
    );
  });

  it('drops every @Disabled and its import, and nothing else', () => {
    const { layout, files } = exercise('series');
    const rel = 'src/test/java/SeriesTest.java';
    const test = files[rel] ?? '';
    const enabled = java.enableAllTests({ [rel]: test }, layout)[rel] ?? '';
    expect(test).toContain('@Disabled("Remove to run test")');
    expect(enabled).not.toContain('Disabled');
    expect(enabled.match(/@Test/g)).toHaveLength(11);
    expect(java.enableAllTests({ 'A.java': '@DisabledOnOs(WINDOWS)\n' }, layout)['A.java']).toBe(
      '@DisabledOnOs(WINDOWS)\n',
    );
  });
});

const sandbox = resolveSandbox('bwrap');
const status = java.toolchain();
describe.runIf(sandbox.kind === 'bwrap')('grading with javac and JUnit in the sandbox', () => {
  if (sandbox.kind !== 'bwrap') return;
  if (!status.ok)
    throw new Error(`these tests need ${status.missing}: apt-get install ${status.packages.join(' ')}`);
  const ctx = createGradeContext({ sandbox, nodeModules: path.resolve(here, '..', '..', 'node_modules') });

  it.each([
    ['series', 11],
    ['resistor-color-trio', 10],
  ])(
    '%s: the reference passes all %i tests and the stub fails',
    async (name, tests) => {
      const folder = exercise(name);
      const reference = await gradeFolder(ctx, java, folder, 'reference', {
        timeoutMs: 120_000,
        memoryMb: 1024,
      });
      expect(reference).toMatchObject({ passed: true, count: { passed: tests, total: tests } });
      const stub = await gradeFolder(ctx, java, folder, 'stub', { timeoutMs: 120_000, memoryMb: 1024 });
      expect(stub).toMatchObject({ passed: false, count: { passed: 0, total: tests } });
    },
    240_000,
  );

  it('grades a solution that does not compile as failed, with the compiler saying why', async () => {
    const grade = await gradeFolder(ctx, java, exercise('series'), {
      'src/main/java/Series.java': 'class Series {\n  Series(String s) { undefinedCall(); }\n}\n',
    });
    expect(grade.passed).toBe(false);
    expect(grade.count).toBeNull();
    expect(grade.result.stderr).toMatch(/error: cannot find symbol/);
  }, 240_000);
});
