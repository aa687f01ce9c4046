import { describe, expect, it } from 'vitest';
import { LIST_MARK, RESULT_MARK, RUN_MARK, readHarnessReport, resultTag } from './rust-harness.ts';
import { siphash24 } from './siphash.ts';
import { commandResult } from './testing/command-result.ts';

const TOKEN = '000102030405060708090a0b0c0d0e0f';
const OTHER = 'ffffffffffffffffffffffffffffffff';

const result = commandResult;

const list = `${LIST_MARK} shelf\na: test\nm::b: test\n\n2 tests, 0 benchmarks\n${RUN_MARK}\n`;
const line = (status: 'ok' | 'fail', name: string, token = TOKEN, message = '') =>
  `${RESULT_MARK} ${status} ${resultTag(token, status, name)} ${name} ${message}\n`;

describe('SipHash-2-4', () => {
  it('matches the reference test vector (key 00..0f, 15 bytes 00..0e)', () => {
    const bytes = Uint8Array.from({ length: 15 }, (_, i) => i);
    expect(siphash24(0x0706050403020100n, 0x0f0e0d0c0b0a0908n, bytes).toString(16)).toBe('a129ca6149be45e5');
  });
});

describe('reading the harness report', () => {
  it('passes the listed tests the harness signed as ok, and fails the others', () => {
    const out = `${list}running 2 tests\n${line('ok', 'shelf::a')}${line('fail', 'shelf::m::b', TOKEN, 'left != right')}`;
    expect(readHarnessReport(result(out, 101), TOKEN)).toEqual({
      tests: [
        { name: 'shelf::a', passed: true },
        { name: 'shelf::m::b', passed: false, message: 'left != right' },
      ],
      tampering: [],
    });
  });

  it('has no report when the build failed before the list', () => {
    expect(readHarnessReport(result('', 101), TOKEN)).toBeNull();
  });

  it('has no report when the process exited 0 before every listed test reported', () => {
    const fake = 'test result: ok. 1000 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n';
    expect(readHarnessReport(result(`${list}${line('ok', 'shelf::a')}${fake}`), TOKEN)).toBeNull();
  });

  it('leaves out a test that never reported when the run failed anyway (it never ran)', () => {
    const report = readHarnessReport(result(`${list}${line('ok', 'shelf::a')}`, 134), TOKEN);
    expect(report?.tests).toEqual([{ name: 'shelf::a', passed: true }]);
  });

  it('takes a line tagged with another key as a forgery', () => {
    const out = `${list}${line('ok', 'shelf::a')}${line('ok', 'shelf::m::b', OTHER)}`;
    expect(readHarnessReport(result(out), TOKEN)?.tampering).toEqual([
      'a result line the harness did not write (ok shelf::m::b)',
    ]);
  });

  it('takes a test reported twice (forked copies trying answers) as tampering', () => {
    const out = `${list}${line('fail', 'shelf::a')}${line('ok', 'shelf::a')}${line('ok', 'shelf::m::b')}`;
    expect(readHarnessReport(result(out, 101), TOKEN)?.tampering).toEqual([
      'shelf::a reported more than once (a copy of the test process)',
    ]);
  });

  it('ignores a list printed after the run began', () => {
    const out = `${list}${line('ok', 'shelf::a')}${line('ok', 'shelf::m::b')}${LIST_MARK} shelf\nextra: test\n`;
    expect(readHarnessReport(result(out), TOKEN)?.tests.map((t) => t.passed)).toEqual([true, true]);
  });
});
