import path from 'node:path';
import type { CommandResult } from '../grade-context.ts';
import { type ExercismLanguage, reportFromCounts } from './language.ts';
import { toolchainStatus } from './toolchain.ts';

const PACKAGES = ['python3', 'python3-pytest'] as const;

/** Python exercises, graded by Debian's pytest (`python3 -m pytest`); unittest-style tests run as they are. */
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
  gradeCommand: () => ({
    file: '/usr/bin/python3',
    args: ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--color=no', '-o', 'addopts='],
    env: { PYTHONDONTWRITEBYTECODE: '1', PYTHONHASHSEED: '0' },
  }),
  isRunnerInput: (rel) =>
    /(^|\/)(conftest\.py|pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|[^/]*\.pth|(site|user)customize\.py|pytest\.py|unittest(\.py|\/.*))$/.test(
      rel,
    ),
  expectedTests: () => [],
  readReport: (result) => reportFromCounts(countPytest(result)),
  claimsSuccess: (result) => {
    const count = countPytest(result);
    return count !== null && count.total > 0 && count.passed === count.total;
  },
  limits: { timeoutMs: 120_000, memoryMb: 1024 },
};

function countPytest(result: CommandResult): { passed: number; total: number } | null {
  {
    const summary = result.stdout
      .split('\n')
      .reverse()
      .find((line) => /\b(passed|failed|error|errors|no tests ran)\b.* in [\d.]+s/.test(line));
    if (summary === undefined) return null;
    const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary)?.[1] ?? 0);
    const passed = count('passed');
    return { passed, total: passed + count('failed') + count('errors?') + count('skipped') };
  }
}
