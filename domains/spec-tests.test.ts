import { describe, expect, it } from 'vitest';
import { RESULT_MARK, readSpecReport, reportDigest } from './spec-runner/protocol.ts';
import { specTestNames } from './spec-tests.ts';

describe("the spec's tests, listed before it runs", () => {
  it.each<[string, string, string[] | null]>([
    ['plain tests', "test('a', () => {}); it('b', () => {});", ['a', 'b']],
    [
      'nested describes, xtest and .only',
      "describe('D', () => { xtest('a', () => {}); describe('E', () => { it.only('b', () => {}); }); });",
      ['D › a', 'D › E › b'],
    ],
    [
      'skipped and todo tests left out',
      "test.skip('a', () => {}); test.todo('b'); describe.skip('S', () => { test('c', () => {}); }); test('d', () => {});",
      ['d'],
    ],
    [
      'test.each rows',
      "test.each([[1, 2], [3, 4]])('%i plus %d (%#)', () => {}); describe.each([{ n: 'x' }])('$n', () => { test('t', () => {}); });",
      ['1 plus 2 (0)', '3 plus 4 (1)', 'x › t'],
    ],
    ['a name joined from literals', "test('a' + 'b', () => {});", ['ab']],
    ['a test inside a loop', 'for (const x of [1]) test(String(x), () => {});', null],
    ['a test in a helper', "const check = (n) => test(n, () => {}); check('a');", null],
    ['a computed name', 'test(`$' + '{1}`, () => {});', null],
    ['a computed table', "test.each(rows)('%s', () => {});", null],
  ])('%s', (_what, spec, names) => {
    expect(specTestNames('x.spec.js', spec)).toEqual(names);
  });
});

describe("the runner's report line", () => {
  const token = 'abc';
  const line = (json: string, digest = reportDigest(token, json)) =>
    `\n${RESULT_MARK}${token} ${digest} ${json}\n`;
  const json = '{"tests":[{"name":"a","passed":true}],"tampering":[]}';

  it('is read when its digest matches', () => {
    expect(readSpecReport(`out${line(json)}`, token)).toEqual({
      tests: [{ name: 'a', passed: true }],
      tampering: [],
    });
    expect(readSpecReport('no report here', token)).toBeNull();
  });

  it('is tampering when changed, repeated, or not a report', () => {
    const changed = line(json).replace('"passed":true', '"passed":fals');
    expect(readSpecReport(changed, token)?.tampering).toEqual(["the runner's report line was altered"]);
    expect(readSpecReport(line(json) + line(json), token)?.tampering).toEqual([
      "the runner's report line appeared 2 times",
    ]);
    expect(readSpecReport(line('{"passed":3}'), token)?.tampering).toEqual([
      "the runner's report is not one it writes",
    ]);
  });
});
