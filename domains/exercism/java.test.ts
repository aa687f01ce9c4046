import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createGradeContext } from '../../harness/evaluation/index.ts';
import { resolveSandbox } from '../../harness/process/index.ts';
import { countJUnitTests, java } from './java.ts';
import { javaTestNames, unmetJavaNeed } from './java-sources.ts';
import { commandResult } from './testing/command-result.ts';
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

describe("reading the runner's report", () => {
  const token = 'a1b2c3';
  const report = '{"tests":[{"name":"SeriesTest#emptySeries","passed":true}],"tampering":[]}';
  const result = commandResult;

  it('takes the last line that starts with the token', () => {
    expect(java.readReport(result(`noise\n${token} ${report}\n`), token)).toEqual({
      tests: [{ name: 'SeriesTest#emptySeries', passed: true }],
      tampering: [],
    });
  });

  it.each([
    ['no token line', `JUnit: 11 of 11 tests passed\n${report}\n`],
    ['another token', `ffff ${report}\n`],
    ['the token inside a line', `x ${token} ${report}\n`],
    ['a line cut short', `${token} {"tests":[{"name":"A#b","pa\n`],
  ])('finds none with %s', (_name, stdout) => {
    expect(java.readReport(result(stdout), token)).toBeNull();
  });

  it("counts the runner's summary line as a claim of success, for the detail", () => {
    expect(countJUnitTests('JUnit: 3 of 3 tests passed\n')).toEqual({ passed: 3, total: 3 });
  });
});

describe('the tests an exercise defines', () => {
  it('names each test method after its file, the way the runner reports it', () => {
    const test = `import org.junit.jupiter.api.Test;
public class BowlingTest {
    // @Test
    // public void commented() {}
    /* @Test public void alsoCommented() {} */
    @Test
    public void twelveStrikes() {}

    @Test @DisplayName("x") void packagePrivate() throws Exception {}

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    public void parameterized(int n) {}

    private void helper() {}
}
`;
    expect(javaTestNames({ 'src/test/java/BowlingTest.java': test, 'README.md': '@Test void x()' })).toEqual([
      'BowlingTest#packagePrivate',
      'BowlingTest#parameterized',
      'BowlingTest#twelveStrikes',
    ]);
  });

  it('finds every test of a fixture', () => {
    const { files } = exercise('series');
    const rel = 'src/test/java/SeriesTest.java';
    expect(javaTestNames({ [rel]: files[rel] ?? '' })).toHaveLength(11);
  });

  it.each([
    ['import io.reactivex.Observable;', /RxJava/],
    ['assertThat(grid).hasDimensions(3, 4);', /AssertJ 3\.25/],
  ])('refuses an exercise whose files use what Debian lacks: %s', (line, why) => {
    expect(unmetJavaNeed({ 'src/test/java/T.java': line }, true)).toMatch(why);
  });

  it('refuses org.json only when it is not installed', () => {
    const files = { 'src/main/java/RestApi.java': 'import org.json.JSONObject;\n' };
    expect(unmetJavaNeed(files, true)).toBeNull();
    expect(unmetJavaNeed(files, false)).toMatch(/libandroid-json-org-java/);
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

  it("refuses a solution in the framework's packages, and reads service registrations as runner input", () => {
    const refused = java.solutionText?.('src/main/java/Series.java', 'package org.assertj.core.api;\n', {});
    expect(refused).toEqual({ refused: expect.stringMatching(/org\.assertj\.core\.api/) });
    const kept = java.solutionText?.(
      'src/main/java/Series.java',
      'import org.junit.Test;\nclass Series {}\n',
      {},
    );
    expect(kept).toEqual({ text: 'import org.junit.Test;\nclass Series {}\n' });
    expect(
      [
        'src/main/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener',
        'src/main/java/org/assertj/core/api/Assertions.java',
        'src/test/java/Extra.java',
        'junit-platform.properties',
      ].every(java.isRunnerInput),
    ).toBe(true);
    expect(
      ['build/classes/Series.class', 'src/main/java/Helper.java', 'bin/x'].some(java.isRunnerInput),
    ).toBe(false);
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
