import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeUnder, type FolderStamps, stampEntry } from './folder-stamps.ts';

let root: string;
let stamps: FolderStamps;

/** A folder as the harness writes one: `a.txt`, `sub/b.txt`, each entry stamped after its last change. */
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'folder-stamps-'));
  stamps = new Map();
  mkdirSync(path.join(root, 'sub'));
  writeFileSync(path.join(root, 'sub', 'b.txt'), 'bravo');
  stampEntry(stamps, root, 'sub/b.txt', 'bravo');
  stampEntry(stamps, root, 'sub', null);
  writeFileSync(path.join(root, 'a.txt'), 'alpha');
  stampEntry(stamps, root, 'a.txt', 'alpha');
  stampEntry(stamps, root, '', null);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('changeUnder', () => {
  it('finds nothing in a folder as it was stamped', () => {
    expect(changeUnder(root, stamps)).toBeNull();
  });

  // A filesystem whose clock ticks coarsely gives a change made in the tick of the harness's last write
  // the ctime that was stamped. Restamping the changed entry's stat (keeping the text written) stands in
  // for that clock here: only the comparison of contents can then see the change.
  it.each([
    [
      'a file rewritten to the same size in the same tick',
      'a.txt',
      () => writeFileSync(path.join(root, 'a.txt'), 'ALPHA'),
    ],
    ['a file planted in the same tick', 'sub', () => writeFileSync(path.join(root, 'sub', 'c.txt'), '')],
  ])('%s is found by its contents', (_name, rel, change) => {
    change();
    stampEntry(stamps, root, rel, stamps.get(rel)!.text);
    expect(changeUnder(root, stamps)).toBe(`${rel} was changed`);
  });
});
