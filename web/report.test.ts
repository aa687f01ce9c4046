import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { scriptJson } from './page.ts';
import { buildReport } from './report.ts';

const HOSTILE = '</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)>';

describe('scriptJson', () => {
  it.each([['</script>'], ['<!--'], ['a & b'], ['\u2028']])(
    'keeps %j from ending or confusing a script element',
    (text) => {
      const encoded = scriptJson({ text });
      expect(encoded).not.toMatch(/[<>&\u2028]/);
      expect(JSON.parse(encoded)).toEqual({ text });
    },
  );
});

describe('buildReport', () => {
  it('inlines every asset and the data, and carries agent text only as data', async () => {
    const runs = mkdtempSync(path.join(tmpdir(), 'report-'));
    const dir = writeSyntheticRun(runs, { id: 'r1', variants: 4 });
    mkdirSync(path.join(dir, 'logs', 'variant-1'), { recursive: true });
    writeFileSync(
      path.join(dir, 'logs', 'variant-1', 'meta-transcript.json'),
      JSON.stringify({
        status: 'done',
        finalText: HOSTILE,
        messages: [{ role: 'assistant', content: HOSTILE }],
      }),
    );
    const html = await buildReport([{ id: 'r1', dir }]);
    expect(html).not.toContain('alert(1)</script>');
    expect(html).not.toContain('<img src=x');
    expect(html.includes('<script src=')).toBe(false);
    expect(html.includes('<link rel="stylesheet"')).toBe(false);
    const data = html.match(/<script type="application\/json" id="report-data">(.*?)<\/script>/s)?.[1];
    const parsed = JSON.parse(data!);
    expect(parsed.api['/runs/r1/variants/1'].transcript.summary).toBe(HOSTILE);
    expect(Object.keys(parsed.api)).toEqual(
      expect.arrayContaining(['/runs', '/runs/r1', '/runs/r1/variants/3']),
    );
  });
});
