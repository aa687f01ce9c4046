import { describe, expect, it } from 'vitest';
import { parseCsv } from './csv.ts';

describe('parseCsv', () => {
  it.each<[string, string, string[][]]>([
    [
      'plain rows',
      'a,b\n1,2\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'CRLF and no final line break',
      'a,b\r\n1,2',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'a byte-order mark',
      '\uFEFFid,q\n1,x\n',
      [
        ['id', 'q'],
        ['1', 'x'],
      ],
    ],
    ['quoted commas', '"a, b",c\n', [['a, b', 'c']]],
    ['doubled quotes', '"say ""hi""",x\n', [['say "hi"', 'x']]],
    [
      'a line break inside quotes',
      '"two\nlines",x\r\n"and\r\nthree",y\n',
      [
        ['two\nlines', 'x'],
        ['and\r\nthree', 'y'],
      ],
    ],
    ['empty fields', ',,\n', [['', '', '']]],
    ['an empty quoted field alone', '""\n', [['']]],
    ['blank lines', 'a\n\n\nb\n', [['a'], ['b']]],
    ['non-ASCII text', 'ü,"日本, 語"\n', [['ü', '日本, 語']]],
  ])('%s', (_name, text, expected) => {
    const { records, errors } = parseCsv(text);
    expect(errors).toEqual([]);
    expect(records.map((r) => r.fields)).toEqual(expected);
  });

  it('numbers each record by the line it starts on', () => {
    const { records } = parseCsv('h1,h2\n"multi\nline",1\n\nlast,2\n');
    expect(records.map((r) => r.line)).toEqual([1, 2, 5]);
  });

  it('reports a quote that is never closed by the line it opened on', () => {
    const { records, errors } = parseCsv('a,b\n1,"open\n2,3\n');
    expect(records.map((r) => r.fields)).toEqual([['a', 'b']]);
    expect(errors).toEqual([{ line: 2, reason: expect.stringMatching(/never closed/) }]);
  });

  it.each<[string, string, RegExp]>([
    [
      'a quote inside an unquoted field',
      'a,b\n1,say "hi"\n2,ok\n',
      /^a quote inside a field that does not start with one/,
    ],
    ['text after a closing quote', 'a,b\n1,"x"y\n2,ok\n', /^text after the closing quote of a field/],
    ['a space after a closing quote', 'a,b\n1,"x" \n2,ok\n', /^text after the closing quote/],
    ['a NUL byte', 'a,b\n1,x\u0000y\n2,ok\n', /^a NUL byte \(is the file binary/],
    ['a NUL byte inside quotes', 'a,b\n1,"x\u0000"\n2,ok\n', /^a NUL byte/],
  ])('leaves out a record with %s, by its line, and keeps the others', (_name, text, reason) => {
    const { records, errors } = parseCsv(text);
    expect(records.map((r) => [r.line, r.fields])).toEqual([
      [1, ['a', 'b']],
      [3, ['2', 'ok']],
    ]);
    expect(errors).toEqual([{ line: 2, reason: expect.stringMatching(reason) }]);
  });

  it('reports a bad record that spans lines by the line it starts on, and a bad last record', () => {
    const { records, errors } = parseCsv('a,b\n"two\nlines"x,1\nok,2\n3,"end"z');
    expect(records.map((r) => r.line)).toEqual([1, 4]);
    expect(errors.map((e) => e.line)).toEqual([2, 5]);
  });
});
