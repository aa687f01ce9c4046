import { describe, expect, it } from 'vitest';
import { python, pythonTestNames, readRunnerReport } from './python.ts';
import { commandResult } from './testing/command-result.ts';

const TESTS = `import unittest
from bowling import BowlingGame


class BowlingTest(unittest.TestCase):
    def roll_new_game(self, rolls):
        def test_nested():
            pass
        return rolls

    def test_all_zeros(self):
        self.assertEqual(0, 0)

    @unittest.expectedFailure
    def test_decorated(self):
        text = """
not a class
"""


class Helper:
    def test_not_a_test_class(self):
        pass


class TestPlain:
    async def test_async(self):
        pass


def test_function():
    pass
`;

describe('pythonTestNames', () => {
  it.each([
    [
      'the test methods of TestCase and Test… classes, and test functions',
      TESTS,
      [
        'b_test.py::BowlingTest::test_all_zeros',
        'b_test.py::BowlingTest::test_decorated',
        'b_test.py::TestPlain::test_async',
        'b_test.py::test_function',
      ],
    ],
    ['nothing from a file without tests', 'import io\n\nZEN = b"..."\n', []],
  ])('%s', (_, text, names) => {
    expect(pythonTestNames('b_test.py', text)).toEqual(names);
  });
});

const TOKEN = '0123456789abcdef0123456789abcdef';
const run = commandResult;
const line = (tests: string, tampering = '[]') => `${TOKEN} {"tests":${tests},"tampering":${tampering}}`;

describe('readRunnerReport', () => {
  it.each([
    ['no line with the token', 'collected 3 items\n3 passed in 0.01s\n', null],
    ['a line with another token', `${'f'.repeat(32)} {"tests":[],"tampering":[]}\n`, null],
    ['a line that is not the report', `${TOKEN} {"tests":1}\n`, null],
    [
      'the last line with the token',
      `${line('[{"name":"a","passed":true}]')}\n${line('[{"name":"a","passed":false,"message":"no"}]', '["x"]')}\n`,
      { tests: [{ name: 'a', passed: false, message: 'no' }], tampering: ['x'] },
    ],
  ])('%s', (_, stdout, report) => {
    expect(readRunnerReport(run(stdout), TOKEN)).toEqual(report);
  });
});

describe('python.isRunnerInput', () => {
  it.each([
    ['conftest.py', true],
    ['sub/conftest.py', true],
    ['pytest.ini', true],
    ['pytest.py', true],
    ['unittest/__init__.py', true],
    ['json.py', true],
    ['sitecustomize.py', true],
    ['x.pth', true],
    ['bowling.py', false],
    ['helpers.py', false],
    ['__pycache__/bowling.cpython-311.pyc', false],
    ['.pytest_cache/v/cache/lastfailed', false],
  ])('%s: %s', (rel, input) => {
    expect(python.isRunnerInput(rel)).toBe(input);
  });
});
