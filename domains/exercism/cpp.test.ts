import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGradeContext } from '../../harness/evaluation/index.ts';
import { resolveSandbox } from '../../harness/process/index.ts';
import { cpp, createCpp } from './cpp.ts';
import { countCatchTests } from './cpp-report.ts';
import { gradeFolder, readExerciseFolder, supportFiles } from './testing/exercise-folder.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const exercise = (name: string) =>
  readExerciseFolder(
    path.join(here, '..', '..', 'test', 'fixtures', 'exercism', 'cpp', 'exercises', 'practice', name),
  );
const COMPILES_MAIN = /^Compiling test\/tests-main\.cpp$/m;

describe("reading Catch2's summary", () => {
  it.each([
    ['all passed', '====\nAll tests passed (50 assertions in 3 test cases)\n\n', { passed: 3, total: 3 }],
    ['one test case', 'All tests passed (1 assertion in 1 test case)\n', { passed: 1, total: 1 }],
    [
      'some failed',
      '====\ntest cases:  3 |  2 passed | 1 failed\nassertions: 50 | 49 passed | 1 failed\n',
      { passed: 2, total: 3 },
    ],
    ['all failed', 'test cases: 2 | 2 failed\nassertions: 2 | 2 failed\n', { passed: 0, total: 2 }],
    ['a crash before the summary', 'clock_test.cpp:10: FAILED:\n', null],
  ])('%s', (_name, stdout, count) => {
    expect(countCatchTests(stdout)).toEqual(count);
  });
});

describe('the C++ exercise layout', () => {
  it('writes the example files over the solution files of the same kind', () => {
    const { layout } = exercise('space-age');
    expect(cpp.referenceTarget(layout, '.meta/example.h')).toBe('space_age.h');
    expect(cpp.referenceTarget(layout, '.meta/example.cpp')).toBe('space_age.cpp');
    expect(['CMakeLists.txt', 'test/catch.hpp', 'test/tests-main.cpp'].every(cpp.isSupportFile)).toBe(true);
    expect(['space_age_test.cpp', '.meta/example.h'].some(cpp.isSupportFile)).toBe(false);
  });
});

const sandbox = resolveSandbox('bwrap');
const status = cpp.toolchain();
describe.runIf(sandbox.kind === 'bwrap')('grading with cmake and make in the sandbox', () => {
  if (sandbox.kind !== 'bwrap') return;
  if (!status.ok)
    throw new Error(`these tests need ${status.missing}: apt-get install ${status.packages.join(' ')}`);
  const ctx = createGradeContext({ sandbox, nodeModules: path.resolve(here, '..', '..', 'node_modules') });
  const caches: string[] = [];
  const freshCache = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'catch-cache-'));
    caches.push(dir);
    return dir;
  };
  const cached = createCpp({ catchCache: freshCache() });
  beforeAll(async () => {
    await cached.prepare?.(ctx, supportFiles(cached, exercise('space-age')));
  }, 600_000);
  afterAll(() => {
    for (const dir of caches) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['space-age', 9],
    // The reference is the header alone; the stub's .cpp stays.
    ['binary-search-tree', 12],
  ])(
    '%s: the reference passes all %i test cases and the stub fails, Catch main from the cache',
    async (name, tests) => {
      const folder = exercise(name);
      const reference = await gradeFolder(ctx, cached, folder, 'reference');
      expect(reference).toMatchObject({ passed: true, count: { passed: tests, total: tests } });
      expect(reference.result.stdout).not.toMatch(COMPILES_MAIN);
      const stub = await gradeFolder(ctx, cached, folder, 'stub');
      expect(stub.passed).toBe(false);
      expect(stub.result.exitCode).not.toBe(0);
    },
    300_000,
  );

  it('builds Catch main itself when the cache has no entry for these test files', async () => {
    const empty = createCpp({ catchCache: freshCache() });
    const grade = await gradeFolder(ctx, empty, exercise('space-age'), 'reference');
    expect(grade).toMatchObject({ passed: true, count: { passed: 9, total: 9 } });
    expect(grade.result.stdout).toMatch(COMPILES_MAIN);
  }, 300_000);

  it('keeps one cache entry per compiler and Catch version, read-only to grading', () => {
    const [dir] = caches;
    const versions = readdirSync(dir ?? '');
    expect(versions).toHaveLength(1);
    expect(readdirSync(path.join(dir ?? '', versions[0] ?? ''))).toEqual([
      expect.stringMatching(/^[0-9a-f]{16}-[0-9a-f]{16}$/),
    ]);
  });

  it('keeps the cache out of reach of the code it grades: a solution that writes into it changes nothing', async () => {
    const [dir = ''] = caches;
    const snapshot = () =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .sort()
        .map((rel) => {
          const file = path.join(dir, rel);
          try {
            return `${rel}:${readFileSync(file).toString('base64').slice(0, 64)}:${readFileSync(file).length}`;
          } catch {
            return `${rel}/`;
          }
        });
    const before = snapshot();
    expect(before.some((entry) => entry.includes('tests-main.o:'))).toBe(true);
    const folder = exercise('space-age');
    // Runs when the test binary starts: tries to replace every cached object and to plant a file.
    const attack = `
#include <cstdio>
#include <cstdlib>
static int planted = [] {
  std::system("for f in $(find ${dir} -type f); do printf x > \\"$f\\"; done; touch ${dir}/planted; mkdir ${dir}/more");
  std::FILE* f = std::fopen("${dir}/planted-too", "w");
  if (f) std::fclose(f);
  return 0;
}();
`;
    const grade = await gradeFolder(ctx, cached, folder, {
      'space_age.h': folder.files['.meta/example.h'] ?? '',
      'space_age.cpp': `${folder.files['.meta/example.cpp'] ?? ''}\n${attack}`,
    });
    expect(grade.passed).toBe(true);
    expect(snapshot()).toEqual(before);
  }, 300_000);

  it('grades a solution that does not compile as failed, with the compiler saying why', async () => {
    const folder = exercise('space-age');
    const grade = await gradeFolder(ctx, cached, folder, {
      'space_age.h': folder.files['.meta/example.h'] ?? '',
      'space_age.cpp': '#include "space_age.h"\nnamespace space_age { int broken = undeclared_name; }\n',
    });
    expect(grade.passed).toBe(false);
    expect(grade.result.exitCode).not.toBe(0);
    expect(grade.result.stdout + grade.result.stderr).toMatch(/'undeclared_name' was not declared/);
  }, 300_000);
});
