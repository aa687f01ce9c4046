/**
 * Rust source as tokens, enough to find items, attributes and braces: comments are dropped; strings (raw,
 * byte, escaped), character literals and lifetimes are single tokens, so a brace or `#[test]` inside them
 * is never taken for code.
 */
export interface Token {
  kind: 'ident' | 'literal' | 'lifetime' | 'punct';
  text: string;
  /** Offsets in the source: [start, end). */
  start: number;
  end: number;
}

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT = /[A-Za-z0-9_\u0080-\uffff]/;

/** Tokens of `source`. Text it cannot read as Rust (an unterminated string) ends the list there. */
// Over 80 lines: a lexer's one loop over the source, a branch per kind of token.
export function lexRust(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const push = (kind: Token['kind'], start: number) =>
    tokens.push({ kind, text: source.slice(start, at), start, end: at });
  /** A quoted literal from `at` (on the opening quote); false when it does not end. */
  const quoted = (quote: string): boolean => {
    at++;
    while (at < source.length) {
      const c = source[at]!;
      if (c === '\\') at += 2;
      else if (c === quote) {
        at++;
        return true;
      } else at++;
    }
    return false;
  };
  /** A raw string from `at` (on the `r`): r"..", r#".."#, with any number of #. */
  const raw = (): boolean => {
    at++;
    let hashes = 0;
    while (source[at] === '#') {
      hashes++;
      at++;
    }
    if (source[at] !== '"') return false;
    const close = `"${'#'.repeat(hashes)}`;
    const end = source.indexOf(close, at + 1);
    if (end < 0) return false;
    at = end + close.length;
    return true;
  };
  while (at < source.length) {
    const c = source[at]!;
    const start = at;
    if (/\s/.test(c)) {
      at++;
    } else if (source.startsWith('//', at)) {
      const end = source.indexOf('\n', at);
      at = end < 0 ? source.length : end;
    } else if (source.startsWith('/*', at)) {
      let depth = 0;
      do {
        if (source.startsWith('/*', at)) {
          depth++;
          at += 2;
        } else if (source.startsWith('*/', at)) {
          depth--;
          at += 2;
        } else at++;
      } while (depth > 0 && at < source.length);
    } else if ((c === 'r' || c === 'b') && /^b?r#*"/.test(source.slice(at, at + 258))) {
      if (c === 'b') at++;
      if (!raw()) break;
      push('literal', start);
    } else if (c === '"' || (c === 'b' && source[at + 1] === '"')) {
      if (c === 'b') at++;
      if (!quoted('"')) break;
      push('literal', start);
    } else if (c === "'" || (c === 'b' && source[at + 1] === "'")) {
      if (c === 'b') at++;
      // A character literal ('a', '\n', '\u{1F600}') or a lifetime ('a, 'static).
      const next = source.codePointAt(at + 1) ?? 0;
      const width = next > 0xffff ? 2 : 1;
      if (source[at + 1] === '\\') {
        if (!quoted("'")) break;
        push('literal', start);
      } else if (source[at + 1 + width] === "'") {
        at += 2 + width;
        push('literal', start);
      } else {
        at++;
        while (at < source.length && IDENT.test(source[at]!)) at++;
        push('lifetime', start);
      }
    } else if (c === 'r' && source[at + 1] === '#' && IDENT_START.test(source[at + 2] ?? '')) {
      at += 2;
      while (at < source.length && IDENT.test(source[at]!)) at++;
      push('ident', start);
    } else if (IDENT.test(c)) {
      while (at < source.length && IDENT.test(source[at]!)) at++;
      push(/[0-9]/.test(c) ? 'literal' : 'ident', start);
    } else {
      at++;
      push('punct', start);
    }
  }
  return tokens;
}

/** The index of the token closing the group opened at `open` (`(`, `[` or `{`), or -1. */
export function closing(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== 'punct') continue;
    if ('([{'.includes(t.text)) depth++;
    else if (')]}'.includes(t.text) && --depth === 0) return i;
  }
  return -1;
}
