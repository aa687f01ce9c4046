/** A tolerant JSON reader for model output: JSON5-style slips, cut-off text, linear time. */

/** An object still open when the text ended (the reply was cut off), with the keys it had so far. */
export type CutOffObject = { start: number; keys: string[] };

/**
 * The text being read, with memoised searches: `next(needle, from)` is the first occurrence at or after
 * `from` (-1 if none); each needle's occurrences are listed once. `budget` is how many more characters
 * object searches may parse: it bounds the work on hostile input (legitimate text uses a few times its
 * length); once spent, no more objects are looked for.
 */
export type Source = { text: string; next: (needle: string, from: number) => number; budget: number };

export function readSource(text: string): Source {
  const occurrences = new Map<string, number[]>();
  const next = (needle: string, from: number): number => {
    let found = occurrences.get(needle);
    if (!found) {
      found = [];
      for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) found.push(at);
      occurrences.set(needle, found);
    }
    let low = 0;
    let high = found.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (found[mid]! < from) low = mid + 1;
      else high = mid;
    }
    return found[low] ?? -1;
  };
  return { text, next, budget: 16 * text.length + 100_000 };
}

export type LenientParse = { ok: true; value: unknown } | { ok: false };

/**
 * JSON.parse, and on failure the lenient parser: comments, trailing commas, missing commas between
 * members, single-quoted and “smart-quoted” strings, unquoted keys, raw newlines in strings, Python's
 * True/False/None, and as a last try unescaped quotes inside strings.
 */
export function parseLenientJson(source: string): LenientParse {
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch {
    const src = readSource(source);
    const start = skipSpace(src, 0, source.length);
    for (const looseQuotes of [false, true]) {
      const parsed = parseValueAt(src, start, { looseQuotes });
      if (parsed.ok && skipSpace(src, parsed.end, source.length) === source.length) {
        return { ok: true, value: parsed.value };
      }
    }
    return { ok: false };
  }
}

export function isContainer(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Container = {
  start: number;
  object?: Record<string, unknown>;
  array?: unknown[];
  /** The key whose value is being read. */
  key?: string;
  expect: 'value' | 'key' | 'colon' | 'next';
};

export type ParsedValue = { ok: true; value: unknown; end: number };
type ValueParse = ParsedValue | { ok: false; at: number; atEnd: boolean; open: Container[] };

type ParseOptions = {
  /** Parse no further than this offset (default: the end of the text). */
  end?: number;
  /** At the end, right after a complete member, close the brackets still open (a block that lost its last `}`). */
  autoClose?: boolean;
  /** A quote ends a string only before `,` `}` `]` `:` or the end (repairs `"echo "hi""`). */
  looseQuotes?: boolean;
};

/**
 * Reads one lenient JSON value starting at `start`. Iterative (no recursion, any depth); stops at the
 * first error and reports it with the containers still open. Must not throw.
 */
export function parseValueAt(src: Source, start: number, options: ParseOptions = {}): ValueParse {
  const { text } = src;
  const limit = options.end ?? text.length;
  const stack: Container[] = [];
  const fail = (at: number): ValueParse => ({ ok: false, at, atEnd: at >= limit, open: stack });
  let i = start;
  for (;;) {
    i = skipSpace(src, i, limit);
    let top = stack[stack.length - 1];
    let value: unknown;
    if (i >= limit) {
      if (!options.autoClose || top?.expect !== 'next') return fail(limit);
      while (stack.length > 1) {
        const done = stack.pop()!;
        attach(stack, done.object ?? done.array);
      }
      const root = stack.pop()!;
      return { ok: true, value: root.object ?? root.array, end: limit };
    }
    const c = text[i]!;
    const expect = top?.expect ?? 'value';
    if (expect === 'colon') {
      if (c !== ':') return fail(i);
      top!.expect = 'value';
      i++;
      continue;
    }
    if (expect === 'next') {
      if (c === ',') {
        top!.expect = top!.object ? 'key' : 'value';
        i++;
        continue;
      }
      const missingComma = top!.object ? isQuote(c) || isWordStart(c.charCodeAt(0)) : '{["'.includes(c);
      if (!missingComma && c !== (top!.object ? '}' : ']')) return fail(i);
      if (missingComma) {
        top!.expect = top!.object ? 'key' : 'value';
        continue;
      }
    }
    if (expect === 'key' && c !== '}') {
      const key = isQuote(c) ? readString(text, i, limit, options.looseQuotes) : readWord(text, i, limit);
      if (!key.ok) return fail(key.at);
      top!.key = String(key.value);
      top!.expect = 'colon';
      i = key.end;
      continue;
    }
    if (c === '}' || c === ']') {
      if (!top || (c === '}' ? !top.object || top.expect === 'value' : !top.array)) return fail(i);
      stack.pop();
      value = top.object ?? top.array;
      i++;
    } else if (c === '{' || c === '[') {
      stack.push(
        c === '{' ? { start: i, object: {}, expect: 'key' } : { start: i, array: [], expect: 'value' },
      );
      i++;
      continue;
    } else {
      const scalar = readScalar(text, i, limit, options.looseQuotes);
      if (!scalar.ok) return fail(scalar.at);
      value = scalar.value;
      i = scalar.end;
    }
    top = stack[stack.length - 1];
    if (!top) return { ok: true, value, end: i };
    attach(stack, value);
  }
}

/** Puts a finished value into the innermost open container. */
function attach(stack: Container[], value: unknown): void {
  const top = stack[stack.length - 1]!;
  if (top.array) top.array.push(value);
  else if (top.key === '__proto__') {
    Object.defineProperty(top.object, top.key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else top.object![top.key!] = value;
  top.key = undefined;
  top.expect = 'next';
}

type Token = { ok: true; value: unknown; end: number } | { ok: false; at: number };

const LITERALS: Record<string, unknown> = {
  true: true,
  false: false,
  null: null,
  True: true,
  False: false,
  None: null,
};
const NUMBER = /[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/y;

function readScalar(text: string, i: number, limit: number, looseQuotes = false): Token {
  const c = text[i]!;
  if (isQuote(c)) return readString(text, i, limit, looseQuotes);
  if (isWordStart(c.charCodeAt(0))) {
    const word = readWord(text, i, limit);
    if (word.ok && typeof word.value === 'string' && Object.hasOwn(LITERALS, word.value)) {
      return { ok: true, value: LITERALS[word.value], end: word.end };
    }
    return { ok: false, at: i };
  }
  NUMBER.lastIndex = i;
  const match = NUMBER.exec(text);
  if (!match || NUMBER.lastIndex > limit) return { ok: false, at: i };
  const value = Number(match[0]);
  return Number.isFinite(value) ? { ok: true, value, end: NUMBER.lastIndex } : { ok: false, at: i };
}

/** An unquoted key or literal: letters, digits, `_` and `$`. */
function readWord(text: string, i: number, limit: number): Token {
  let end = i;
  while (end < limit && isWordChar(text.charCodeAt(end))) end++;
  return end > i ? { ok: true, value: text.slice(i, end), end } : { ok: false, at: i };
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '/': '/',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

/**
 * A string in double, single or smart quotes. Raw newlines are kept; an unknown escape such as `\d` or
 * a Windows path's `\U` keeps its backslash. Unterminated strings fail at the limit.
 */
function readString(text: string, i: number, limit: number, looseQuotes = false): Token {
  const close = text[i] === '“' ? '”' : text[i];
  let out = '';
  let chunk = i + 1;
  for (let j = i + 1; j < limit; j++) {
    const c = text[j];
    if (c === '\\') {
      if (j + 1 >= limit) break;
      out += text.slice(chunk, j);
      const next = text[j + 1]!;
      const hex = next === 'u' ? /^[0-9a-fA-F]{4}/.exec(text.slice(j + 2, Math.min(j + 6, limit))) : null;
      if (hex) {
        out += String.fromCharCode(Number.parseInt(hex[0], 16));
        j += 5;
      } else {
        out += ESCAPES[next] ?? `\\${next}`;
        j += 1;
      }
      chunk = j + 1;
    } else if (c === close && (!looseQuotes || endsString(text, j + 1, limit))) {
      return { ok: true, value: out + text.slice(chunk, j), end: j + 1 };
    }
  }
  return { ok: false, at: limit };
}

function endsString(text: string, i: number, limit: number): boolean {
  let at = i;
  while (at < limit && isSpace(text.charCodeAt(at))) at++;
  return at >= limit || ',}]:'.includes(text[at]!);
}

/** Skips whitespace and `//` and `/* *\/` comments. */
export function skipSpace(src: Source, i: number, limit: number): number {
  const { text } = src;
  let at = i;
  while (at < limit) {
    const code = text.charCodeAt(at);
    if (isSpace(code)) at++;
    else if (code === 47 && text[at + 1] === '/') {
      const newline = src.next('\n', at);
      at = newline === -1 || newline > limit ? limit : newline;
    } else if (code === 47 && text[at + 1] === '*') {
      const close = src.next('*/', at + 2);
      at = close === -1 || close + 2 > limit ? limit : close + 2;
    } else break;
  }
  return at;
}

export function isSpace(code: number): boolean {
  return code <= 32 || code === 0xa0 || code === 0xfeff || code === 0x2028 || code === 0x2029;
}

export function isQuote(c: string): boolean {
  return c === '"' || c === "'" || c === '“';
}

export function isWordStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36;
}

function isWordChar(code: number): boolean {
  return isWordStart(code) || (code >= 48 && code <= 57);
}

export function cutOffObjects(open: Container[]): CutOffObject[] {
  return open.flatMap((container) =>
    container.object
      ? [
          {
            start: container.start,
            keys: [...Object.keys(container.object), ...(container.key ? [container.key] : [])],
          },
        ]
      : [],
  );
}
