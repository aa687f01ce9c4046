import { describe, expect, it } from 'vitest';
import { extractJsons, parseLenientJson } from './json-extract.ts';
import { parseToolCalls } from './tool-protocol.ts';

describe('extractJsons', () => {
  it.each([
    ['a tag block in prose', 'The answer is <json>{"response": 42}</json>. Done.', [{ response: 42 }]],
    ['a json fence', 'Here:\n```json\n{"response": "yes"}\n```\n', [{ response: 'yes' }]],
    ['a bare object', 'so {"response": 7} is it', [{ response: 7 }]],
    ['several tag blocks in order', '<json>{"a": 1}</json> x <json>{"a": 2}</json>', [{ a: 1 }, { a: 2 }]],
    [
      'tags before fences before bare',
      '{"c": 3} ```json\n{"b": 2}\n``` <json>{"a": 1}</json>',
      [{ a: 1 }, { b: 2 }, { c: 3 }],
    ],
    ['trailing commas', '<json>{"a": [1, 2,], "b": 3,}</json>', [{ a: [1, 2], b: 3 }]],
    [
      'single-quoted strings',
      "<json>{'a': 'it\\'s', \"b\": 'say \"hi\"'}</json>",
      [{ a: "it's", b: 'say "hi"' }],
    ],
    ['unquoted keys', '<json>{response: 5, other_key: true}</json>', [{ response: 5, other_key: true }]],
    ['comments', '<json>{\n// note\n"a": 1, /* two */ "b": 2}</json>', [{ a: 1, b: 2 }]],
    ['</json> inside a string', '<json>{"code": "x = \'</json>\'"}</json>', [{ code: "x = '</json>'" }]],
    ['nested braces', 'r: {"a": {"b": {"c": "}"}}}', [{ a: { b: { c: '}' } } }]],
    [
      'raw newline inside a string',
      '<json>{"response": "line1\nline2"}</json>',
      [{ response: 'line1\nline2' }],
    ],
    ['Python literals', '<json>{"a": True, "b": None}</json>', [{ a: true, b: null }]],
    ['an object inside a tag is not repeated', '<json>{"a": {"b": 1}}</json>', [{ a: { b: 1 } }]],
    ['a fence inside a tag block is not repeated', '<json>```json\n{"a": 1}\n```</json>', [{ a: 1 }]],
    ['prose braces that are not JSON are skipped', 'set {x | x > 0} and {"ok": 1}', [{ ok: 1 }]],
    ['an unclosed tag yields nothing', '<json>{"response": 4', []],
    ['a cut-off bare object yields its complete inner objects', '{"a": {"b": 1}', [{ b: 1 }]],
    ['no JSON at all', 'just words', []],
    ['an empty string', '', []],
    ['a ~~~json fence', '~~~json\n{"a": 1}\n~~~', [{ a: 1 }]],
    ['a one-line fence', '```json {"a": 1} ```', [{ a: 1 }]],
    ['a closed block that lost its last brace', '<json>{"a": {"b": 1}</json>', [{ a: { b: 1 } }]],
    ['a lone brace in a closed fence is not an object', '```json\n{\n```', []],
    [
      'unescaped quotes inside a string',
      '<json>{"cmd": "echo "hi" there"}</json>',
      [{ cmd: 'echo "hi" there' }],
    ],
    ['smart quotes around keys and values', '<json>{“a”: “b”}</json>', [{ a: 'b' }]],
    ['a missing comma between members', '<json>{"a": 1\n "b": 2}</json>', [{ a: 1, b: 2 }]],
    ['a forgotten closing tag followed by prose', '<json>{"a": 1}\nThanks!', [{ a: 1 }]],
    [
      'a forgotten closing tag before the next block',
      '<json>{"a": 1}\n<json>{"a": 2}</json>',
      [{ a: 1 }, { a: 2 }],
    ],
    ['a complete value whose closing tag was cut off', '<json>{"a": 1}</js', []],
    ['a tag mentioned before a number is not a block', 'Use <json> 2 times.', []],
    [
      'a bare object that would swallow a tag block is not taken',
      "{'a': '<json>{\"b\": 1}</json>'}",
      [{ b: 1 }],
    ],
    ['an object inside a bare object string is not repeated', '{"a": "{\\"b\\": 1}"}', [{ a: '{"b": 1}' }]],
    ['Windows paths keep their backslashes', '<json>{"p": "C:\\Users\\x"}</json>', [{ p: 'C:\\Users\\x' }]],
  ])('%s', (_name, text, expected) => {
    expect(extractJsons(text)).toEqual(expected);
  });

  it('reads a "__proto__" key as data, not as the prototype', () => {
    const [value] = extractJsons('<json>{"__proto__": {"polluted": true}, "a": 1,}</json>');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('still finds the answer after a megabyte of hostile braces, quotes and comments', () => {
    const megabyte = (unit: string) => unit.repeat(Math.ceil(1_000_000 / unit.length));
    for (const unit of ['{', '{"', '{"a":[', "{'a':\"", '{“', '{/*', '"\\', '```json\n{', '<json>{"a":[']) {
      const text = `${megabyte(unit)}\n<json>{"response": 1}</json>`;
      expect(extractJsons(text), unit).toContainEqual({ response: 1 });
      expect(parseToolCalls(`${text}<json>{"tool_name": "bash"}</json>`).calls, unit).toEqual([
        { name: 'bash', input: {} },
      ]);
    }
  }, 60_000);

  it('never throws on hostile input', () => {
    for (const text of ['{'.repeat(5000), '<json>'.repeat(100), '"\'{[/*', '```json', '{"a": "\\']) {
      expect(() => extractJsons(text)).not.toThrow();
    }
  });
});

describe('parseLenientJson', () => {
  it.each([
    ['valid JSON', '{"a": [1, 2]}', { ok: true, value: { a: [1, 2] } }],
    ['a scalar', ' 42 ', { ok: true, value: 42 }],
    ['JSON5-style slips', "{a: 'b', c: [True, None,],}", { ok: true, value: { a: 'b', c: [true, null] } }],
    ['text after the value', '{"a": 1} and more', { ok: false }],
    ['a cut-off value', '{"a": "b', { ok: false }],
    ['prose', 'not json', { ok: false }],
  ])('%s', (_name, source, expected) => {
    expect(parseLenientJson(source)).toEqual(expected);
  });
});
