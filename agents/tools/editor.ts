import { readFileSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { isInside, realPathOf } from '../core/paths.ts';
import type { Tool, ToolContext } from '../core/tool.ts';

export type EditorToolOptions = {
  root: string;
  maxViewLines?: number;
  maxViewChars?: number;
  /** Longer lines are shown cut, with a note; the file itself is never cut. */
  maxLineChars?: number;
};

const inputSchema = z.object({
  command: z.enum(['view', 'create', 'str_replace', 'insert', 'undo_edit']),
  path: z.string().min(1).describe('File or directory, relative to the working root or absolute inside it.'),
  view_range: z
    .tuple([z.number().int(), z.number().int()])
    .optional()
    .describe('For view: [start, end] line numbers, 1-based; end -1 means to the end of the file.'),
  file_text: z.string().optional().describe('For create: the content of the new file.'),
  old_str: z.string().optional().describe('For str_replace: the exact text to replace; must occur once.'),
  new_str: z
    .string()
    .optional()
    .describe('For str_replace: the replacement; for insert: the text to insert.'),
  insert_line: z.number().int().optional().describe('For insert: insert after this line (0 = at the top).'),
});

export type EditorInput = z.infer<typeof inputSchema>;
export type EditorTool = Tool<EditorInput>;

/** Raised for problems the model should fix; the message is what it reads. */
class EditorError extends Error {}

/** One edit of a file: its bytes before (`null`: it did not exist) and after. */
type Edit = { before: Buffer | null; after: Buffer };

const SNIPPET_CONTEXT = 4;
const BOM = '\uFEFF';

export function createEditorTool(options: EditorToolOptions): EditorTool {
  const limits = {
    lines: options.maxViewLines ?? 400,
    chars: options.maxViewChars ?? 20_000,
    lineChars: options.maxLineChars ?? 2000,
  };
  const rootPromise = realpath(options.root);
  const commands = editorCommands(limits);

  return {
    name: 'editor',
    description: readFileSync(new URL('./editor.md', import.meta.url), 'utf8'),
    inputSchema,
    run: async (input) => {
      try {
        const root = await rootPromise;
        const file = await resolveInRoot(root, options.root, input.path);
        return await commands[input.command](input, file);
      } catch (error) {
        if (error instanceof EditorError) return `Error: ${error.message}`;
        throw error;
      }
    },
  };
}

type EditorCommand = (input: EditorInput, file: string) => Promise<string>;

/** The editor's commands, on a file already resolved inside the root; they share the history `undo_edit` reads. */
function editorCommands(limits: ViewLimits): Record<EditorInput['command'], EditorCommand> {
  /** Edits per real path, oldest first. */
  const history = new Map<string, Edit[]>();

  const write = async (file: string, before: Buffer | null, text: string) => {
    const after = Buffer.from(text, 'utf8');
    await writeFile(file, after);
    history.set(file, [...(history.get(file) ?? []), { before, after }]);
  };

  return {
    view: async (input: EditorInput, file: string) => {
      const info = await stat(file).catch(() => undefined);
      if (!info) {
        throw new EditorError(
          `${input.path} does not exist. View the parent directory to see what is there.`,
        );
      }
      if (info.isDirectory()) return listDirectory(file, input.path);
      const { text } = await readText(file, input.path);
      return viewFile(text, input, limits);
    },
    create: async (input: EditorInput, file: string) => {
      if (input.file_text === undefined) {
        throw new EditorError('create needs file_text (the content of the new file).');
      }
      if (await exists(file)) {
        throw new EditorError(
          `${input.path} already exists. Use str_replace or insert to change it (view it first).`,
        );
      }
      await mkdir(dirname(file), { recursive: true });
      await write(file, null, input.file_text);
      return `Created ${input.path} (${plural(countLines(input.file_text), 'line')}).`;
    },
    str_replace: async (input: EditorInput, file: string) => {
      if (!input.old_str) throw new EditorError('str_replace needs a non-empty old_str.');
      const { text, bytes } = await readText(file, input.path);
      const edit = findUnique(text, input.old_str, input.new_str ?? '', input.path);
      const updated = text.slice(0, edit.at) + edit.newStr + text.slice(edit.at + edit.oldStr.length);
      await write(file, bytes, updated);
      const firstLine = lineOf(updated, edit.at);
      const lastLine = firstLine + countLines(edit.newStr) - 1;
      return `Edited ${input.path}. The edited part now reads:\n${snippet(updated, firstLine, lastLine)}\nCheck that this is what you intended.`;
    },
    insert: async (input: EditorInput, file: string) => {
      if (input.insert_line === undefined || input.new_str === undefined) {
        throw new EditorError('insert needs insert_line (0 = top) and new_str.');
      }
      const { text, bytes } = await readText(file, input.path);
      const lineCount = countLines(text);
      if (input.insert_line < 0 || input.insert_line > lineCount) {
        throw new EditorError(
          `insert_line ${input.insert_line} is out of range: ${input.path} has ${plural(lineCount, 'line')}. Use a value from 0 to ${lineCount}.`,
        );
      }
      const updated = insertAfterLine(text, input.insert_line, input.new_str);
      await write(file, bytes, updated);
      const lastLine = input.insert_line + Math.max(1, countLines(input.new_str));
      return `Inserted into ${input.path}. The edited part now reads:\n${snippet(updated, input.insert_line + 1, lastLine)}\nCheck that this is what you intended.`;
    },
    undo_edit: (input: EditorInput, file: string) => undoEdit(history.get(file) ?? [], input, file),
  };
}

/** Restores the file as it was before its last edit (`edits`, oldest first, loses that edit). */
async function undoEdit(edits: Edit[], input: EditorInput, file: string): Promise<string> {
  const last = edits.at(-1);
  if (!last) throw new EditorError(`There is no edit of ${input.path} to undo.`);
  const current = await readFile(file).catch(() => null);
  if (!current?.equals(last.after)) {
    throw new EditorError(
      `${input.path} was changed outside the editor since its last edit, so undo would lose those changes. View it and fix it with str_replace instead.`,
    );
  }
  edits.pop();
  if (last.before === null) {
    await rm(file);
    return `Undid the creation of ${input.path}; the file is removed.`;
  }
  await writeFile(file, last.before);
  const left = edits.length === 0 ? 'no earlier edits' : plural(edits.length, 'earlier edit');
  return `Undid the last edit of ${input.path} (${left} left to undo).`;
}

export default (ctx: ToolContext) => createEditorTool({ root: ctx.root });

/** Resolves `path` against the root, following symlinks; refuses anything that ends up outside. */
async function resolveInRoot(realRoot: string, givenRoot: string, path: string): Promise<string> {
  const lexical = resolve(realRoot, path);
  const underGivenRoot = isAbsolute(path) && isInside(resolve(givenRoot), lexical);
  const absolute = underGivenRoot ? join(realRoot, relative(resolve(givenRoot), lexical)) : lexical;
  if (!isInside(realRoot, absolute)) {
    throw new EditorError(`${path} is outside the working root ${givenRoot}. Use a path inside it.`);
  }
  const real = realPathOf(absolute);
  if (!isInside(realRoot, real)) {
    throw new EditorError(
      `${path} leads outside the working root ${givenRoot} through a symbolic link (to ${real}). Use a path inside the root that is not a link to elsewhere.`,
    );
  }
  return real;
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

async function readText(file: string, shownPath: string): Promise<{ text: string; bytes: Buffer }> {
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') {
      throw new EditorError(`${shownPath} does not exist. Use create to make a new file.`);
    }
    if (error.code === 'EISDIR') {
      throw new EditorError(`${shownPath} is a directory; only view works on directories.`);
    }
    throw error;
  });
  // Node keeps a byte order mark as U+FEFF at the start, so it is written back as it was.
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    throw new EditorError(
      `${shownPath} is not UTF-8 text; the editor only handles text files. Use bash to inspect it.`,
    );
  }
  return { text, bytes };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Lines as displayed (line endings and a BOM removed). A final newline does not start another line. */
function splitLines(text: string): string[] {
  if (text === '' || text === BOM) return [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines.map((l) => l.replace(/\r$/, ''));
}

export function countLines(text: string): number {
  return splitLines(text).length;
}

function numbered(lines: string[], firstLine: number): string {
  return lines.map((line, i) => `${String(firstLine + i).padStart(6)}\t${line}`).join('\n');
}

function cutLine(line: string, lineNumber: number, maxChars: number, shownPath: string): string {
  if (line.length <= maxChars) return line;
  return `${line.slice(0, maxChars)} [... line ${lineNumber} goes on for ${line.length - maxChars} more characters; see them with bash, e.g. sed -n '${lineNumber}p' ${shownPath} | cut -c ${maxChars + 1}-${maxChars * 2}]`;
}

type ViewLimits = { lines: number; chars: number; lineChars: number };

function viewFile(text: string, input: EditorInput, limits: ViewLimits): string {
  const lines = splitLines(text);
  if (lines.length === 0) return `${input.path} is empty.`;
  const count = lines.length;
  let [start, end] = input.view_range ?? [1, -1];
  if (end === -1) end = count;
  if (start < 1 || start > count || end < start) {
    throw new EditorError(
      `view_range [${start}, ${end}] does not fit ${input.path}, which has ${plural(count, 'line')}. Use [start, end] with 1 <= start <= end <= ${count}, or end -1 for the end of the file.`,
    );
  }
  end = Math.min(end, count);
  const shown: string[] = [];
  let chars = 0;
  const lastAllowed = input.view_range ? end : Math.min(end, start + limits.lines - 1);
  for (let n = start; n <= lastAllowed; n++) {
    const line = cutLine(lines[n - 1] ?? '', n, limits.lineChars, input.path);
    chars += line.length + 8;
    if (chars > limits.chars && shown.length > 0) break;
    shown.push(line);
  }
  const body = numbered(shown, start);
  const shownEnd = start + shown.length - 1;
  if (shownEnd >= end) return body;
  const next = shownEnd + 1;
  return `${body}\n[${input.path} has ${count} lines; this shows lines ${start}-${shownEnd}. To see more, view with view_range [${next}, ${Math.min(count, next + limits.lines - 1)}].]`;
}

async function listDirectory(dir: string, shownPath: string, maxEntries = 1000): Promise<string> {
  const entries: string[] = [];
  const walk = async (current: string, prefix: string, depth: number) => {
    const children = (await readdir(current, { withFileTypes: true }))
      .filter((d) => !d.name.startsWith('.') && d.name !== 'node_modules')
      .sort((a, b) => a.name.localeCompare(b.name));
    for (const child of children) {
      const isDir = child.isDirectory();
      entries.push(`${prefix}${child.name}${isDir ? '/' : ''}`);
      if (isDir && depth < 2) await walk(join(current, child.name), `${prefix}${child.name}/`, depth + 1);
    }
  };
  await walk(dir, '', 1);
  if (entries.length === 0)
    return `${shownPath} is an empty directory (hidden files and node_modules aside).`;
  const shown = entries.slice(0, maxEntries);
  const more = entries.length > maxEntries ? `\n[${entries.length - maxEntries} more entries not shown]` : '';
  return `Files and directories in ${shownPath}, two levels deep (hidden files and node_modules left out):\n${shown.join('\n')}${more}`;
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** CRLF when every line break of `text` is one; LF otherwise (also for mixed files). */
function isCrlf(text: string): boolean {
  return text.includes('\r\n') && !/(^|[^\r])\n/.test(text);
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/**
 * The single place `oldStr` occurs. In a file with CRLF line endings, `oldStr` is also tried with CRLF
 * and `newStr` gets the file's line endings, so the file keeps them.
 */
function findUnique(text: string, oldStr: string, newStr: string, shownPath: string) {
  let [o, n] = [oldStr, newStr];
  let found = occurrences(text, o);
  if (found.length === 0 && text.includes('\r\n') && /(^|[^\r])\n/.test(oldStr)) {
    [o, n] = [toCrlf(oldStr), toCrlf(newStr)];
    found = occurrences(text, o);
  } else if (isCrlf(text)) {
    n = toCrlf(newStr);
  }
  if (found.length === 0) {
    const near = looseLine(text, oldStr);
    const hint =
      near === undefined
        ? 'It must match the file exactly, including whitespace and indentation; view the file and copy the text without the line numbers.'
        : `It does occur at line ${near} if the spaces and tabs at the start and end of each line are ignored: copy the indentation exactly as the file has it (view it to see).`;
    throw new EditorError(`old_str was not found in ${shownPath}. ${hint}`);
  }
  if (found.length > 1) {
    const lines = found.map((at) => lineOf(text, at)).join(', ');
    throw new EditorError(
      `old_str occurs ${found.length} times in ${shownPath} (lines ${lines}). Include more surrounding lines in old_str so it occurs exactly once.`,
    );
  }
  return { at: found[0]!, oldStr: o, newStr: n };
}

/** The line where `needle` occurs when whitespace around every line is ignored, if it does. */
function looseLine(text: string, needle: string): number | undefined {
  const loose = (s: string) =>
    s
      .split('\n')
      .map((l) => l.trim())
      .join('\n');
  const at = loose(text).indexOf(loose(needle).trim());
  return at === -1 || needle.trim() === '' ? undefined : lineOf(loose(text), at);
}

function insertAfterLine(text: string, line: number, newStr: string): string {
  const eol = isCrlf(text) ? '\r\n' : '\n';
  const inserted = eol === '\r\n' ? toCrlf(newStr) : newStr;
  let offset = text.startsWith(BOM) ? BOM.length : 0;
  for (let n = 0; n < line; n++) {
    const next = text.indexOf('\n', offset);
    offset = next === -1 ? text.length : next + 1;
  }
  const body = text.slice(text.startsWith(BOM) ? BOM.length : 0);
  if (offset === text.length && body !== '' && !text.endsWith('\n')) return text + eol + inserted;
  // The inserted text becomes whole lines: it ends with a line break unless it is the last line of a
  // file that had none (that file's missing final newline is kept as it was).
  const needsEol = !inserted.endsWith('\n');
  return text.slice(0, offset) + inserted + (needsEol ? eol : '') + text.slice(offset);
}

function snippet(text: string, firstLine: number, lastLine: number): string {
  const lines = splitLines(text);
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, Math.max(firstLine, lastLine) + SNIPPET_CONTEXT);
  return numbered(lines.slice(from - 1, to), from);
}
