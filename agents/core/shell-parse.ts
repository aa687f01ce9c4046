/** A small shell-line reader for the safety policy: enough of sh's splitting to see which commands run. */

/** One simple command of a shell line: words with quotes removed, output redirect targets, heredoc bodies. */
export type ShellCommand = { words: string[]; redirects: string[]; heredocs: string[] };

/**
 * Splits a shell line into simple commands the way a POSIX shell would, closely enough for the rules
 * above: quotes and backslashes; `;` `&&` `||` `|` `&` newlines and parentheses; `$(...)`, backquotes and
 * `<(...)` parsed as commands of their own (also inside double quotes); redirects (`>`, `>>`, `&>`, `2>`;
 * `>&2` is no file); heredoc bodies kept apart (they are data, not commands); comments. Never throws.
 */
export function parseShell(text: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  const fresh = (): ShellCommand => ({ words: [], redirects: [], heredocs: [] });
  let current = fresh();
  let word: string | undefined;
  let pending: 'write' | 'read' | 'heredoc' | 'heredoc-' | undefined;
  const heredocs: { delimiter: string; strip: boolean; command: ShellCommand }[] = [];
  const append = (part: string) => {
    word = (word ?? '') + part;
  };
  const finishWord = () => {
    if (word === undefined) return;
    if (pending === 'write') current.redirects.push(word);
    else if (pending === 'heredoc' || pending === 'heredoc-')
      heredocs.push({ delimiter: word, strip: pending === 'heredoc-', command: current });
    else if (pending !== 'read') current.words.push(word);
    pending = undefined;
    word = undefined;
  };
  const finishCommand = () => {
    finishWord();
    if (current.words.length > 0 || current.redirects.length > 0) commands.push(current);
    current = fresh();
  };
  const substitute = (start: number, end: number) => {
    commands.push(...parseShell(text.slice(start, end)));
    append(text.slice(start, end));
  };

  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "'") {
      const end = indexOrEnd(text, "'", i + 1);
      append(text.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      const quoted = readDoubleQuoted(text, i + 1, substitute);
      append(quoted.part);
      i = quoted.end + 1;
    } else if (c === '\\') {
      if (next !== '\n') append(next ?? '');
      i += 2;
    } else if (((c === '$' || c === '<' || c === '>') && next === '(') || c === '`') {
      const start = c === '`' ? i + 1 : i + 2;
      const end = c === '`' ? indexOrEnd(text, '`', start) : closingParen(text, start);
      substitute(start, end);
      i = end + 1;
    } else if (c === '#' && word === undefined) {
      i = indexOrEnd(text, '\n', i);
    } else if (c === ' ' || c === '\t') {
      finishWord();
      i++;
    } else if (c === '\n') {
      finishCommand();
      i = readHeredocBodies(text, i + 1, heredocs.splice(0));
    } else if (c === '>' || (c === '&' && next === '>')) {
      if (word !== undefined && /^\d+$/.test(word)) word = undefined;
      finishWord();
      const op = writeOperator(text, i, c);
      i = op.end;
      if (op.writes) pending = 'write';
    } else if (c === '<') {
      if (word !== undefined && /^\d+$/.test(word)) word = undefined;
      finishWord();
      const op = readOperator(text, i);
      i = op.end;
      pending = op.pending;
    } else if (';&|()'.includes(c)) {
      finishCommand();
      i++;
    } else {
      append(c);
      i++;
    }
  }
  finishCommand();
  return commands;
}

/**
 * The text of a double-quoted part from `from` (just past its opening quote) to its closing quote (`end`),
 * backslashes applied; each `$(...)` and backquote inside is handed to `substitute` as it is met.
 */
function readDoubleQuoted(
  text: string,
  from: number,
  substitute: (start: number, end: number) => void,
): { part: string; end: number } {
  let j = from;
  let part = '';
  while (j < text.length && text[j] !== '"') {
    if (text[j] === '\\') {
      part += text[j + 1] ?? '';
      j += 2;
    } else if (text[j] === '$' && text[j + 1] === '(') {
      const end = closingParen(text, j + 2);
      substitute(j + 2, end);
      j = end + 1;
    } else if (text[j] === '`') {
      const end = indexOrEnd(text, '`', j + 1);
      substitute(j + 1, end);
      j = end + 1;
    } else part += text[j++];
  }
  return { part, end: j };
}

/**
 * An output redirect operator at `at` (`>`, `>>`, `>|`, `&>`, `&>>`, `>&`): where it ends, and whether a file
 * name follows (`>&2` and `>&-` name a descriptor, not a file).
 */
function writeOperator(text: string, at: number, c: string): { end: number; writes: boolean } {
  let i = at + (c === '&' ? 2 : 1);
  if (text[i] === '>' || text[i] === '|') i++;
  if (c === '>' && text[i] === '&' && /[\d-]/.test(text[i + 1] ?? '')) {
    return { end: i + 1 + (/^(\d+|-)/.exec(text.slice(i + 1))?.[0].length ?? 0), writes: false };
  }
  if (c === '>' && text[i] === '&') i++;
  return { end: i, writes: true };
}

/** An input redirect operator at `at` (`<`, `<<`, `<<-`, `<<<`, `<&`): where it ends, and what follows it. */
function readOperator(
  text: string,
  at: number,
): { end: number; pending: 'read' | 'heredoc' | 'heredoc-' | undefined } {
  const op = /^<(<<|<-|<|&[\d-]*)?/.exec(text.slice(at))?.[0] ?? '<';
  const pending =
    op === '<<' ? 'heredoc' : op === '<<-' ? 'heredoc-' : op.startsWith('<&') ? undefined : 'read';
  return { end: at + op.length, pending };
}

function indexOrEnd(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at === -1 ? text.length : at;
}

/** Index of the `)` that closes a group opened just before `from` (quotes skipped), or the text's end. */
function closingParen(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') i = indexOrEnd(text, c, i + 1);
    else if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** Moves the bodies of heredocs opened on the previous line into their commands; returns where to go on. */
function readHeredocBodies(
  text: string,
  from: number,
  pending: { delimiter: string; strip: boolean; command: ShellCommand }[],
): number {
  let at = from;
  for (const heredoc of pending) {
    const body: string[] = [];
    while (at < text.length) {
      const end = indexOrEnd(text, '\n', at);
      const line = text.slice(at, end);
      at = end + 1;
      if ((heredoc.strip ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) break;
      body.push(line);
    }
    heredoc.command.heredocs.push(body.join('\n'));
  }
  return at;
}
