import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isInside, isStrictlyInside, realPathOf } from './paths.ts';

describe('isInside', () => {
  it.each([
    ['/w', '/w', true, false],
    ['/w', '/w/a/b', true, true],
    ['/w', '/w/..foo', true, true],
    ['/w', '/w/../x', false, false],
    ['/w', '/wx', false, false],
    ['/w/', '/w/a', true, true],
    ['/w', '/', false, false],
  ])('%s holds %s: %s (strictly: %s)', (root, path, inside, strictly) => {
    expect(isInside(root, path)).toBe(inside);
    expect(isStrictlyInside(root, path)).toBe(strictly);
  });
});

describe('realPathOf', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'paths-')));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'root'));
  symlinkSync('/etc', join(dir, 'root', 'out'));
  symlinkSync(join(dir, 'missing-target'), join(dir, 'root', 'dangling'));

  it('follows a link on the way, also under parts that do not exist yet', () => {
    expect(realPathOf(join(dir, 'root', 'out', 'new', 'file'))).toBe('/etc/new/file');
    expect(isInside(join(dir, 'root'), realPathOf(join(dir, 'root', 'out', 'x')))).toBe(false);
  });

  it('follows a link to a target that does not exist yet', () => {
    expect(realPathOf(join(dir, 'root', 'dangling'))).toBe(join(dir, 'missing-target'));
  });

  it('keeps a path of missing parts as written', () => {
    expect(realPathOf(join(dir, 'root', 'a', 'b'))).toBe(join(dir, 'root', 'a', 'b'));
  });
});
