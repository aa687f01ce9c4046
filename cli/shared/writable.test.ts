import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from './usage-error.ts';
import { assertWritableDir } from './writable.ts';

let base: string;

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'writable-'));
  mkdirSync(path.join(base, 'runs'));
  writeFileSync(path.join(base, 'notes.txt'), 'not a folder\n');
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

/** Every path under `dir`, so a test can see that nothing was created. */
const tree = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

describe('assertWritableDir', () => {
  it.each([
    ['an existing folder', 'runs'],
    ['the temp folder itself', '.'],
    ['a missing folder in an existing one', 'runs/night-1'],
    ['a missing folder several levels down', 'a/b/c/d'],
    ['a path with dot segments', 'runs/../runs/x'],
  ])('accepts %s', (_name, relative) => {
    const before = tree(base);
    expect(() => assertWritableDir(`${base}/${relative}`, '--out')).not.toThrow();
    expect(tree(base)).toEqual(before);
  });

  it.each([
    [
      'an existing regular file',
      'notes.txt',
      /^--out .*notes\.txt cannot be created: .*notes\.txt is a file, not a folder\./,
    ],
    [
      'a path under a regular file',
      'notes.txt/runs',
      /^--out .*notes\.txt\/runs cannot be created: .*notes\.txt is a file, not a folder\./,
    ],
    ['a deep path under a regular file', 'notes.txt/a/b', /is a file, not a folder/],
  ])('rejects %s', (_name, relative, message) => {
    const before = tree(base);
    const check = () => assertWritableDir(`${base}/${relative}`, '--out');
    expect(check).toThrow(UsageError);
    expect(check).toThrow(message);
    expect(tree(base)).toEqual(before);
  });

  it('names the flag it checks', () => {
    expect(() => assertWritableDir(path.join(base, 'notes.txt'), '--runs')).toThrow(/^--runs /);
  });

  it('accepts a relative path against the working directory', () => {
    expect(() =>
      assertWritableDir(path.relative(process.cwd(), path.join(base, 'x/y')), '--out'),
    ).not.toThrow();
    expect(tree(base)).toEqual(['notes.txt', 'runs']);
  });
});
