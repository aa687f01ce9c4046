import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { go } from './go.ts';
import { declaredData, goMod, imports, selected, testFunctions } from './go-source.ts';
import { commandResult } from './testing/command-result.ts';

const GO119 = { goMinor: 19, arch: 'amd64' };

describe('which test files a Go build selects', () => {
  it.each([
    ['robot_simulator_test.go', '//go:build step1 || (!step2 && !step3)\n\npackage robot\n', true],
    ['bonus_test.go', '//go:build bonus\n// +build bonus\n\npackage twobucket\n', false],
    ['x_test.go', '//go:build linux && amd64 && go1.18\n\npackage x\n', true],
    ['x_test.go', '//go:build go1.21\n\npackage x\n', false],
    ['x_test.go', '//go:build !cgo\n\npackage x\n', true],
    ['x_test.go', '// +build linux,!arm64 windows\n\npackage x\n', true],
    ['x_test.go', '// +build darwin\n\npackage x\n', false],
    ['x_windows_test.go', 'package x\n', false],
    ['x_linux_amd64_test.go', 'package x\n', true],
    ['x_arm64_test.go', 'package x\n', false],
    ['linux_test.go', 'package x\n', true],
    ['x_test.go', 'package x\n\n//go:build never\n', true],
  ])('%s, %j: %s', (rel, text, expected) => {
    expect(selected(rel, text, GO119)).toBe(expected);
  });
});

describe('what grading reads from the exercise', () => {
  it('lists the top-level test functions go test runs', () => {
    const text = [
      'func TestRoll(t *testing.T) {}',
      'func TestScore(tt *testing.T) {}',
      'func Testable(t *testing.T) {}',
      'func Test_x(t *testing.T) {}',
      'func BenchmarkScore(b *testing.B) {}',
      'func helper(t *testing.T) {}',
      '\tfunc TestIndented(t *testing.T) {}',
    ].join('\n');
    expect(testFunctions(text)).toEqual(['TestRoll', 'TestScore', 'Test_x']);
  });

  it("names the tests' variables and types, not their functions or constants", () => {
    const text = [
      'var rollTestCases = []struct{}{}',
      'var a, b int',
      'type testCase struct{}',
      'var (',
      '\tinput = 1',
      '\tc, d string',
      ')',
      'const expected = 2',
      'func Title(s string) string { return s }',
    ].join('\n');
    expect(declaredData(text)).toEqual(['rollTestCases', 'a', 'b', 'testCase', 'input', 'c', 'd']);
  });

  it('reads imports, the module and its Go version', () => {
    const text = 'package x\n\nimport "errors"\n\nimport (\n\t"fmt" // why\n\tsl "slices"\n)\n';
    expect(imports(text)).toEqual(['errors', 'fmt', 'slices']);
    expect(goMod('module bowling\n\ngo 1.18\n')).toEqual({ module: 'bowling', minor: 18 });
  });
});

describe("the Go grader's report", () => {
  const token = 'a'.repeat(32);
  const line = (json: string, key = token): string =>
    `\ngo-grading-report ${json} ${createHmac('sha256', key).update(json).digest('hex')}`;
  const run = commandResult;
  const done = line('{"done":true,"tampering":[]}');

  it('takes the lines the token signs', () => {
    const stdout = `=== RUN\n${line('{"test":"TestRoll","passed":true,"message":""}')}${line('{"test":"TestScore","passed":false,"message":"failed"}')}${done}\n`;
    expect(go.readReport(run(stdout, 1), token)).toEqual({
      tests: [
        { name: 'TestRoll', passed: true },
        { name: 'TestScore', passed: false, message: 'failed' },
      ],
      tampering: [],
    });
  });

  it('is tampering when a line is signed with another key, or the process exited 0 before the end', () => {
    const forged = line('{"test":"TestRoll","passed":true,"message":""}', 'b'.repeat(32));
    expect(go.readReport(run(forged + done), token)?.tampering).toEqual([
      '1 report line(s) the test harness did not write',
    ]);
    const cut = line('{"test":"TestRoll","passed":true,"message":""}');
    expect(go.readReport(run(cut), token)?.tampering).toEqual([
      'the test process exited with status 0 before the tests finished',
    ]);
    expect(go.readReport(run(cut, 2), token)?.tampering).toEqual([]);
  });

  it('puts a crash on the test that had started, with the panic Go printed', () => {
    const stdout = `${line('{"start":"TestRoll"}')}\n--- FAIL: TestRoll/x\n`;
    const result = {
      ...run(stdout, 2),
      stderr: 'panic: runtime error: index out of range [3] with length 0\n\ngoroutine 7\n',
    };
    expect(go.readReport(result, token)).toEqual({
      tests: [
        {
          name: 'TestRoll',
          passed: false,
          message: 'panic: runtime error: index out of range [3] with length 0',
        },
      ],
      tampering: [],
    });
  });

  it('has no report when no line came, and the refusal when the grading script refused the solution', () => {
    expect(go.readReport(run('PASS\nok  \tbowling\t0.01s\n'), token)).toBeNull();
    expect(go.readReport(run('go-grading-refused: the solution imports unsafe\n', 3), token)).toEqual({
      tests: [],
      tampering: ['the solution imports unsafe'],
    });
  });
});
