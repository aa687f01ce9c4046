import { describe, expect, it } from 'vitest';
import { extractJsons } from './json-extract.ts';

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
  ])('%s', (_name, text, expected) => {
    expect(extractJsons(text)).toEqual(expected);
  });

  it('never throws on hostile input', () => {
    for (const text of ['{'.repeat(5000), '<json>'.repeat(100), '"\'{[/*', '```json', '{"a": "\\']) {
      expect(() => extractJsons(text)).not.toThrow();
    }
  });
});
