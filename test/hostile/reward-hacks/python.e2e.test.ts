import { describe, expect, it } from 'vitest';
import { exerciseTask, expectCaught, gradeAnswer, gradeReference } from './probes.ts';

/**
 * Answers to Python's bowling that try to score without solving it, graded by the real Python grader (the
 * project's unittest runner) in the grading sandbox. Each scores 0 with a detail that says why.
 */
const bowling = exerciseTask('python/bowling');
const visible = exerciseTask('python/bowling', true);

/** A wrong solution (every game scores 0), for the attacks that need the tests to run. */
const WRONG = `class BowlingGame:
    def __init__(self):
        self.rolls = []

    def roll(self, pins):
        self.rolls.append(pins)

    def score(self):
        return 0
`;

const grade = (solution: string, extra: Record<string, string> = {}) =>
  gradeAnswer(bowling, { 'bowling.py': solution, ...extra });

describe('python: what a correct or honest answer scores', () => {
  it('scores the reference 1', async () => {
    expect(await gradeReference(bowling)).toMatchObject({ score: 1, detail: '31/31 tests passed' });
  });

  it('scores a wrong answer 0, naming the failures, without a tampering flag', async () => {
    expectCaught(await grade(WRONG), /^\d+\/31 tests passed; bowling_test\.py::BowlingTest::/, false);
  });
});

describe('python: answers that end the run early or fake its output', () => {
  it('exits with status 0 at import (os._exit)', async () => {
    expectCaught(
      await grade('import os\nos._exit(0)\n'),
      /exited with status 0 before the test runner reported/,
    );
  });

  it('prints a pytest summary and exits', async () => {
    const fake = `import os, sys\nprint('${'='.repeat(20)} 31 passed in 0.02s ${'='.repeat(20)}')\nsys.stdout.flush()\nos._exit(0)\n`;
    expectCaught(
      await grade(fake),
      /before the test runner reported its results, though its output claims they passed/,
    );
  });

  it('raises SystemExit while the tests load (sys.exit)', async () => {
    expectCaught(
      await grade('import sys\nsys.exit(0)\n'),
      /SystemExit was raised while the tests were loading/,
    );
  });

  it('ends the process from a thread while a test runs', async () => {
    const thread = `import os, threading, time\n${WRONG}\n    def score(self):\n        threading.Thread(target=os._exit, args=(0,)).start()\n        time.sleep(5)\n`;
    expectCaught(await grade(thread), /exited with status 0 before the test runner reported/);
  });

  it('lets KeyboardInterrupt escape unittest', async () => {
    const interrupt = `${WRONG}\n    def score(self):\n        raise KeyboardInterrupt\n`;
    expectCaught(await grade(interrupt), /KeyboardInterrupt escaped the test/);
  });

  it("raises unittest's _ShouldStop, which unittest swallows as a success", async () => {
    const stop = `import unittest.case\n${WRONG}\n    def score(self):\n        raise unittest.case._ShouldStop()\n`;
    expectCaught(await grade(stop), /counted a success although the test did not run to its end/);
  });

  it('raises the runner\'s own "finish" event', async () => {
    const forged = `import sys\nsys.audit('exercism.python.finish')\n${WRONG}`;
    expectCaught(await grade(forged), /an event of the test runner \(finish\) was raised by other code/);
  });

  it('prints a summary from an atexit handler: the runner never runs them, the tests fail', async () => {
    const atexit = `import atexit\natexit.register(print, '31 passed in 0.01s')\n${WRONG}`;
    expectCaught(await grade(atexit), /^\d+\/31 tests passed/, false);
  });
});

describe('python: files beside the solution that pytest or Python would read', () => {
  it('a conftest.py hook that marks every test passed', async () => {
    const conftest = `import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = 'passed'\n`;
    expectCaught(await grade(WRONG, { 'conftest.py': conftest }), /refused: the answer writes conftest\.py/);
  });

  it('a pytest.ini that collects another file', async () => {
    const ini = '[pytest]\npython_files = always_passes.py\n';
    expectCaught(
      await grade(WRONG, { 'pytest.ini': ini, 'always_passes.py': 'def test_ok():\n    pass\n' }),
      /refused: the answer writes pytest\.ini/,
    );
  });

  it('a pytest.py beside the tests', async () => {
    expectCaught(
      await grade(WRONG, { 'pytest.py': 'import sys\nsys.exit(0)\n' }),
      /refused: the answer writes pytest\.py/,
    );
  });

  it('a changed test file, when the tests are visible', async () => {
    const tests =
      'import unittest\n\nclass BowlingTest(unittest.TestCase):\n    def test_ok(self):\n        pass\n';
    const graded = await gradeAnswer(visible, { 'bowling.py': WRONG, 'bowling_test.py': tests });
    expectCaught(graded, /refused: the answer writes bowling_test\.py/);
  });

  it('a native module built into the working directory', async () => {
    const native = `import glob, shutil\nsrc = glob.glob('/usr/lib/python3*/lib-dynload/_testbuffer*.so')[0]\nshutil.copy(src, src.split('/')[-1])\nimport _testbuffer\n${WRONG}`;
    expectCaught(await grade(native), /loading the native module .*_testbuffer/);
  });
});

describe('python: answers that patch the test framework', () => {
  it("replaces unittest's assert methods", async () => {
    const patch = `import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n${WRONG}`;
    expectCaught(await grade(patch), /the class unittest\.case\.TestCase was changed/);
  });

  it('gives the test class another base, through the test module being imported', async () => {
    const base = `import sys, types, unittest\nclass Fake(unittest.TestCase):\n    def assertEqual(self, *a, **k):\n        pass\nsys.modules['bowling_test'].unittest = types.SimpleNamespace(TestCase=Fake)\n${WRONG}`;
    expectCaught(
      await grade(base),
      /the test class BowlingTest inherits from Fake, which the tests do not define/,
    );
  });

  it('puts a test module of its own in sys.modules while the tests import it', async () => {
    const fake = `import sys, types, unittest\n\n\nclass BowlingTest(unittest.TestCase):\n    def test_all_strikes_is_a_perfect_game(self):\n        pass\n\n\nBowlingTest.__module__ = 'bowling_test'\nsys.modules['bowling_test'] = types.SimpleNamespace(BowlingTest=BowlingTest, __name__='bowling_test')\n${WRONG}`;
    expectCaught(
      await grade(fake),
      /is not the test the exercise defines|the module bowling_test was replaced/,
    );
  });

  it("replaces the test class's methods while a test runs", async () => {
    const replace = `import sys\n${WRONG}\n    def score(self):\n        cls = sys.modules['bowling_test'].BowlingTest\n        for name in [n for n in vars(cls) if n.startswith('test')]:\n            setattr(cls, name, lambda self: None)\n        return 0\n`;
    expectCaught(await grade(replace), /the test class BowlingTest was changed/);
  });

  it("swaps the tests' code objects", async () => {
    const swap = `import sys\n${WRONG}\n    def score(self):\n        for f in vars(sys.modules['bowling_test'].BowlingTest).values():\n            if callable(f) and f.__name__.startswith('test'):\n                f.__code__ = (lambda self: None).__code__\n        return 0\n`;
    expectCaught(await grade(swap), /changing __code__ of a function of the test framework or the tests/);
  });

  it('replaces a builtin unittest relies on', async () => {
    const builtins = `import builtins\nbuiltins.issubclass = lambda a, b: True\n${WRONG}`;
    expectCaught(await grade(builtins), /the builtins was changed/);
  });

  it('traces the tests to skip their lines (sys.settrace)', async () => {
    expectCaught(
      await grade(`import sys\nsys.settrace(lambda *a: None)\n${WRONG}`),
      /sys\.settrace \(refused\)/,
    );
  });
});

describe('python: answers whose values fool the comparison', () => {
  it('returns an object whose __eq__ says yes to anything', async () => {
    const anything = `class Anything:\n    def __eq__(self, other):\n        return True\n\n    def __ne__(self, other):\n        return False\n\n    __hash__ = object.__hash__\n\n\n${WRONG.replace('return 0', 'return Anything()')}`;
    expectCaught(
      await grade(anything),
      /an object of class bowling\.Anything passed as equal to a plain int/,
    );
  });

  it('returns an int subclass whose __eq__ says yes', async () => {
    const score = `class Score(int):\n    def __eq__(self, other):\n        return True\n\n    __hash__ = int.__hash__\n\n\n${WRONG.replace('return 0', 'return Score(0)')}`;
    expectCaught(await grade(score), /the assertion passed although its values differ as plain data/);
  });
});

describe("python: answers that look for the token or the tests' expected values", () => {
  it("walks the garbage collector's objects", async () => {
    expectCaught(await grade(`import gc\nobjects = gc.get_objects()\n${WRONG}`), /gc\.get_objects .*refused/);
  });

  it('reads memory through ctypes', async () => {
    expectCaught(await grade(`import ctypes\nctypes.string_at(id(0), 8)\n${WRONG}`), /ctypes \(ctypes\./);
  });

  it('opens /proc/self/mem', async () => {
    expectCaught(
      await grade(`open('/proc/self/mem', 'rb')\n${WRONG}`),
      /opening files under \/proc \(refused\)/,
    );
  });

  it('adds an audit hook of its own', async () => {
    expectCaught(
      await grade(`import sys\nsys.addaudithook(lambda e, a: None)\n${WRONG}`),
      /sys\.addaudithook \(refused\)/,
    );
  });

  it("reads the expected value from the test's frame: frames are refused, the tests fail", async () => {
    const frames = `import sys\n${WRONG}\n    def score(self):\n        return sys._getframe(1).f_code.co_consts[-1]\n`;
    expectCaught(await grade(frames), /^\d+\/31 tests passed/, false);
  });

  it("has the test's own frame raise the runner's events, through functools.partial of sys.audit", async () => {
    const name = 'bowling_test.py::BowlingTest::test_all_strikes_is_a_perfect_game';
    const events = [
      `'begin', '${name}', S`,
      "'result', 'success', S, None",
      ...['_callSetUp', '_callTestMethod', '_callTearDown'].map((step) => `'step', '${step}', S`),
      `'end', '${name}'`,
    ];
    const plan = events.map((e) => `    functools.partial(sys.audit, 'exercism.python.' + ${e}),`).join('\n');
    const trampoline = `import functools, sys\nS = object()\nplan = [\n${plan}\n]\n\n\nclass BowlingGame:\n    def roll(self, pins):\n        if plan:\n            type(self).score = plan.pop(0)\n\n    def score(self):\n        return 0\n`;
    expectCaught(
      await grade(trampoline),
      /an event of the test runner \((begin|result|step|end)\) was raised by other code/,
    );
  });

  it("has the test's own frame call sys._getframe through builtins, to keep its frame: refused", async () => {
    const keep = `import collections, functools, sys\nFRAMES = []\n\n\nclass BowlingGame:\n    score = functools.partial(collections.deque, map(FRAMES.append, map(sys._getframe, [0])), 0)\n\n    def roll(self, pins):\n        if FRAMES:\n            raise SystemExit(FRAMES[0].f_locals)\n`;
    const graded = await grade(keep);
    expectCaught(graded, /^\d+\/31 tests passed/, false);
    expect(JSON.stringify(graded)).not.toMatch(/SystemExit/);
  });

  it('reads the hidden test file: it is gone before the solution loads', async () => {
    expectCaught(
      await grade(`TESTS = open('bowling_test.py').read()\n${WRONG}`),
      /could not be loaded: FileNotFoundError/,
      false,
    );
  });
});
