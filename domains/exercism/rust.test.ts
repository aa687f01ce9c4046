import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createGradeContext } from '../../harness/evaluation/index.ts';
import { resolveSandbox } from '../../harness/process/index.ts';
import { countRustTests, rust } from './rust.ts';
import { gradeFolder, readExerciseFolder } from './testing/exercise-folder.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const exercise = (name: string) =>
  readExerciseFolder(
    path.join(here, '..', '..', 'test', 'fixtures', 'exercism', 'rust', 'exercises', 'practice', name),
  );

describe('reading libtest output', () => {
  const ok = (n: number) =>
    `running ${n} tests\ntest result: ok. ${n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n`;
  it.each([
    ['every binary passed', `${ok(0)}\n${ok(10)}`, { passed: 10, total: 10 }],
    [
      'a failure',
      'running 3 tests\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n',
      { passed: 2, total: 3 },
    ],
    [
      'a binary that crashed before its result',
      `${ok(2)}running 5 tests\ntest a ... ok\n`,
      { passed: 2, total: 7 },
    ],
    ['nothing ran (a compile error)', '', null],
  ])('%s', (_name, stdout, count) => {
    expect(countRustTests(stdout)).toEqual(count);
  });
});

describe('the rust exercise layout', () => {
  it('writes the example as the library, and keeps manifests and helper sources as support', () => {
    const { layout } = exercise('acronym');
    expect(rust.referenceTarget(layout, '.meta/example.rs')).toBe('src/lib.rs');
    expect(rust.referenceTarget(layout, '.meta/Cargo-example.toml')).toBe('Cargo.toml');
    expect(
      ['Cargo.toml', 'src/pre_implemented.rs', 'tests/invalid/comma-sep.rs'].every(rust.isSupportFile),
    ).toBe(true);
    expect(['tests/acronym.rs', '.meta/example.rs', 'README.md'].some(rust.isSupportFile)).toBe(false);
  });

  it('lifts every #[ignore] and leaves the tests otherwise as they were', () => {
    const { layout, files } = exercise('acronym');
    const test = files['tests/acronym.rs'] ?? '';
    const enabled = rust.enableAllTests({ 'tests/acronym.rs': test }, layout)['tests/acronym.rs'] ?? '';
    expect(test).toContain('#[ignore]');
    expect(enabled).not.toContain('#[ignore]');
    expect(enabled.match(/#\[test\]/g)).toHaveLength(10);
  });
});

const sandbox = resolveSandbox('bwrap');
const status = rust.toolchain();
describe.runIf(sandbox.kind === 'bwrap')('grading with cargo in the sandbox', () => {
  if (sandbox.kind !== 'bwrap') return;
  if (!status.ok)
    throw new Error(`these tests need ${status.missing}: apt-get install ${status.packages.join(' ')}`);
  const nodeModules = path.resolve(here, '..', '..', 'node_modules');
  const ctx = createGradeContext({ sandbox, nodeModules });

  it.each([
    ['acronym', 10],
    // Needs the `time` crate: from Debian's librust-time-dev, with no network.
    ['gigasecond', 5],
  ])(
    '%s: the reference passes all %i tests and the stub fails',
    async (name, tests) => {
      const folder = exercise(name);
      const reference = await gradeFolder(ctx, rust, folder, 'reference');
      expect(reference.result.stderr).not.toMatch(/error/);
      expect(reference).toMatchObject({ passed: true, count: { passed: tests, total: tests } });
      const stub = await gradeFolder(ctx, rust, folder, 'stub');
      expect(stub.passed).toBe(false);
      expect(stub.count).toEqual({ passed: 0, total: tests });
    },
    300_000,
  );

  it('grades a solution that does not compile as failed, with the compiler saying why', async () => {
    const grade = await gradeFolder(ctx, rust, exercise('acronym'), {
      'src/lib.rs': 'pub fn abbreviate(phrase: &str) -> String {\n    phrase.shout()\n}\n',
    });
    expect(grade.passed).toBe(false);
    expect(grade.result.exitCode).not.toBe(0);
    expect(grade.result.stderr).toMatch(/error\[E0599\]: no method named `shout`/);
  }, 300_000);
});
