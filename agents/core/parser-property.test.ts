import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractJsons } from './json-extract.ts';
import { type ParsedToolCall, parseToolCalls } from './tool-protocol.ts';

/** Fixed seed: a failure is reproducible; fast-check prints the seed and the shrunk input. */
const params = { seed: 20_240_611, numRuns: 600 };

/** The pieces model output is made of, favouring the ones the parsers treat specially. */
const SYNTAX = ['{', '}', '[', ']', '"', "'", '“', '”', ':', ',', '\\', '\n', '\r\n', ' ', '//', '/*', '*/'];
const MARKERS = ['<json>', '</json>', '```json\n', '```', '~~~json\n', '~~~', '<think>', '</think>'];
const WORDS = [
  'tool_name',
  'tool_input',
  '"tool_name": "bash"',
  'name',
  'arguments',
  'True',
  'None',
  'x',
  '42',
];

const soup = (tokens: string[]) =>
  fc
    .array(fc.oneof(fc.constantFrom(...tokens), fc.string({ maxLength: 6 })), { maxLength: 40 })
    .map((parts) => parts.join(''));

/** Prose with braces, quotes, fences and brackets, but no tag and no call keys. */
const prose = soup([...SYNTAX, '```json\n', '```', '~~~', '</json>', 'a', 'b', '1']).filter(
  (text) => !/<json>|<think>|tool|name|arguments|input/.test(text),
);

/** Strings that stress the block-end search: closing tags, braces and quotes inside values. */
const nastyString = fc.oneof(
  fc.string(),
  soup([...SYNTAX, ...MARKERS]),
  fc.constantFrom('</json>', '<json>{"tool_name": "x"}</json>', "it's", '```', 'a\\nb'),
);

const validCall = fc.record({
  name: fc.string({ minLength: 1, maxLength: 12 }).filter((name) => name.trim() === name && name !== ''),
  input: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(nastyString, fc.jsonValue({ maxDepth: 3 })), {
    maxKeys: 4,
  }),
});

/** A call as a model writes it: compact or pretty, optionally with a fence inside the tags. */
const callBlock = fc.tuple(validCall, fc.constantFrom(0, 2), fc.boolean()).map(([call, indent, fenced]) => {
  const json = JSON.stringify({ tool_name: call.name, tool_input: call.input }, null, indent);
  const block = `<json>${fenced ? `\n\`\`\`json\n${json}\n\`\`\`\n` : json}</json>`;
  const expected: ParsedToolCall = JSON.parse(JSON.stringify(call));
  return { block, expected };
});

function expectWellFormed(text: string): void {
  const parsed = parseToolCalls(text);
  expect(typeof parsed.truncated).toBe('boolean');
  for (const call of parsed.calls) expect(typeof call.name).toBe('string');
  expect(Array.isArray(extractJsons(text))).toBe(true);
}

describe('parseToolCalls and extractJsons never throw', () => {
  it('on random strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), expectWellFormed), params);
  });

  it('on random mixes of tags, fences, braces, quotes and call keys', () => {
    fc.assert(fc.property(soup([...SYNTAX, ...MARKERS, ...WORDS]), expectWellFormed), params);
  });

  it('on valid calls that are cut, or have characters deleted, inserted or duplicated', () => {
    const mutation = fc.tuple(
      fc.constantFrom('cut', 'delete', 'insert', 'duplicate'),
      fc.nat(),
      fc.nat({ max: 8 }),
      fc.constantFrom(...SYNTAX, ...MARKERS),
    );
    fc.assert(
      fc.property(
        prose,
        callBlock,
        callBlock,
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (before, a, b, edits) => {
          let text = `${before}${a.block}\n${b.block}`;
          for (const [kind, position, length, token] of edits) {
            const at = position % (text.length + 1);
            if (kind === 'cut') text = text.slice(0, at);
            else if (kind === 'delete') text = text.slice(0, at) + text.slice(at + length);
            else if (kind === 'insert') text = text.slice(0, at) + token + text.slice(at);
            else text = text.slice(0, at) + text.slice(at, at + length) + text.slice(at);
          }
          expectWellFormed(text);
        },
      ),
      params,
    );
  });
});

describe('properties of the <json> protocol', () => {
  it('finds a valid call embedded in prose exactly', () => {
    fc.assert(
      fc.property(prose, callBlock, prose, (before, { block, expected }, after) => {
        expect(parseToolCalls(`${before}${block}${after}`)).toEqual({ calls: [expected], truncated: false });
      }),
      params,
    );
  });

  it('never reads a call cut off inside its <json> block as a complete call, and marks it truncated', () => {
    fc.assert(
      fc.property(
        prose,
        callBlock,
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (before, { block }, where) => {
          // Cut strictly inside the block: after "<json>" and before its last character.
          const inside = '<json>'.length + Math.floor(where * (block.length - '<json>'.length));
          const text = `${before}${block.slice(0, inside)}`;
          expect(parseToolCalls(text)).toEqual({ calls: [], truncated: true });
        },
      ),
      params,
    );
  });

  it('returns the complete calls before a cut-off one, and marks it truncated', () => {
    fc.assert(
      fc.property(callBlock, callBlock, fc.nat(), (first, second, cut) => {
        const inside = '<json>'.length + (cut % (second.block.length - '<json>'.length));
        const text = `${first.block}\n${second.block.slice(0, inside)}`;
        expect(parseToolCalls(text)).toEqual({ calls: [first.expected], truncated: true });
      }),
      params,
    );
  });
});
