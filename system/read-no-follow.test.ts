import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readNoFollow, readTreeNoFollow, removeTreeNoFollow } from './read-no-follow.ts';

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

describe('readTreeNoFollow and removeTreeNoFollow', () => {
  const limits = { maxEntries: 100, maxBytes: 1000, maxDepth: 8 };

  it('reads regular files at any depth and leaves out links, FIFOs, setuid files and .git', () => {
    const ws = path.join(dir, 'ws');
    mkdirSync(path.join(ws, 'src', 'deep'), { recursive: true });
    mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(ws, 'src', 'deep', 'a.txt'), 'A');
    writeFileSync(path.join(ws, '.git', 'config'), '[core]');
    writeFileSync(path.join(ws, 'suid'), 'x', { mode: 0o4755 });
    writeFileSync(path.join(dir, 'secret'), 'key');
    symlinkSync(path.join(dir, 'secret'), path.join(ws, 'link'));
    symlinkSync(dir, path.join(ws, 'dirlink'));
    execFileSync('mkfifo', [path.join(ws, 'fifo')]);
    const tree = readTreeNoFollow(ws, limits)!;
    expect([...tree.files]).toEqual([['src/deep/a.txt', Buffer.from('A')]]);
    expect(tree.skipped.sort()).toEqual([
      '.git (a .git folder is not collected)',
      'dirlink (a link)',
      'fifo (not a regular file)',
      'link (a link)',
      'suid (a setuid or setgid file)',
    ]);
    expect(tree.over).toBeNull();
    expect(readTreeNoFollow(path.join(ws, 'dirlink'), limits)).toBeNull();
  });

  it.each([
    ['too many entries', { maxEntries: 3 }, 'more than 3 files and folders'],
    ['too many bytes', { maxBytes: 5 }, 'more than 5 bytes of files'],
    ['folders too deep', { maxDepth: 2 }, 'folders nested more than 2 deep'],
  ])('stops at %s', (_name, cap, over) => {
    const ws = path.join(dir, 'ws');
    mkdirSync(path.join(ws, 'a', 'b', 'c'), { recursive: true });
    writeFileSync(path.join(ws, 'a', 'b', 'c', 'f'), '123456');
    expect(readTreeNoFollow(ws, { ...limits, ...cap })?.over).toBe(over);
  });

  it('removes a folder with links in it without touching what they point to', () => {
    const ws = path.join(dir, 'ws');
    const outside = path.join(dir, 'outside');
    mkdirSync(path.join(ws, 'sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'keep'), 'kept');
    symlinkSync(outside, path.join(ws, 'sub', 'out'));
    symlinkSync(path.join(outside, 'keep'), path.join(ws, 'keep'));
    removeTreeNoFollow(ws);
    expect(existsSync(ws)).toBe(false);
    expect(readFileSync(path.join(outside, 'keep'), 'utf8')).toBe('kept');
  });
});
