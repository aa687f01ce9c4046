/**
 * The part of TOML that Cargo manifests use: tables, arrays of tables, dotted and quoted keys, strings
 * (basic, literal, multi-line), integers, floats, booleans, arrays and inline tables. Dates and times are
 * not read. A grader reads a manifest with it to decide what Cargo will see, so anything it cannot read
 * exactly is an error, never a guess.
 */

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export class TomlError extends Error {}

const BARE_KEY = /[A-Za-z0-9_-]/;
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

const isTable = (value: TomlValue | undefined): value is TomlTable =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses `text`; throws TomlError (with the line) on anything outside the subset or not TOML. */
// Over 80 lines: a recursive-descent parser whose helpers share one position in the text.
export function parseToml(text: string): TomlTable {
  let at = 0;
  const line = () => text.slice(0, at).split('\n').length;
  const fail = (why: string): never => {
    throw new TomlError(`line ${line()}: ${why}`);
  };
  const peek = (n = 0) => text[at + n] ?? '';
  const skipSpace = () => {
    while (peek() === ' ' || peek() === '\t') at++;
  };
  const skipComment = () => {
    if (peek() === '#') while (at < text.length && peek() !== '\n') at++;
  };
  /** Spaces, comments and newlines, as inside arrays. */
  const skipBlank = () => {
    for (;;) {
      skipSpace();
      skipComment();
      if (peek() === '\n' || peek() === '\r') at++;
      else return;
    }
  };
  const endOfLine = () => {
    skipSpace();
    skipComment();
    if (peek() === '\r') at++;
    if (at < text.length && peek() !== '\n') fail(`unexpected ${JSON.stringify(peek())}`);
    at++;
  };

  const basicString = (): string => {
    const multi = text.startsWith('"""', at);
    at += multi ? 3 : 1;
    if (multi && peek() === '\n') at++;
    let out = '';
    for (;;) {
      if (at >= text.length) fail('unterminated string');
      if (multi ? text.startsWith('"""', at) : peek() === '"') {
        at += multi ? 3 : 1;
        return out;
      }
      const c = peek();
      if (c === '\n' && !multi) fail('newline in a string');
      if (c !== '\\') {
        out += c;
        at++;
        continue;
      }
      const e = peek(1);
      if (e in ESCAPES) {
        out += ESCAPES[e];
        at += 2;
      } else if (e === 'u' || e === 'U') {
        const digits = text.slice(at + 2, at + (e === 'u' ? 6 : 10));
        if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== (e === 'u' ? 4 : 8)) fail('bad \\u escape');
        out += String.fromCodePoint(Number.parseInt(digits, 16));
        at += 2 + digits.length;
      } else if (multi && /[ \t\r\n]/.test(e)) {
        at++;
        while (/[ \t\r\n]/.test(peek())) at++;
      } else fail(`bad escape \\${e}`);
    }
  };
  const literalString = (): string => {
    const multi = text.startsWith("'''", at);
    at += multi ? 3 : 1;
    if (multi && peek() === '\n') at++;
    const end = text.indexOf(multi ? "'''" : "'", at);
    if (end < 0) fail('unterminated string');
    const out = text.slice(at, end);
    if (!multi && out.includes('\n')) fail('newline in a string');
    at = end + (multi ? 3 : 1);
    return out;
  };
  const key = (): string => {
    skipSpace();
    if (peek() === '"') return basicString();
    if (peek() === "'") return literalString();
    const start = at;
    while (BARE_KEY.test(peek())) at++;
    if (at === start) fail(`a key was expected, not ${JSON.stringify(peek())}`);
    return text.slice(start, at);
  };
  const dottedKey = (): string[] => {
    const parts = [key()];
    for (;;) {
      skipSpace();
      if (peek() !== '.') return parts;
      at++;
      parts.push(key());
    }
  };
  const value = (): TomlValue => {
    skipSpace();
    const c = peek();
    if (c === '"') return basicString();
    if (c === "'") return literalString();
    if (c === '[') {
      at++;
      const items: TomlValue[] = [];
      for (;;) {
        skipBlank();
        if (peek() === ']') break;
        items.push(value());
        skipBlank();
        if (peek() === ',') at++;
        else if (peek() !== ']') fail('"," or "]" expected in an array');
      }
      at++;
      return items;
    }
    if (c === '{') {
      at++;
      const table: TomlTable = {};
      skipSpace();
      if (peek() === '}') {
        at++;
        return table;
      }
      for (;;) {
        const path = dottedKey();
        skipSpace();
        if (peek() !== '=') fail('"=" expected');
        at++;
        assign(table, path, value());
        skipSpace();
        if (peek() === ',') at++;
        else if (peek() === '}') {
          at++;
          return table;
        } else fail('"," or "}" expected in an inline table');
      }
    }
    const word = /^[A-Za-z0-9_+.:-]+/.exec(text.slice(at))?.[0] ?? '';
    at += word.length;
    if (word === 'true' || word === 'false') return word === 'true';
    if (/^[+-]?(0|[1-9](_?[0-9])*)$/.test(word)) return Number(word.replaceAll('_', ''));
    if (/^[+-]?(0|[1-9](_?[0-9])*)(\.[0-9](_?[0-9])*)?([eE][+-]?[0-9]+)?$/.test(word))
      return Number(word.replaceAll('_', ''));
    return fail(`a value this reader does not take: ${JSON.stringify(word || peek())}`);
  };
  /** Sets `path` in `table`, creating tables on the way; a key set twice is an error, as in TOML. */
  const assign = (table: TomlTable, path: string[], v: TomlValue) => {
    let here = table;
    for (const part of path.slice(0, -1)) {
      const next = here[part] ?? {};
      if (!isTable(next)) fail(`${part} is not a table`);
      here[part] = next;
      here = next as TomlTable;
    }
    const last = path[path.length - 1]!;
    if (last in here) fail(`${path.join('.')} is defined twice`);
    here[last] = v;
  };
  /** The table a `[header]` or `[[header]]` names, made if new. */
  const openTable = (path: string[], arrayItem: boolean): TomlTable => {
    let here = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      let next = here[part];
      if (last && arrayItem) {
        if (next === undefined) here[part] = next = [];
        if (!Array.isArray(next)) fail(`${path.join('.')} is not an array of tables`);
        const item: TomlTable = {};
        (next as TomlValue[]).push(item);
        here = item;
        return;
      }
      if (next === undefined) here[part] = next = {};
      if (Array.isArray(next)) next = next[next.length - 1];
      if (!isTable(next)) fail(`${path.join('.')} is not a table`);
      here = next as TomlTable;
    });
    return here;
  };

  const root: TomlTable = {};
  let current = root;
  while (at < text.length) {
    skipBlank();
    if (at >= text.length) break;
    if (peek() === '[') {
      const arrayItem = peek(1) === '[';
      at += arrayItem ? 2 : 1;
      const path = dottedKey();
      skipSpace();
      if (!text.startsWith(arrayItem ? ']]' : ']', at)) fail('"]" expected');
      at += arrayItem ? 2 : 1;
      current = openTable(path, arrayItem);
      endOfLine();
      continue;
    }
    const path = dottedKey();
    skipSpace();
    if (peek() !== '=') fail('"=" expected');
    at++;
    assign(current, path, value());
    endOfLine();
  }
  return root;
}

const keyText = (key: string) => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key));

function inline(value: TomlValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  return `{ ${Object.entries(value)
    .map(([k, v]) => `${keyText(k)} = ${inline(v)}`)
    .join(', ')} }`;
}

const isTableArray = (value: TomlValue): value is TomlTable[] =>
  Array.isArray(value) && value.length > 0 && value.every(isTable);

/** TOML text for `table`: what parseToml reads back as the same value. */
export function stringifyToml(table: TomlTable, path: string[] = []): string {
  const lines: string[] = [];
  const nested: string[] = [];
  for (const [key, value] of Object.entries(table)) {
    const here = [...path, keyText(key)];
    if (isTable(value)) nested.push(`[${here.join('.')}]\n${stringifyToml(value, here)}`);
    else if (isTableArray(value))
      for (const item of value) nested.push(`[[${here.join('.')}]]\n${stringifyToml(item, here)}`);
    else lines.push(`${keyText(key)} = ${inline(value)}`);
  }
  const own = lines.length > 0 ? `${lines.join('\n')}\n` : '';
  return [own, ...nested].filter((part) => part !== '').join('\n');
}

/** Whether two TOML values are the same. */
export function sameToml(a: TomlValue | undefined, b: TomlValue | undefined): boolean {
  if (a === undefined || b === undefined || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameToml(v, b[i]))
    );
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => sameToml(a[k], b[k]));
}
