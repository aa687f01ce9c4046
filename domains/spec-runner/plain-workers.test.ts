import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runsWithoutLoader, withoutLoader } from './plain-workers.ts';

describe('workers without the TypeScript loader', () => {
  it('drops tsx and the process-wide flags a worker refuses, and keeps the rest', () => {
    const tsx = 'file:///x/node_modules/tsx/dist/loader.mjs';
    expect(withoutLoader(['--max-old-space-size=512', '--import', tsx, '--trace-warnings'])).toEqual([
      '--trace-warnings',
    ]);
    const permissions = [
      '--experimental-permission',
      '--allow-worker',
      '--allow-fs-read=/x',
      '--disable-warning=X',
    ];
    expect(withoutLoader([...permissions, '--trace-warnings'])).toEqual(['--trace-warnings']);
    expect(withoutLoader([`--import=${tsx}`, '--import', 'file:///x/other.mjs'])).toEqual([
      '--import',
      'file:///x/other.mjs',
    ]);
  });

  it('runs plain scripts without it, and TypeScript or ES module syntax in CommonJS with it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'workers-'));
    const write = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const cjs = write('a.js', "const { parentPort } = require('node:worker_threads');\n");
    const esm = write('b.js', "import { parentPort } from 'node:worker_threads';\n");
    const ts = write('c.ts', 'export const x: number = 1;\n');
    expect(runsWithoutLoader(cjs, false)).toBe(true);
    expect(runsWithoutLoader(esm, false)).toBe(false);
    expect(runsWithoutLoader(esm, true)).toBe(true);
    expect(runsWithoutLoader(ts, true)).toBe(false);
    expect(runsWithoutLoader(path.join(dir, 'missing.js'), false)).toBe(false);
  });
});
