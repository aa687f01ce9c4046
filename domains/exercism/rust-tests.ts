import { closing, lexRust, type Token } from './rust-lexer.ts';

/**
 * The `#[test]` functions of a Rust test file, and the file rewritten so that each test reports its own
 * outcome through the grading harness (see rust-harness.ts) instead of libtest's shared output.
 */

export interface RustTest {
  /** Modules from the crate root to the test, and the function's name (`$name` inside a macro). */
  path: string[];
  name: string;
  /**
   * Whether the test may not be compiled in: under a `#[cfg(...)]` other than `cfg(test)` (a feature the
   * exercise leaves off), or written inside a macro. Such tests count only when the test binary lists them.
   */
  conditional: boolean;
  /** `#[should_panic]`: null when the test must not panic, '' for any panic, else the expected literal. */
  panics: string | null;
  /** Where to write the wrapper: the first attribute, the body's braces, the return type (or null). */
  attrStart: number;
  bodyOpen: number;
  bodyClose: number;
  returnType: string | null;
}

interface Attribute {
  name: string;
  /** Tokens inside the brackets, after the name. */
  args: Token[];
  start: number;
}

const QUALIFIERS = new Set(['pub', 'async', 'unsafe', 'const', 'extern', 'default']);

/** The attribute at `i` (on `#`), or null; `end` is the index after its `]`. */
function attributeAt(tokens: readonly Token[], i: number): { attr: Attribute; end: number } | null {
  if (tokens[i]?.text !== '#' || tokens[i + 1]?.text !== '[') return null;
  const close = closing(tokens, i + 1);
  if (close < 0) return null;
  const inside = tokens.slice(i + 2, close);
  return {
    attr: { name: inside[0]?.text ?? '', args: inside.slice(1), start: tokens[i]!.start },
    end: close + 1,
  };
}

/** Index of the first token after any inner attributes (`#![...]`) from `i`. */
function afterInnerAttributes(tokens: readonly Token[], i: number): number {
  while (tokens[i]?.text === '#' && tokens[i + 1]?.text === '!' && tokens[i + 2]?.text === '[') {
    const close = closing(tokens, i + 2);
    if (close < 0) return i;
    i = close + 1;
  }
  return i;
}

function shouldPanic(attrs: readonly Attribute[]): string | null {
  const attr = attrs.find((a) => a.name === 'should_panic');
  if (attr === undefined) return null;
  const args = attr.args;
  const at = args.findIndex((t, k) => t.text === '=' && args[k + 1]?.kind === 'literal');
  return at < 0 ? '' : args[at + 1]!.text;
}

const isConditional = (attrs: readonly Attribute[]) =>
  attrs.some((a) => a.name === 'cfg' && a.args.map((t) => t.text).join('') !== '(test)');

export interface TestFile {
  tests: RustTest[];
  /** Offsets where each module's items begin (the file's, then each inline `mod`'s). */
  moduleStarts: number[];
}

/** The tests of one file, in source order. */
export function findTests(source: string): TestFile {
  const tokens = lexRust(source);
  const tests: RustTest[] = [];
  const start = afterInnerAttributes(tokens, 0);
  const moduleStarts = [tokens[start]?.start ?? source.length];
  /** Open braces: a module's (its name, whether it is conditional) or any other. */
  const frames: { mod: string | null; conditional: boolean; until: number }[] = [];
  let pending: Attribute[] = [];
  let macroUntil = -1;
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    const attr = attributeAt(tokens, i);
    if (attr !== null) {
      pending.push(attr.attr);
      i = attr.end;
      continue;
    }
    if (t.text === 'macro_rules' && tokens[i + 1]?.text === '!' && tokens[i + 3] !== undefined) {
      macroUntil = Math.max(macroUntil, closing(tokens, i + 3));
      pending = [];
      i += 4;
      continue;
    }
    if (t.text === 'mod' && tokens[i + 1]?.kind === 'ident' && tokens[i + 2]?.text === '{') {
      const close = closing(tokens, i + 2);
      frames.push({ mod: tokens[i + 1]!.text, conditional: isConditional(pending), until: close });
      const first = afterInnerAttributes(tokens, i + 3);
      moduleStarts.push(tokens[first]?.start ?? tokens[i + 2]!.end);
      pending = [];
      i += 3;
      continue;
    }
    if (t.text === 'fn' && pending.some((a) => a.name === 'test' && a.args.length === 0)) {
      const nameAt = tokens[i + 1]?.text === '$' ? i + 2 : i + 1;
      const params = nameAt + 1;
      const paramsClose = tokens[params]?.text === '(' ? closing(tokens, params) : -1;
      let body = paramsClose + 1;
      while (paramsClose >= 0 && body < tokens.length && tokens[body]!.text !== '{') {
        body = '(['.includes(tokens[body]!.text) ? closing(tokens, body) + 1 : body + 1;
      }
      const bodyClose = body < tokens.length ? closing(tokens, body) : -1;
      if (paramsClose >= 0 && bodyClose >= 0) {
        const arrow = tokens[paramsClose + 1]?.text === '-' && tokens[paramsClose + 2]?.text === '>';
        const open = frames.filter((f) => f.until > i);
        tests.push({
          path: open.filter((f) => f.mod !== null).map((f) => f.mod!),
          name: tokens
            .slice(i + 1, nameAt + 1)
            .map((x) => x.text)
            .join(''),
          conditional:
            i < macroUntil || isConditional(pending) || open.some((f) => f.conditional || f.mod === null),
          panics: shouldPanic(pending),
          attrStart: pending[0]!.start,
          bodyOpen: tokens[body]!.end,
          bodyClose: tokens[bodyClose]!.start,
          returnType: arrow ? source.slice(tokens[paramsClose + 2]!.end, tokens[body]!.start).trim() : null,
        });
        pending = [];
        i = bodyClose + 1;
        continue;
      }
    }
    if (t.text === '{') frames.push({ mod: null, conditional: false, until: closing(tokens, i) });
    while (frames.length > 0 && frames[frames.length - 1]!.until <= i) frames.pop();
    if (!(QUALIFIERS.has(t.text) || (t.kind === 'literal' && tokens[i - 1]?.text === 'extern'))) pending = [];
    // `pub(crate)`: the group after `pub` belongs to the item too.
    i = t.text === 'pub' && tokens[i + 1]?.text === '(' ? closing(tokens, i + 1) + 1 : i + 1;
  }
  return { tests, moduleStarts };
}

/** The name a test file's crate gets (`tests/book-store.rs` → `book_store`). */
export const testCrateName = (file: string): string =>
  (file.split('/').pop() ?? file).replace(/\.rs$/, '').replaceAll('-', '_');

/** The tests a file surely defines, as the harness names them (`crate::module::test`). */
export function definedTests(file: string, source: string): string[] {
  return findTests(source)
    .tests.filter((t) => !t.conditional)
    .map((t) => [testCrateName(file), ...t.path, t.name].join('::'));
}

const prelude = (edition: string) => `#[allow(unused_imports)] use ::std::prelude::rust_${edition}::*; `;

/**
 * The file with each test wrapped: `harness::run(module, name, panics, |done| -> R { let v = { body };
 * done.set(true); v })`. The harness reports the outcome itself, so a test counts only when its body ran to
 * its end (a `return` a solution's macro expands to does not pass it). Each module also glob-imports the
 * standard prelude: a solution item named `Some`, `String` or `ToString` that a test's `use solution::*`
 * brings in is then ambiguous (a compile error) rather than silently replacing the standard one.
 */
export function wrapTests(source: string, harness: string, edition: string): string {
  const { tests, moduleStarts } = findTests(source);
  // At one offset, a module's prelude goes before a test's attribute: edits apply from the end, ties last.
  const edits: { at: number; text: string; module?: true }[] = moduleStarts.map((at) => ({
    at,
    text: prelude(edition),
    module: true,
  }));
  for (const t of tests) {
    const panics =
      t.panics === null
        ? '::std::option::Option::None'
        : `::std::option::Option::Some(${t.panics === '' ? '""' : t.panics})`;
    edits.push(
      { at: t.attrStart, text: '#[allow(unreachable_code, clippy::let_unit_value)] ' },
      {
        at: t.bodyOpen,
        text:
          ` crate::__graded_harness::run(::std::module_path!(), ::std::stringify!(${t.name}), ${panics}, ` +
          `|__graded_done: &::std::cell::Cell<bool>| -> ${t.returnType ?? '()'} { let __graded_value = {`,
      },
      { at: t.bodyClose, text: '}; __graded_done.set(true); __graded_value }) ' },
    );
  }
  edits.sort((a, b) => b.at - a.at || Number(a.module ?? false) - Number(b.module ?? false));
  let out = source;
  for (const edit of edits) out = out.slice(0, edit.at) + edit.text + out.slice(edit.at);
  return `${out}\n${harness}`;
}
