import { describe, expect, it } from 'vitest';
import { diffSummary, storedWorkspaceDiff, workspaceDiff } from './workspace-diff.ts';

describe('workspaceDiff', () => {
  it.each([
    ['no change', { a: 'x\n' }, { a: 'x\n' }, ''],
    ['an added file', {}, { 'b/new.txt': 'hi\n' }, '--- /dev/null\n+++ b/b/new.txt\n@@ -0,0 +1 @@\n+hi\n'],
    ['a deleted file', { gone: 'a\nb\n' }, {}, '--- a/gone\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n'],
    [
      'one changed line',
      { f: '1\n2\n3\n' },
      { f: '1\nX\n3\n' },
      '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n',
    ],
    [
      'a last line without a newline',
      { f: 'a' },
      { f: 'b' },
      '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n',
    ],
  ])('%s', (_name, before, after, expected) => {
    expect(workspaceDiff(before, after)).toBe(expected);
  });

  it('splits changes far apart into hunks with three lines of context', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `l${i + 1}`);
    const changed = lines.map((l, i) => (i === 1 || i === 18 ? `${l}!` : l));
    const diff = workspaceDiff({ f: `${lines.join('\n')}\n` }, { f: `${changed.join('\n')}\n` });
    expect(diff.split('\n').filter((l) => l.startsWith('@@'))).toEqual([
      '@@ -1,5 +1,5 @@',
      '@@ -16,5 +16,5 @@',
    ]);
  });
});

describe('storedWorkspaceDiff and diffSummary', () => {
  it.each([
    [JSON.stringify('--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n'), '1 file, +1 -1'],
    [JSON.stringify(''), 'no change'],
  ])('reads %s as a diff: %s', (stored, summary) => {
    const diff = storedWorkspaceDiff(stored);
    expect(diff).not.toBeNull();
    expect(diffSummary(diff!)).toBe(summary);
  });

  it.each([['42'], [JSON.stringify('an answer')], [null], ['not json']])('reads %s as no diff', (stored) => {
    expect(storedWorkspaceDiff(stored)).toBeNull();
  });
});
