import { readFileSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { Tool, ToolContext } from '../core/tool.ts';

export type EditorToolOptions = { root: string; maxViewLines?: number; maxViewChars?: number };

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

const SNIPPET_CONTEXT = 4;

export function createEditorTool(options: EditorToolOptions): EditorTool {
  const maxViewLines = options.maxViewLines ?? 400;
  const maxViewChars = options.maxViewChars ?? 20_000;
  const rootPromise = realpath(options.root);
  /** Previous contents per real path; `null` means the file did not exist. */
  const history = new Map<string, (Buffer | null)[]>();

  const remember = (file: string, previous: Buffer | null) => {
    const stack = history.get(file) ?? [];
    stack.push(previous);
    history.set(file, stack);
  };

  const commands = {
    view: async (input: EditorInput, file: string) => {
      const info = await stat(file).catch(() => undefined);
      if (!info)
        throw new EditorError(
          `${input.path} does not exist. View the parent directory to see what is there.`,
        );
      if (info.isDirectory()) return listDirectory(file, input.path);
      const text = await readText(file, input.path);
      return viewFile(text, input, maxViewLines, maxViewChars);
    },
    create: async (input: EditorInput, file: string) => {
      if (input.file_text === undefined)
        throw new EditorError('create needs file_text (the content of the new file).');
      if (await exists(file)) {
        throw new EditorError(
          `${input.path} already exists. Use str_replace or insert to change it (view it first).`,
        );
      }
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, input.file_text);
      remember(file, null);
      return `Created ${input.path} (${countLines(input.file_text)} lines).`;
    },
    str_replace: async (input: EditorInput, file: string) => {
      if (!input.old_str) throw new EditorError('str_replace needs a non-empty old_str.');
      const original = await readText(file, input.path);
      const edit = findUnique(original, input.old_str, input.new_str ?? '', input.path);
      const updated = original.slice(0, edit.at) + edit.newStr + original.slice(edit.at + edit.oldStr.length);
      await writeFile(file, updated);
      remember(file, Buffer.from(original, 'utf8'));
      const firstLine = lineOf(updated, edit.at);
      const lastLine = firstLine + countLines(edit.newStr) - 1;
      return `Edited ${input.path}. The edited part now reads:\n${snippet(updated, firstLine, lastLine)}\nCheck that this is what you intended.`;
    },
    insert: async (input: EditorInput, file: string) => {
      if (input.insert_line === undefined || input.new_str === undefined) {
        throw new EditorError('insert needs insert_line (0 = top) and new_str.');
      }
      const original = await readText(file, input.path);
      const lineCount = countLines(original);
      if (input.insert_line < 0 || input.insert_line > lineCount) {
        throw new EditorError(
          `insert_line ${input.insert_line} is out of range: ${input.path} has ${lineCount} lines. Use a value from 0 to ${lineCount}.`,
        );
      }
      const updated = insertAfterLine(original, input.insert_line, input.new_str);
      await writeFile(file, updated);
      remember(file, Buffer.from(original, 'utf8'));
      const lastLine = input.insert_line + Math.max(1, countLines(input.new_str));
      return `Inserted into ${input.path}. The edited part now reads:\n${snippet(updated, input.insert_line + 1, lastLine)}\nCheck that this is what you intended.`;
    },
    undo_edit: async (input: EditorInput, file: string) => {
      const previous = history.get(file)?.pop();
      if (previous === undefined) throw new EditorError(`There is no edit of ${input.path} to undo.`);
      if (previous === null) {
        await rm(file, { force: true });
        return `Undid the creation of ${input.path}; the file is removed.`;
      }
      await writeFile(file, previous);
      return `Undid the last edit of ${input.path}.`;
    },
  } satisfies Record<EditorInput['command'], (input: EditorInput, file: string) => Promise<string>>;

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

export default (ctx: ToolContext) => createEditorTool({ root: ctx.root });

/** Resolves `path` against the root, following symlinks; refuses anything that ends up outside. */
async function resolveInRoot(realRoot: string, givenRoot: string, path: string): Promise<string> {
  const lexical = resolve(realRoot, path);
  const underGivenRoot = isAbsolute(path) && isInside(resolve(givenRoot), lexical);
  const absolute = underGivenRoot ? join(realRoot, relative(resolve(givenRoot), lexical)) : lexical;
  const real = await realpathOfPossiblyMissing(absolute);
  if (!isInside(realRoot, real)) {
    throw new EditorError(`${path} is outside the working root ${givenRoot}. Use a path inside it.`);
  }
  return real;
}

/** realpath of the deepest existing ancestor, with the missing rest appended. */
async function realpathOfPossiblyMissing(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...missing);
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      missing.unshift(basename(current));
      current = parent;
    }
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

async function readText(file: string, shownPath: string): Promise<string> {
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT')
      throw new EditorError(`${shownPath} does not exist. Use create to make a new file.`);
    if (error.code === 'EISDIR')
      throw new EditorError(`${shownPath} is a directory; only view works on directories.`);
    throw error;
  });
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    throw new EditorError(
      `${shownPath} is not UTF-8 text; the editor only handles text files. Use bash to inspect it.`,
    );
  }
  return text;
}

/** Lines as displayed (line endings removed). A final newline does not start another line. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

export function countLines(text: string): number {
  return splitLines(text).length;
}

function numbered(lines: string[], firstLine: number): string {
  return lines.map((line, i) => `${String(firstLine + i).padStart(6)}\t${line}`).join('\n');
}

function viewFile(text: string, input: EditorInput, maxLines: number, maxChars: number): string {
  const lines = splitLines(text);
  if (lines.length === 0) return `${input.path} is empty.`;
  let [start, end] = input.view_range ?? [1, -1];
  if (start < 1 || start > lines.length) {
    throw new EditorError(
      `view_range start ${start} is out of range: ${input.path} has ${lines.length} lines.`,
    );
  }
  if (end === -1 || end > lines.length) end = lines.length;
  if (end < start)
    throw new EditorError(`view_range end ${end} is before start ${start}. Use [start, end] or [start, -1].`);
  let shownEnd = input.view_range ? end : Math.min(end, start + maxLines - 1);
  let chars = 0;
  for (let n = start; n <= shownEnd; n++) {
    chars += (lines[n - 1]?.length ?? 0) + 8;
    if (chars > maxChars && n > start) {
      shownEnd = n - 1;
      break;
    }
  }
  const body = numbered(lines.slice(start - 1, shownEnd), start);
  if (shownEnd >= end) return body;
  const next = shownEnd + 1;
  return `${body}\n[${input.path} has ${lines.length} lines; this shows lines ${start}-${shownEnd}. To see more, view with view_range [${next}, ${Math.min(lines.length, next + maxLines - 1)}].]`;
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

/**
 * The single place `oldStr` occurs. When it is not found as given in a CRLF file, it is tried with CRLF
 * line endings (and `newStr` converted the same way), so the file keeps its line endings.
 */
function findUnique(text: string, oldStr: string, newStr: string, shownPath: string) {
  let found = occurrences(text, oldStr);
  let [o, n] = [oldStr, newStr];
  if (found.length === 0 && text.includes('\r\n') && !oldStr.includes('\r')) {
    [o, n] = [toCrlf(oldStr), toCrlf(newStr)];
    found = occurrences(text, o);
  }
  if (found.length === 0) {
    throw new EditorError(
      `old_str was not found in ${shownPath}. It must match the file exactly, including whitespace and indentation; view the file and copy the text without the line numbers.`,
    );
  }
  if (found.length > 1) {
    const lines = found.map((at) => lineOf(text, at)).join(', ');
    throw new EditorError(
      `old_str occurs ${found.length} times in ${shownPath} (lines ${lines}). Include more surrounding lines in old_str so it occurs exactly once.`,
    );
  }
  return { at: found[0]!, oldStr: o, newStr: n };
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

function insertAfterLine(text: string, line: number, newStr: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const inserted = eol === '\r\n' && !newStr.includes('\r') ? toCrlf(newStr) : newStr;
  let offset = 0;
  for (let n = 0; n < line; n++) {
    const next = text.indexOf('\n', offset);
    offset = next === -1 ? text.length : next + 1;
  }
  if (offset === text.length && text !== '' && !text.endsWith('\n')) return text + eol + inserted;
  // The inserted text becomes whole lines: it ends with a line break unless it is the last line of a
  // file that had none (that file's missing final newline is kept as it was).
  const needsEol = !inserted.endsWith('\n') && (offset < text.length || text.endsWith('\n'));
  return text.slice(0, offset) + inserted + (needsEol ? eol : '') + text.slice(offset);
}

function snippet(text: string, firstLine: number, lastLine: number): string {
  const lines = splitLines(text);
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, Math.max(firstLine, lastLine) + SNIPPET_CONTEXT);
  return numbered(lines.slice(from - 1, to), from);
}
