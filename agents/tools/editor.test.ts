import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditorTool, type EditorInput, type EditorTool } from './editor.ts';

let base: string;
let root: string;
let editor: EditorTool;
const run = (input: EditorInput) => editor.run(input);
const bytes = (name: string) => readFile(join(root, name), 'latin1');

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'editor-tool-')));
  root = join(base, 'root');
  await mkdir(root);
  editor = createEditorTool({ root, maxViewLines: 50 });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('editor view', () => {
  it('numbers the lines of a file', async () => {
    await writeFile(join(root, 'a.txt'), 'one\ntwo\n');
    expect(await run({ command: 'view', path: 'a.txt' })).toBe('     1\tone\n     2\ttwo');
  });

  it('shows a range, with -1 meaning to the end', async () => {
    await writeFile(join(root, 'a.txt'), 'l1\nl2\nl3\nl4');
    expect(await run({ command: 'view', path: 'a.txt', view_range: [2, 3] })).toBe('     2\tl2\n     3\tl3');
    expect(await run({ command: 'view', path: 'a.txt', view_range: [3, -1] })).toBe('     3\tl3\n     4\tl4');
  });

  it('shows a long file in parts and says how to see the rest', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`);
    await writeFile(join(root, 'long.txt'), `${lines.join('\n')}\n`);
    const first = await run({ command: 'view', path: 'long.txt' });
    expect(first).toContain('    50\tline 50');
    expect(first).not.toContain('line 51');
    expect(first).toContain('has 120 lines');
    expect(first).toContain('view_range [51, 100]');
    const second = await run({ command: 'view', path: 'long.txt', view_range: [51, 100] });
    expect(second.split('\n')[0]).toBe('    51\tline 51');
  });

  it('lists a directory two levels deep without hidden files or node_modules', async () => {
    await mkdir(join(root, 'src/deep/deeper'), { recursive: true });
    await mkdir(join(root, 'node_modules/x'), { recursive: true });
    await writeFile(join(root, '.hidden'), '');
    await writeFile(join(root, 'src/a.ts'), '');
    await writeFile(join(root, 'src/deep/b.ts'), '');
    const listing = await run({ command: 'view', path: '.' });
    expect(listing.split('\n').slice(1)).toEqual(['src/', 'src/a.ts', 'src/deep/']);
  });

  it('explains a missing file and a bad range', async () => {
    expect(await run({ command: 'view', path: 'nope.txt' })).toMatch(/^Error: nope.txt does not exist/);
    await writeFile(join(root, 'a.txt'), 'x\n');
    expect(await run({ command: 'view', path: 'a.txt', view_range: [5, 6] })).toContain('has 1 lines');
  });
});

describe('editor create', () => {
  it('creates a file with its folders and refuses to overwrite', async () => {
    expect(await run({ command: 'create', path: 'new/dir/f.txt', file_text: 'hi\n' })).toContain('Created');
    expect(await bytes('new/dir/f.txt')).toBe('hi\n');
    expect(await run({ command: 'create', path: 'new/dir/f.txt', file_text: 'other' })).toMatch(
      /already exists/,
    );
    expect(await bytes('new/dir/f.txt')).toBe('hi\n');
  });
});

describe('editor str_replace', () => {
  it('replaces the one occurrence and shows the edited part', async () => {
    await writeFile(join(root, 'a.py'), 'def f():\n    return 1\n');
    const output = await run({
      command: 'str_replace',
      path: 'a.py',
      old_str: 'return 1',
      new_str: 'return 2',
    });
    expect(output).toContain('     2\t    return 2');
    expect(await bytes('a.py')).toBe('def f():\n    return 2\n');
  });

  it('says how many times and on which lines a non-unique text occurs', async () => {
    await writeFile(join(root, 'a.txt'), 'x = 1\ny = 2\nx = 1\n');
    const output = await run({ command: 'str_replace', path: 'a.txt', old_str: 'x = 1', new_str: 'x = 3' });
    expect(output).toContain('occurs 2 times');
    expect(output).toContain('lines 1, 3');
    expect(await bytes('a.txt')).toBe('x = 1\ny = 2\nx = 1\n');
  });

  it('says when the text is not found', async () => {
    await writeFile(join(root, 'a.txt'), 'abc\n');
    expect(await run({ command: 'str_replace', path: 'a.txt', old_str: 'zzz', new_str: '' })).toContain(
      'was not found',
    );
  });

  it('keeps tabs, CRLF line endings and a missing final newline byte for byte', async () => {
    await writeFile(join(root, 'w.txt'), 'a\tb\r\nkeep\tme\r\nold line\r\nlast\t');
    await run({
      command: 'str_replace',
      path: 'w.txt',
      old_str: 'old line\nlast',
      new_str: 'new line\nlast',
    });
    expect(await bytes('w.txt')).toBe('a\tb\r\nkeep\tme\r\nnew line\r\nlast\t');
  });

  it('keeps bytes outside the edit in a file with non-ASCII text', async () => {
    await writeFile(join(root, 'u.txt'), 'héllo wörld\n\tünïcode ✓\n');
    await run({ command: 'str_replace', path: 'u.txt', old_str: 'wörld', new_str: 'welt' });
    expect(await readFile(join(root, 'u.txt'), 'utf8')).toBe('héllo welt\n\tünïcode ✓\n');
  });
});

describe('editor insert at the end of a file that ends with a newline', () => {
  it('keeps the final newline', async () => {
    await writeFile(join(root, 'end.txt'), 'a\nb\n');
    await run({ command: 'insert', path: 'end.txt', insert_line: 2, new_str: '- c.' });
    expect(await bytes('end.txt')).toBe('a\nb\n- c.\n');
  });
});

describe('editor insert', () => {
  it('inserts after a line, at the top and at the end', async () => {
    await writeFile(join(root, 'a.txt'), 'one\ntwo\n');
    await run({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'one and a half' });
    await run({ command: 'insert', path: 'a.txt', insert_line: 0, new_str: 'zero\n' });
    await run({ command: 'insert', path: 'a.txt', insert_line: 4, new_str: 'three\n' });
    expect(await bytes('a.txt')).toBe('zero\none\none and a half\ntwo\nthree\n');
  });

  it('keeps CRLF and a missing final newline', async () => {
    await writeFile(join(root, 'c.txt'), 'a\r\nb');
    await run({ command: 'insert', path: 'c.txt', insert_line: 1, new_str: 'mid' });
    await run({ command: 'insert', path: 'c.txt', insert_line: 3, new_str: 'end' });
    expect(await bytes('c.txt')).toBe('a\r\nmid\r\nb\r\nend');
  });

  it('rejects a line out of range', async () => {
    await writeFile(join(root, 'a.txt'), 'one\n');
    expect(await run({ command: 'insert', path: 'a.txt', insert_line: 5, new_str: 'x' })).toContain(
      'from 0 to 1',
    );
  });
});

describe('editor undo_edit', () => {
  it('undoes edits one by one and then the creation', async () => {
    await run({ command: 'create', path: 'u.txt', file_text: 'v1\n' });
    await run({ command: 'str_replace', path: 'u.txt', old_str: 'v1', new_str: 'v2' });
    await run({ command: 'insert', path: 'u.txt', insert_line: 1, new_str: 'more' });
    await run({ command: 'undo_edit', path: 'u.txt' });
    expect(await bytes('u.txt')).toBe('v2\n');
    await run({ command: 'undo_edit', path: 'u.txt' });
    expect(await bytes('u.txt')).toBe('v1\n');
    await run({ command: 'undo_edit', path: 'u.txt' });
    await expect(bytes('u.txt')).rejects.toThrow();
    expect(await run({ command: 'undo_edit', path: 'u.txt' })).toContain('no edit');
  });
});

describe('editor confinement', () => {
  it('accepts absolute paths inside the root', async () => {
    await writeFile(join(root, 'a.txt'), 'x\n');
    expect(await run({ command: 'view', path: join(root, 'a.txt') })).toBe('     1\tx');
  });

  it('refuses ../ and absolute paths outside the root', async () => {
    await writeFile(join(base, 'secret.txt'), 'secret\n');
    expect(await run({ command: 'view', path: '../secret.txt' })).toMatch(/outside the working root/);
    expect(await run({ command: 'view', path: join(base, 'secret.txt') })).toMatch(
      /outside the working root/,
    );
    expect(await run({ command: 'create', path: 'sub/../../evil.txt', file_text: 'x' })).toMatch(/outside/);
  });

  it('refuses to follow a symlink out of the root, also for new files', async () => {
    await mkdir(join(base, 'outside'));
    await writeFile(join(base, 'outside/s.txt'), 'secret\n');
    await symlink(join(base, 'outside'), join(root, 'link'));
    expect(await run({ command: 'view', path: 'link/s.txt' })).toMatch(/outside the working root/);
    expect(await run({ command: 'create', path: 'link/new.txt', file_text: 'x' })).toMatch(/outside/);
    expect(
      await run({ command: 'str_replace', path: 'link/s.txt', old_str: 'secret', new_str: 'x' }),
    ).toMatch(/outside/);
    expect(await readFile(join(base, 'outside/s.txt'), 'utf8')).toBe('secret\n');
  });
});
