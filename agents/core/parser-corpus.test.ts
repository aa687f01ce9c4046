import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { extractJsons } from './json-extract.ts';
import { parseToolCalls } from './tool-protocol.ts';

/**
 * Realistic model replies, one per file in fixtures/tool-calls: `NNN-name.txt` is the raw reply exactly as
 * a model sent it, `NNN-name.expected.json` what must be read from it, and why the case matters.
 */
const dir = new URL('./fixtures/tool-calls/', import.meta.url);

const Expected = z.union([
  z.strictObject({ function: z.literal('extractJsons'), values: z.array(z.unknown()), note: z.string() }),
  z.strictObject({
    calls: z.array(z.strictObject({ name: z.string(), input: z.unknown() })),
    truncated: z.boolean(),
    note: z.string().min(10),
  }),
]);

const files = readdirSync(dir).sort();
const cases = files
  .filter((file) => file.endsWith('.txt'))
  .map((file) => {
    const name = file.slice(0, -'.txt'.length);
    return {
      name,
      text: readFileSync(new URL(file, dir), 'utf8'),
      expected: Expected.parse(JSON.parse(readFileSync(new URL(`${name}.expected.json`, dir), 'utf8'))),
    };
  });

describe('the corpus of model replies', () => {
  it('has at least 60 cases, every expectation with its reply', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    const orphans = files.filter(
      (f) => f.endsWith('.expected.json') && !files.includes(f.replace(/\.expected\.json$/, '.txt')),
    );
    expect(orphans).toEqual([]);
  });

  it('keeps the replies byte-exact (a checkout that rewrites line endings would change what is tested)', () => {
    for (const { name, text } of cases) expect(text.includes('\r\n'), name).toBe(name.includes('crlf'));
  });

  it.each(cases)('$name', ({ text, expected }) => {
    if ('function' in expected) {
      expect(extractJsons(text)).toEqual(expected.values);
    } else {
      expect(parseToolCalls(text)).toEqual({ calls: expected.calls, truncated: expected.truncated });
    }
  });
});
