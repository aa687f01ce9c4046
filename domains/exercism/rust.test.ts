import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createGradeContext } from '../../harness/evaluation/index.ts';
import { resolveSandbox } from '../../harness/process/index.ts';
import { gradeExercise } from './grade.ts';
import { readExercises } from './read.ts';
import { rust } from './rust.ts';
import { readExerciseFolder } from './testing/exercise-folder.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', '..', 'test', 'fixtures', 'exercism', 'rust');
const exercise = (name: string) => readExerciseFolder(path.join(fixtures, 'exercises', 'practice', name));

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
  const task = (name: string) => {
    const found = readExercises(fixtures).tasks.find((t) => t.id === `rust/${name}`);
    if (found === undefined) throw new Error(`rust/${name} is not among the fixtures`);
    return found;
  };
  const grade = (name: string, files: Record<string, string>) => {
    const t = task(name);
    return gradeExercise({ files: { ...t.workspace!.files, ...files } }, t.answer, ctx);
  };

  it.each([
    ['acronym', 10],
    // Needs the `time` crate: from Debian's librust-time-dev, with no network.
    ['gigasecond', 5],
  ])(
    '%s: the reference passes all %i tests and the stub fails',
    async (name, tests) => {
      expect(await grade(name, task(name).answer.reference)).toEqual({
        score: 1,
        detail: `${tests}/${tests} tests passed`,
        log: expect.any(String),
      });
      expect(await grade(name, {})).toMatchObject({
        score: 0,
        detail: expect.stringMatching(`^0/${tests} tests passed`),
      });
    },
    300_000,
  );

  it('grades a solution that does not compile as failed, with the compiler saying why', async () => {
    const grade = await gradeExercise(
      {
        files: {
          ...task('acronym').workspace!.files,
          'src/lib.rs': 'pub fn abbreviate(phrase: &str) -> String {\n    phrase.shout()\n}\n',
        },
      },
      task('acronym').answer,
      ctx,
    );
    expect(grade).toMatchObject({
      score: 0,
      detail: expect.stringMatching(/^the tests did not run \(exit 101\)/),
    });
    expect(typeof grade === 'object' && grade.log).toMatch(/error\[E0599\]: no method named `shout`/);
  }, 300_000);
});
