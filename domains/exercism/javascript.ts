import path from 'node:path';
import type { CommandResult } from '../grade-context.ts';
import { runSpec } from '../spec-grader.ts';
import { RESULT_MARK, readSpecReport } from '../spec-runner/protocol.ts';
import { specTestNames } from '../spec-tests.ts';
import type { ExerciseLayout, ExercismLanguage } from './language.ts';

const SOURCE = /\.(m?[jt]s|json)$/;
const TOOL_CONFIG = /(^|\/)(package\.json|(babel|jest|eslint)\.config\.[^/]*|tsconfig[^/]*|jsconfig[^/]*)$/;
/** tstyche's type tests, which need tstyche: kept in the folder but never the spec that runs. */
const TYPE_TEST = /\.tst\.[jt]sx?$/;

/** The spec the runner runs: the first test file that is not a type test. */
const specOf = (layout: ExerciseLayout): string =>
  layout.test.find((f) => !TYPE_TEST.test(f)) ?? layout.test[0]!;

/**
 * JavaScript or TypeScript exercises, graded by the project's own spec runner (a Jest-compatible subset
 * run on the Node that runs the project) the way the tracks' CI runs them: `xtest` enabled, `.skip` kept
 * skipped, CommonJS where the files use it, and for TypeScript a type check first. No package is needed.
 */
function specLanguage(name: 'javascript' | 'typescript'): ExercismLanguage {
  return {
    name,
    packages: [],
    toolchain: () => ({ ok: true }),
    referenceTarget: (layout: ExerciseLayout, example: string) => {
      const at = layout.example.indexOf(example);
      return layout.solution[at] ?? path.posix.basename(example).replace(/^proof\.ci\./, `${layout.name}.`);
    },
    // The tracks' CI copies `.meta/` references beside the tests with `from '../` made `from './`.
    referenceText: (text) => text.replaceAll("from '../", "from './"),
    // TypeScript's compiler options are the exercise's own tsconfig.json, as its type check reads them.
    // `data/` holds files the tests read (grep's texts), which the tracks' CI copies too.
    isSupportFile: (rel) =>
      (SOURCE.test(rel) && !TOOL_CONFIG.test(rel)) ||
      rel.startsWith('data/') ||
      (name === 'typescript' && rel === 'tsconfig.json'),
    enableAllTests: (files) => files,
    // The spec runner lives in the project, not in the workspace: no command runs the tests there.
    testCommand: '',
    gradeCommand: () => {
      throw new Error('JavaScript and TypeScript exercises are graded by grade(), through the spec runner');
    },
    // The runner's own files are the project's; in the folder, these would change how the spec runs.
    isRunnerInput: (rel) =>
      TOOL_CONFIG.test(rel) ||
      /(^|\/)(node_modules\/.*|\.babelrc.*|[^/]*\.(spec|test)\.[cm]?[jt]s)$/.test(rel),
    // The spec's tests by the names the runner reports; none when they are only known at run time (names
    // computed in a loop), and then the report's own tests must all pass.
    expectedTests: (tests, layout) => {
      const specFile = specOf(layout);
      const spec = tests[specFile];
      return spec === undefined ? [] : (specTestNames(specFile, spec) ?? []);
    },
    readReport: (result, token) => readSpecReport(result.stdout, token),
    claimsSuccess: (result: CommandResult) => result.stdout.includes(RESULT_MARK),
    // Each test has 10 s (see the runner); the whole spec 180 s, as some references take minutes in all
    // (the TypeScript track's palindrome-products passes 13 tests in about 80 s on a quiet machine).
    limits: { timeoutMs: 180_000, memoryMb: 512 },
    async run(ctx, files, layout, limits, token) {
      const solutionFile = layout.solution[0]!;
      const specFile = specOf(layout);
      const { [solutionFile]: solution = '', [specFile]: spec = '', ...support } = files;
      const { result } = await runSpec(
        ctx,
        { solutionFile, solution, specFile, spec, support, typecheck: name === 'typescript' },
        limits,
        token,
      );
      return result;
    },
  };
}

export const javascript = specLanguage('javascript');
export const typescript = specLanguage('typescript');
