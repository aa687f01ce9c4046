/**
 * Tolerant JSON extraction from model text. Never throws: text that cannot be read is skipped.
 *
 * Sources, in this order: `<json>...</json>` blocks, then ```json fences, then bare top-level `{...}`
 * objects; each source in order of appearance. A candidate that lies inside an earlier-claimed region
 * (a fence inside a tag block, an object inside a fence) is not reported twice.
 */

export type JsonSource = 'tag' | 'fence' | 'bare';

export type JsonCandidate = { source: JsonSource; start: number; end: number; values: unknown[] };

export type JsonScan = {
  candidates: JsonCandidate[];
  /** Offset of a `<json>` tag that is never closed, if any. */
  unclosedTagAt?: number;
  /** Offset of the first top-level `{` whose object never closes (cut off), if any. */
  unbalancedAt?: number;
};

const TAG_OPEN = '<json>';
const TAG_CLOSE = '</json>';
const FENCE_OPEN = /```json[^\n`]*\n?/gi;
const FENCE_CLOSE = '```';

export function extractJsons(text: string): unknown[] {
  try {
    return scanJson(text).candidates.flatMap((c) => c.values);
  } catch {
    return [];
  }
}

export function scanJson(text: string): JsonScan {
  const claimed: [number, number][] = [];
  const isClaimed = (at: number) => claimed.some(([s, e]) => at >= s && at < e);
  const tagged: JsonCandidate[] = [];
  const fenced: JsonCandidate[] = [];
  const bare: JsonCandidate[] = [];
  let unclosedTagAt: number | undefined;

  for (let at = text.indexOf(TAG_OPEN); at !== -1; at = text.indexOf(TAG_OPEN, at + 1)) {
    if (isClaimed(at)) continue;
    const contentStart = at + TAG_OPEN.length;
    const contentEnd = findBlockEnd(text, contentStart, TAG_CLOSE);
    if (contentEnd === -1) {
      unclosedTagAt = at;
      claimed.push([at, text.length]);
      break;
    }
    const end = contentEnd + TAG_CLOSE.length;
    claimed.push([at, end]);
    tagged.push({ source: 'tag', start: at, end, values: parseBlock(text.slice(contentStart, contentEnd)) });
  }

  for (const match of text.matchAll(FENCE_OPEN)) {
    const at = match.index;
    if (isClaimed(at)) continue;
    const contentStart = at + match[0].length;
    const found = findBlockEnd(text, contentStart, FENCE_CLOSE);
    const contentEnd = found === -1 ? text.length : found;
    const end = found === -1 ? text.length : found + FENCE_CLOSE.length;
    claimed.push([at, end]);
    fenced.push({
      source: 'fence',
      start: at,
      end,
      values: parseBlock(text.slice(contentStart, contentEnd)),
    });
  }

  let unbalancedAt: number | undefined;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) {
    const region = claimed.find(([s, e]) => at >= s && at < e);
    if (region) {
      at = region[1] - 1;
      continue;
    }
    const end = matchBalanced(text, at);
    if (end === -1) {
      unbalancedAt ??= at;
      continue;
    }
    const parsed = parseLenientJson(text.slice(at, end));
    if (parsed.ok && isPlainObject(parsed.value)) {
      bare.push({ source: 'bare', start: at, end, values: [parsed.value] });
      at = end - 1;
    }
  }

  const candidates = [...tagged, ...fenced, ...bare].filter((c) => c.values.length > 0);
  return { candidates, unclosedTagAt, unbalancedAt };
}

/**
 * End offset of a block's content: the first `close` marker after the JSON value that starts the block
 * (so a marker inside a string of that value does not end it), or after `from` when no value starts there.
 * -1 when the block is never closed.
 */
function findBlockEnd(text: string, from: number, close: string): number {
  let valueStart = from;
  while (valueStart < text.length && /\s/.test(text[valueStart]!)) valueStart++;
  const opener = text[valueStart];
  if (opener === '{' || opener === '[') {
    const valueEnd = matchBalanced(text, valueStart);
    if (valueEnd !== -1) {
      const after = text.indexOf(close, valueEnd);
      if (after !== -1) return after;
    }
  }
  return text.indexOf(close, from);
}

/** Parses a block's content as one value, else every balanced object inside it. */
function parseBlock(content: string): unknown[] {
  const whole = parseLenientJson(content.trim());
  if (whole.ok) return [whole.value];
  const values: unknown[] = [];
  for (let at = content.indexOf('{'); at !== -1; at = content.indexOf('{', at + 1)) {
    const end = matchBalanced(content, at);
    if (end === -1) continue;
    const parsed = parseLenientJson(content.slice(at, end));
    if (parsed.ok) {
      values.push(parsed.value);
      at = end - 1;
    }
  }
  return values;
}

/**
 * Index just past the bracket that closes the one at `start`, or -1 if it never closes. Aware of
 * double- and single-quoted strings (with escapes) and of // and /* *\/ comments.
 */
export function matchBalanced(text: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      i = skipString(text, i);
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      const newline = text.indexOf('\n', i);
      i = newline === -1 ? text.length : newline;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close === -1 ? text.length : close + 2;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** Index just past the closing quote of the string starting at `start` (text length if unterminated). */
function skipString(text: string, start: number): number {
  const quote = text[start];
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return text.length;
}

export type LenientParse = { ok: true; value: unknown } | { ok: false };

/**
 * JSON.parse, and on failure a second try after repairing common slips: comments, trailing commas,
 * single-quoted strings, unquoted keys, raw newlines in strings, Python's True/False/None.
 */
export function parseLenientJson(source: string): LenientParse {
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch {
    try {
      return { ok: true, value: JSON.parse(repairJson(source)) };
    } catch {
      return { ok: false };
    }
  }
}

const PYTHON_WORDS: Record<string, string> = { True: 'true', False: 'false', None: 'null' };

function repairJson(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '"' || c === "'") {
      const end = skipString(src, i);
      out += requoteString(src.slice(i, end));
      i = end;
    } else if (c === '/' && (src[i + 1] === '/' || src[i + 1] === '*')) {
      i = skipComment(src, i);
    } else if (c === ',') {
      const next = src[skipSpaceAndComments(src, i + 1)];
      if (next !== '}' && next !== ']') out += c;
      i++;
    } else if (/[-\d.]/.test(c)) {
      const number = /^[-+\d.eE]+/.exec(src.slice(i))![0];
      out += number;
      i += number.length;
    } else if (/[A-Za-z_$]/.test(c)) {
      const word = /^[\w$]+/.exec(src.slice(i))![0];
      i += word.length;
      if (src[skipSpaceAndComments(src, i)] === ':') out += JSON.stringify(word);
      else out += PYTHON_WORDS[word] ?? word;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function skipComment(src: string, i: number): number {
  if (src[i + 1] === '/') {
    const newline = src.indexOf('\n', i);
    return newline === -1 ? src.length : newline;
  }
  const close = src.indexOf('*/', i + 2);
  return close === -1 ? src.length : close + 2;
}

function skipSpaceAndComments(src: string, i: number): number {
  let at = i;
  while (at < src.length) {
    if (/\s/.test(src[at]!)) at++;
    else if (src[at] === '/' && (src[at + 1] === '/' || src[at + 1] === '*')) at = skipComment(src, at);
    else break;
  }
  return at;
}

/** Rewrites a single- or double-quoted string literal as a valid JSON string literal. */
function requoteString(literal: string): string {
  const quote = literal[0];
  const closed = literal.length >= 2 && literal.endsWith(quote!);
  const body = literal.slice(1, closed ? -1 : undefined);
  let out = '"';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      const next = body[i + 1];
      i++;
      if (next === undefined) out += '\\\\';
      else if (next === "'") out += "'";
      else if ('"\\/bfnrtu'.includes(next)) out += `\\${next}`;
      else out += `\\\\${next}`;
    } else if (c === '"') out += '\\"';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c < ' ') out += `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
