import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readNoFollow } from './read-no-follow.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'no-follow-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readNoFollow', () => {
  it('reads a regular file whole, or its first maxBytes with its whole size', () => {
    writeFileSync(path.join(dir, 'a.txt'), 'hello world');
    expect(readNoFollow(path.join(dir, 'a.txt'), 100)?.bytes.toString()).toBe('hello world');
    const cut = readNoFollow(path.join(dir, 'a.txt'), 5);
    expect(cut?.bytes.toString()).toBe('hello');
    expect(cut?.size).toBe(11);
  });

  it('refuses a link, a folder, a FIFO (without hanging) and a missing file', () => {
    writeFileSync(path.join(dir, 'secret'), 'key');
    symlinkSync(path.join(dir, 'secret'), path.join(dir, 'link'));
    mkdirSync(path.join(dir, 'folder'));
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    for (const name of ['link', 'folder', 'fifo', 'missing'])
      expect(readNoFollow(path.join(dir, name), 100)).toBeNull();
  });
});
