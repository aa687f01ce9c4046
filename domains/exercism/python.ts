import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { CommandResult } from '../grade-context.ts';
import type { ExercismLanguage, TestReport } from './language.ts';
import { toolchainStatus } from './toolchain.ts';

const PACKAGES = ['python3', 'python3-pytest'] as const;
/** The project's unittest runner for grading: mounted read-only, never in the working directory. */
const RUNNER_DIR = fileURLToPath(new URL('./python-runner/', import.meta.url));
const RUNNER = path.join(RUNNER_DIR, 'runner.py');

/**
 * Files that change how Python or pytest runs the tests when they sit beside them: pytest's configuration
 * and plugins, modules that shadow the test framework or the standard library the runner and the tests
 * import, and start-up hooks. The grading copy never holds them; an answer that writes one is refused.
 */
const RUNNER_INPUT = new RegExp(
  '(^|/)(conftest\\.py|pytest\\.ini|tox\\.ini|setup\\.cfg|pyproject\\.toml|[^/]*\\.pth|(site|user)customize\\.py' +
    '|(pytest|_pytest|unittest|builtins|sys|os|io|errno|json|random|inspect|traceback|contextlib|typing|collections' +
    '|functools|fractions|decimal|ctypes|gc|importlib|dis|types|abc|copy|re)(\\.py|/.*))$',
);

/**
 * The runner's report line: `<token> {"tests": [...], "tampering": [...]}`, written by the runner's audit
 * hook, which alone holds the token (read from standard input before any solution code ran).
 */
const Report = z.object({
  tests: z.array(z.object({ name: z.string(), passed: z.boolean(), message: z.string().optional() })),
  tampering: z.array(z.string()),
});

/**
 * Python exercises, graded by the project's unittest runner (python-runner/runner.py) on Debian's Python:
 * the tests' unittest classes run as pytest would run them, each test's outcome reported through the
 * token only the runner holds. The TaskAgent's own command when tests are visible is pytest.
 */
export const python: ExercismLanguage = {
  name: 'python',
  packages: PACKAGES,
  toolchain: () =>
    toolchainStatus(PACKAGES, [
      { what: '/usr/bin/python3', file: '/usr/bin/python3', args: ['--version'] },
      { what: 'pytest for /usr/bin/python3', file: '/usr/bin/python3', args: ['-c', 'import pytest'] },
    ]),
  referenceTarget: (layout, example) => {
    const at = layout.example.indexOf(example);
    return layout.solution[at] ?? path.posix.basename(example);
  },
  isSupportFile: (rel) => rel.endsWith('.py') && !/(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(rel),
  enableAllTests: (files) =>
    Object.fromEntries(
      Object.entries(files).map(([name, text]) => [
        name,
        text.replace(/^[ \t]*@(unittest\.skip|pytest\.mark\.skip)\b.*\n/gm, ''),
      ]),
    ),
  testCommand: 'python3 -m pytest -q',
  // -s: no user site; -P: not the runner's folder on sys.path; -B: no bytecode written.
  gradeCommand: (layout, token) => ({
    file: '/usr/bin/python3',
    args: ['-s', '-P', '-B', RUNNER, ...layout.test],
    env: { PYTHONHASHSEED: '0' },
    stdin: token,
    readOnly: [RUNNER_DIR],
  }),
  isRunnerInput: (rel) => RUNNER_INPUT.test(rel),
  expectedTests: (tests, layout) => layout.test.flatMap((file) => pythonTestNames(file, tests[file] ?? '')),
  readReport: (result, token) => readRunnerReport(result, token),
  claimsSuccess: (result) => {
    const count = countPytest(result);
    return (
      (count !== null && count.total > 0 && count.passed === count.total) || /^OK\b/m.test(result.stderr)
    );
  },
  limits: { timeoutMs: 120_000, memoryMb: 1024 },
};

/**
 * The tests a Python test file defines, as the runner names them: `file::Class::test_method` for each
 * `test…` method of a top-level class that derives from a TestCase or is named `Test…`, and
 * `file::test_function` for each top-level test function. Read from the source's layout (top-level
 * statements at column 0, methods one indentation level in), as the generated Exercism tests are written.
 */
export function pythonTestNames(file: string, text: string): string[] {
  const names: string[] = [];
  let testClass: string | null = null;
  let methodIndent: string | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '' || /^\s*#/.test(line)) continue;
    if (!/^\s/.test(line)) {
      const top = /^(class|(?:async\s+)?def)\s+(\w+)/.exec(line);
      const kind = top?.[1];
      const name = top?.[2] ?? '';
      testClass = kind === 'class' && (/TestCase\b/.test(line) || name.startsWith('Test')) ? name : null;
      methodIndent = null;
      if (kind !== undefined && kind !== 'class' && name.startsWith('test')) names.push(`${file}::${name}`);
      continue;
    }
    const def = testClass === null ? null : /^([ \t]+)(?:async\s+)?def\s+(\w+)\s*\(/.exec(line);
    if (def === null || def[1] === undefined || def[2] === undefined) continue;
    methodIndent ??= def[1];
    if (def[1] === methodIndent && def[2].startsWith('test')) names.push(`${file}::${testClass}::${def[2]}`);
  }
  return names;
}

/** The runner's report: the last stdout line that starts with the token, or null when none did. */
export function readRunnerReport(result: CommandResult, token: string): TestReport | null {
  const prefix = `${token} `;
  const line = result.stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(prefix));
  if (line === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.slice(prefix.length));
  } catch {
    return null;
  }
  const report = Report.safeParse(parsed);
  if (!report.success) return null;
  return {
    tests: report.data.tests.map((t) => ({
      name: t.name,
      passed: t.passed,
      ...(t.message !== undefined ? { message: t.message } : {}),
    })),
    tampering: report.data.tampering,
  };
}

/** Pass and fail counts of a pytest summary line in the output (what a solution might print to fake one). */
function countPytest(result: CommandResult): { passed: number; total: number } | null {
  const summary = result.stdout
    .split('\n')
    .reverse()
    .find((line) => /\b(passed|failed|error|errors|no tests ran)\b.* in [\d.]+s/.test(line));
  if (summary === undefined) return null;
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary)?.[1] ?? 0);
  const passed = count('passed');
  return { passed, total: passed + count('failed') + count('errors?') + count('skipped') };
}
