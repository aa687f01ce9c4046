import { mkdir, mkdtemp, readFile, readlink, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditorTool, type EditorInput, type EditorTool } from './editor.ts';

let base: string;
let root: string;
let editor: EditorTool;
const run = (input: EditorInput) => editor.run(input);
/** A file's bytes, one character per byte, so any change of a byte shows in a comparison. */
const bytes = (name: string) => readFile(join(root, name), 'latin1');
const put = (name: string, content: string | Buffer) => writeFile(join(root, name), content);

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'editor-tool-')));
  root = join(base, 'root');
  await mkdir(root);
  editor = createEditorTool({ root, maxViewLines: 50, maxLineChars: 100 });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('editor view', () => {
  it('numbers the lines of a file', async () => {
    await put('a.txt', 'one\ntwo\n');
    expect(await run({ command: 'view', path: 'a.txt' })).toBe('     1\tone\n     2\ttwo');
  });

  it('shows a range, with -1 meaning to the end', async () => {
    await put('a.txt', 'l1\nl2\nl3\nl4');
    expect(await run({ command: 'view', path: 'a.txt', view_range: [2, 3] })).toBe('     2\tl2\n     3\tl3');
    expect(await run({ command: 'view', path: 'a.txt', view_range: [3, -1] })).toBe('     3\tl3\n     4\tl4');
  });

  it('shows lines as they read: tabs kept, CRLF and a byte order mark not shown', async () => {
    await put('w.txt', '\uFEFFfirst\r\n\tindented\r\n');
    expect(await run({ command: 'view', path: 'w.txt' })).toBe('     1\tfirst\n     2\t\tindented');
  });

  it('shows a long file in parts with correct line numbers and says how to see the rest', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`);
    await put('long.txt', `${lines.join('\n')}\n`);
    const first = await run({ command: 'view', path: 'long.txt' });
    expect(first.split('\n')).toHaveLength(51);
    expect(first).toContain('    50\tline 50\n');
    expect(first).not.toContain('line 51');
    expect(first).toContain(
      'has 120 lines; this shows lines 1-50. To see more, view with view_range [51, 100]',
    );
    const second = await run({ command: 'view', path: 'long.txt', view_range: [51, 100] });
    expect(second.split('\n')[0]).toBe('    51\tline 51');
    expect(second.split('\n').at(-1)).toBe('   100\tline 100');
    const last = await run({ command: 'view', path: 'long.txt', view_range: [101, -1] });
    expect(last.split('\n').at(-1)).toBe('   120\tline 120');
  });

  it('cuts a very long line in the view, says how much is left, and keeps the file whole', async () => {
    const long = 'x'.repeat(250);
    await put('min.js', `${long}\nshort\n`);
    const view = await run({ command: 'view', path: 'min.js' });
    expect(view).toContain(`     1\t${'x'.repeat(100)} [... line 1 goes on for 150 more characters`);
    expect(view).toContain('     2\tshort');
    expect(await bytes('min.js')).toBe(`${long}\nshort\n`);
  });

  it('lists a directory two levels deep without hidden files or node_modules', async () => {
    await mkdir(join(root, 'src/deep/deeper'), { recursive: true });
    await mkdir(join(root, 'node_modules/x'), { recursive: true });
    await mkdir(join(root, '.git'));
    await put('.hidden', '');
    await put('src/a.ts', '');
    await put('src/deep/b.ts', '');
    await put('top.md', '');
    const listing = await run({ command: 'view', path: '.' });
    expect(listing.split('\n')).toEqual([
      'Files and directories in ., two levels deep (hidden files and node_modules left out):',
      'src/',
      'src/a.ts',
      'src/deep/',
      'top.md',
    ]);
    await mkdir(join(root, 'empty'));
    expect(await run({ command: 'view', path: 'empty' })).toContain('empty is an empty directory');
  });

  it('explains a missing file, an empty file and a range that does not fit', async () => {
    expect(await run({ command: 'view', path: 'nope.txt' })).toMatch(/^Error: nope.txt does not exist/);
    await put('empty.txt', '');
    expect(await run({ command: 'view', path: 'empty.txt' })).toBe('empty.txt is empty.');
    await put('a.txt', 'x\n');
    for (const view_range of [
      [5, 6],
      [0, 1],
      [1, 0],
    ] as [number, number][]) {
      expect(await run({ command: 'view', path: 'a.txt', view_range })).toMatch(
        /^Error: view_range \[.*\] does not fit a.txt, which has 1 line\. Use \[start, end\] with 1 <= start <= end <= 1/,
      );
    }
  });

  it('refuses a file that is not UTF-8 text', async () => {
    await put('bin.dat', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]));
    expect(await run({ command: 'view', path: 'bin.dat' })).toMatch(/is not UTF-8 text.*Use bash/);
  });
});

describe('editor create', () => {
  it('creates a file with its folders and refuses to overwrite', async () => {
    expect(await run({ command: 'create', path: 'new/dir/f.txt', file_text: 'hi\n' })).toBe(
      'Created new/dir/f.txt (1 line).',
    );
    expect(await bytes('new/dir/f.txt')).toBe('hi\n');
    expect(await run({ command: 'create', path: 'new/dir/f.txt', file_text: 'other' })).toMatch(
      /^Error: new\/dir\/f.txt already exists\. Use str_replace or insert/,
    );
    expect(await bytes('new/dir/f.txt')).toBe('hi\n');
    expect(await run({ command: 'create', path: 'new', file_text: 'x' })).toMatch(/already exists/);
  });

  it('writes the text exactly as given', async () => {
    await run({ command: 'create', path: 'exact.txt', file_text: '\uFEFFa\tb\r\nno final newline' });
    expect(await readFile(join(root, 'exact.txt'), 'utf8')).toBe('\uFEFFa\tb\r\nno final newline');
  });
});

describe('editor str_replace', () => {
  it('replaces the one occurrence and shows the edited part', async () => {
    await put('a.py', 'def f():\n    return 1\n');
    const output = await run({
      command: 'str_replace',
      path: 'a.py',
      old_str: 'return 1',
      new_str: 'return 2',
    });
    expect(output).toBe(
      'Edited a.py. The edited part now reads:\n     1\tdef f():\n     2\t    return 2\nCheck that this is what you intended.',
    );
    expect(await bytes('a.py')).toBe('def f():\n    return 2\n');
  });

  it('deletes the text when new_str is empty or left out', async () => {
    await put('a.txt', 'keep\ndrop me\nkeep too\n');
    await run({ command: 'str_replace', path: 'a.txt', old_str: 'drop me\n' });
    expect(await bytes('a.txt')).toBe('keep\nkeep too\n');
  });

  it('says how many times and on which lines a non-unique text occurs, and changes nothing', async () => {
    await put('a.txt', 'x = 1\ny = 2\nx = 1\nz\nx = 1\n');
    const output = await run({ command: 'str_replace', path: 'a.txt', old_str: 'x = 1', new_str: 'x = 3' });
    expect(output).toBe(
      'Error: old_str occurs 3 times in a.txt (lines 1, 3, 5). Include more surrounding lines in old_str so it occurs exactly once.',
    );
    expect(await bytes('a.txt')).toBe('x = 1\ny = 2\nx = 1\nz\nx = 1\n');
  });

  it('says when the text is not found, with a hint about whitespace', async () => {
    await put('a.txt', 'abc\n');
    expect(await run({ command: 'str_replace', path: 'a.txt', old_str: 'zzz', new_str: '' })).toBe(
      'Error: old_str was not found in a.txt. It must match the file exactly, including whitespace and indentation; view the file and copy the text without the line numbers.',
    );
  });

  it('points at the line when only the indentation differs', async () => {
    await put('a.py', 'def f():\n\tif x:\n\t\treturn 1\n');
    const output = await run({
      command: 'str_replace',
      path: 'a.py',
      old_str: '    if x:\n        return 1',
      new_str: '    if y:\n        return 1',
    });
    expect(output).toMatch(
      /not found in a.py\. It does occur at line 2 if the spaces and tabs .* are ignored/,
    );
    expect(await bytes('a.py')).toBe('def f():\n\tif x:\n\t\treturn 1\n');
  });

  it('keeps tabs, CRLF line endings and a missing final newline byte for byte', async () => {
    await put('w.txt', 'a\tb\r\nkeep\tme\r\nold line\r\nlast\t');
    await run({
      command: 'str_replace',
      path: 'w.txt',
      old_str: 'old line\nlast',
      new_str: 'new line\nlast',
    });
    expect(await bytes('w.txt')).toBe('a\tb\r\nkeep\tme\r\nnew line\r\nlast\t');
  });

  it('gives added lines the CRLF endings of the file', async () => {
    await put('w.txt', 'one\r\ntwo\r\n');
    await run({ command: 'str_replace', path: 'w.txt', old_str: 'one', new_str: 'one\nand a half' });
    expect(await bytes('w.txt')).toBe('one\r\nand a half\r\ntwo\r\n');
  });

  it('keeps a byte order mark and non-ASCII text outside the edit', async () => {
    await put('u.txt', '\uFEFFhéllo wörld\n\tünïcode ✓\n');
    await run({ command: 'str_replace', path: 'u.txt', old_str: 'héllo', new_str: 'hallo' });
    expect(await readFile(join(root, 'u.txt'))).toEqual(
      Buffer.from('\uFEFFhallo wörld\n\tünïcode ✓\n', 'utf8'),
    );
  });

  it('changes exactly the replaced text and nothing else, for any file', async () => {
    const piece = fc.constantFrom('a', 'é', ' ', '\t', '\n', '\r\n', '\r', '✓', 'x = 1;');
    const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
    const line = fc.array(fc.constantFrom('b', 'ü', ' ', '\t'), { maxLength: 8 }).map((p) => p.join(''));
    await fc.assert(
      fc.asyncProperty(fc.boolean(), text, text, line, async (bom, before, after, replacement) => {
        const original = `${bom ? '\uFEFF' : ''}${before}<<old>>${after}`;
        await put('p.txt', original);
        await run({ command: 'str_replace', path: 'p.txt', old_str: '<<old>>', new_str: replacement });
        const expected = `${bom ? '\uFEFF' : ''}${before}${replacement}${after}`;
        expect(await readFile(join(root, 'p.txt'))).toEqual(Buffer.from(expected, 'utf8'));
        await run({ command: 'undo_edit', path: 'p.txt' });
        expect(await readFile(join(root, 'p.txt'))).toEqual(Buffer.from(original, 'utf8'));
      }),
      { numRuns: 150 },
    );
  });

  it('refuses a file that is not UTF-8 text and leaves it alone', async () => {
    const latin1 = Buffer.from('caf\xe9 old\n', 'latin1');
    await put('l.txt', latin1);
    expect(await run({ command: 'str_replace', path: 'l.txt', old_str: 'old', new_str: 'new' })).toMatch(
      /not UTF-8 text/,
    );
    expect(await readFile(join(root, 'l.txt'))).toEqual(latin1);
  });
});

describe('editor insert', () => {
  it('inserts after a line, at the top and at the end', async () => {
    await put('a.txt', 'one\ntwo\n');
    await run({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'one and a half' });
    await run({ command: 'insert', path: 'a.txt', insert_line: 0, new_str: 'zero\n' });
    await run({ command: 'insert', path: 'a.txt', insert_line: 4, new_str: '- three.' });
    expect(await bytes('a.txt')).toBe('zero\none\none and a half\ntwo\n- three.\n');
  });

  it('shows the inserted lines in context', async () => {
    await put('a.txt', 'one\ntwo\n');
    expect(await run({ command: 'insert', path: 'a.txt', insert_line: 1, new_str: 'new\nlines' })).toBe(
      'Inserted into a.txt. The edited part now reads:\n     1\tone\n     2\tnew\n     3\tlines\n     4\ttwo\nCheck that this is what you intended.',
    );
  });

  it('keeps CRLF and a missing final newline', async () => {
    await put('c.txt', 'a\r\nb');
    await run({ command: 'insert', path: 'c.txt', insert_line: 1, new_str: 'mid\nmid2' });
    await run({ command: 'insert', path: 'c.txt', insert_line: 4, new_str: 'end' });
    expect(await bytes('c.txt')).toBe('a\r\nmid\r\nmid2\r\nb\r\nend');
  });

  it('inserts at the top after a byte order mark, and into an empty file as a whole line', async () => {
    await put('bom.txt', '\uFEFFsecond\n');
    await run({ command: 'insert', path: 'bom.txt', insert_line: 0, new_str: 'first' });
    expect(await readFile(join(root, 'bom.txt'), 'utf8')).toBe('\uFEFFfirst\nsecond\n');
    await put('empty.txt', '');
    await run({ command: 'insert', path: 'empty.txt', insert_line: 0, new_str: 'only' });
    expect(await bytes('empty.txt')).toBe('only\n');
  });

  it('rejects a line out of range and changes nothing', async () => {
    await put('a.txt', 'one\n');
    expect(await run({ command: 'insert', path: 'a.txt', insert_line: 5, new_str: 'x' })).toBe(
      'Error: insert_line 5 is out of range: a.txt has 1 line. Use a value from 0 to 1.',
    );
    expect(await run({ command: 'insert', path: 'a.txt', insert_line: -1, new_str: 'x' })).toMatch(
      /out of range/,
    );
    expect(await bytes('a.txt')).toBe('one\n');
  });

  it('is undone back to the original bytes, for any file and line', async () => {
    const piece = fc.constantFrom('a', '\t', '\n', '\r\n', 'é', ' ');
    const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(fc.boolean(), text, fc.nat(), text, async (bom, body, at, newStr) => {
        const original = `${bom ? '\uFEFF' : ''}${body}`;
        await put('p.txt', original);
        const lines = original.replace(/^\uFEFF/, '').split('\n').length - (original.endsWith('\n') ? 1 : 0);
        const insertLine = original.replace(/^\uFEFF/, '') === '' ? 0 : at % (lines + 1);
        const output = await run({
          command: 'insert',
          path: 'p.txt',
          insert_line: insertLine,
          new_str: newStr,
        });
        expect(output).toMatch(/^Inserted into p.txt/);
        const edited = await readFile(join(root, 'p.txt'), 'utf8');
        expect(edited.startsWith(bom ? '\uFEFF' : '')).toBe(true);
        await run({ command: 'undo_edit', path: 'p.txt' });
        expect(await readFile(join(root, 'p.txt'))).toEqual(Buffer.from(original, 'utf8'));
      }),
      { numRuns: 150 },
    );
  });
});

describe('editor undo_edit', () => {
  it('undoes edits one by one and then the creation', async () => {
    await run({ command: 'create', path: 'u.txt', file_text: 'v1\n' });
    await run({ command: 'str_replace', path: 'u.txt', old_str: 'v1', new_str: 'v2' });
    await run({ command: 'insert', path: 'u.txt', insert_line: 1, new_str: 'more' });
    expect(await run({ command: 'undo_edit', path: 'u.txt' })).toBe(
      'Undid the last edit of u.txt (2 earlier edits left to undo).',
    );
    expect(await bytes('u.txt')).toBe('v2\n');
    await run({ command: 'undo_edit', path: 'u.txt' });
    expect(await bytes('u.txt')).toBe('v1\n');
    expect(await run({ command: 'undo_edit', path: 'u.txt' })).toContain('the file is removed');
    await expect(stat(join(root, 'u.txt'))).rejects.toThrow();
    expect(await run({ command: 'undo_edit', path: 'u.txt' })).toBe(
      'Error: There is no edit of u.txt to undo.',
    );
  });

  it('keeps a history per file', async () => {
    await put('a.txt', 'a\n');
    await put('b.txt', 'b\n');
    await run({ command: 'str_replace', path: 'a.txt', old_str: 'a', new_str: 'A' });
    await run({ command: 'str_replace', path: 'b.txt', old_str: 'b', new_str: 'B' });
    await run({ command: 'undo_edit', path: 'a.txt' });
    expect(await bytes('a.txt')).toBe('a\n');
    expect(await bytes('b.txt')).toBe('B\n');
    expect(await run({ command: 'undo_edit', path: './a.txt' })).toContain('no edit of ./a.txt');
  });

  it('refuses to undo over changes made outside the editor', async () => {
    await put('a.txt', 'one\n');
    await run({ command: 'str_replace', path: 'a.txt', old_str: 'one', new_str: 'two' });
    await put('a.txt', 'two\nadded by a formatter\n');
    expect(await run({ command: 'undo_edit', path: 'a.txt' })).toMatch(
      /^Error: a.txt was changed outside the editor since its last edit, so undo would lose those changes/,
    );
    expect(await bytes('a.txt')).toBe('two\nadded by a formatter\n');
  });
});

describe('editor confinement', () => {
  it('accepts absolute paths inside the root', async () => {
    await put('a.txt', 'x\n');
    expect(await run({ command: 'view', path: join(root, 'a.txt') })).toBe('     1\tx');
  });

  it('refuses ../ and absolute paths outside the root', async () => {
    await writeFile(join(base, 'secret.txt'), 'secret\n');
    expect(await run({ command: 'view', path: '../secret.txt' })).toBe(
      `Error: ../secret.txt is outside the working root ${root}. Use a path inside it.`,
    );
    expect(await run({ command: 'view', path: join(base, 'secret.txt') })).toMatch(
      /outside the working root/,
    );
    expect(await run({ command: 'view', path: '/etc/passwd' })).toMatch(/outside the working root/);
    expect(await run({ command: 'create', path: 'sub/../../evil.txt', file_text: 'x' })).toMatch(/outside/);
    await expect(stat(join(base, 'evil.txt'))).rejects.toThrow();
  });

  it('refuses to follow a symlink out of the root, for every command', async () => {
    await mkdir(join(base, 'outside'));
    await writeFile(join(base, 'outside/s.txt'), 'secret\n');
    await symlink(join(base, 'outside'), join(root, 'link'));
    await symlink(join(base, 'outside/s.txt'), join(root, 'file-link'));
    const refused = /^Error: .* leads outside the working root .* through a symbolic link/;
    expect(await run({ command: 'view', path: 'link/s.txt' })).toMatch(refused);
    expect(await run({ command: 'view', path: 'link' })).toMatch(refused);
    expect(await run({ command: 'view', path: 'file-link' })).toMatch(refused);
    expect(await run({ command: 'create', path: 'link/new.txt', file_text: 'x' })).toMatch(refused);
    expect(
      await run({ command: 'str_replace', path: 'link/s.txt', old_str: 'secret', new_str: 'x' }),
    ).toMatch(refused);
    expect(await run({ command: 'insert', path: 'file-link', insert_line: 0, new_str: 'x' })).toMatch(
      refused,
    );
    expect(await readFile(join(base, 'outside/s.txt'), 'utf8')).toBe('secret\n');
    await expect(stat(join(base, 'outside/new.txt'))).rejects.toThrow();
  });

  it('refuses a link that points outside to something that does not exist yet', async () => {
    await symlink(join(base, 'not-yet'), join(root, 'dangling'));
    expect(await run({ command: 'create', path: 'dangling/x.txt', file_text: 'x' })).toMatch(
      /leads outside the working root/,
    );
    await expect(stat(join(base, 'not-yet'))).rejects.toThrow();
  });

  it('follows links that stay inside the root and edits the file they point to', async () => {
    await mkdir(join(root, 'real'));
    await put('real/f.txt', 'old\n');
    await symlink(join(root, 'real'), join(root, 'alias'));
    await run({ command: 'str_replace', path: 'alias/f.txt', old_str: 'old', new_str: 'new' });
    expect(await bytes('real/f.txt')).toBe('new\n');
    expect(await readlink(join(root, 'alias'))).toBe(join(root, 'real'));
  });
});
