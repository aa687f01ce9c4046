import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './run-cli.ts';

/*
 * No source file over 400 lines and no function over 80 without a one-line reason in the code (see
 * docs/development.md, "Sizes"): a file says why in a comment among its first lines containing
 * "Over 400 lines:", a function in the comment just above it containing "Over 80 lines:". Tests are left
 * out (`*.test.ts`, `*.browser-test.ts`, `test/`, `testing/`): a describe callback is as long as its cases.
 */

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;
const FILE_REASON = 'Over 400 lines:';
const FUNCTION_REASON = 'Over 80 lines:';
/** How many lines at the top of a file its reason may stand in (after a shebang or the imports' start). */
const FILE_REASON_WITHIN = 5;

/**
 * Files being reshaped by other work right now, which may exceed without a reason until that work lands;
 * each entry names what is allowed and why. Remove an entry when its file is split or says why it is long.
 */
const ALLOWED: Record<string, string> = {};

const isTest = (file: string): boolean =>
  /\.(test|browser-test)\.ts$/.test(file) || file.startsWith('test/') || file.includes('/testing/');

const sourceFiles = (): string[] =>
  execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.mts', '*.mjs', '*.js'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && !isTest(file));

/** The lines of a text, as `wc -l` counts them. */
const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** The comment lines right above line `at` (0-based): the contiguous block of `//`, `/*`, `*` lines. */
function commentAbove(lines: readonly string[], at: number): string {
  const block: string[] = [];
  for (let i = at - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!/^(\/\/|\/\*|\*)/.test(line)) break;
    block.unshift(line);
  }
  return block.join('\n');
}

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/** What of `file` (its text given) is over the limits without a reason, one line each. */
function oversized(file: string, text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  const count = lineCount(text);
  if (count > MAX_FILE_LINES && !lines.slice(0, FILE_REASON_WITHIN).some((l) => l.includes(FILE_REASON)))
    found.push(`${file}: ${count} lines, with no "${FILE_REASON}" reason at its top`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const start = lineOf(node.getStart(source));
      const length = lineOf(node.getEnd()) - start + 1;
      if (length > MAX_FUNCTION_LINES && !commentAbove(lines, start).includes(FUNCTION_REASON))
        found.push(
          `${file}:${start + 1}: a function of ${length} lines, with no "${FUNCTION_REASON}" reason above it`,
        );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('sizes', () => {
  it('no file over 400 lines and no function over 80 without a reason in the code', () => {
    const found = sourceFiles()
      .filter((file) => ALLOWED[file] === undefined)
      .flatMap((file) => oversized(file, readFileSync(path.join(PROJECT_ROOT, file), 'utf8')));
    expect(found, 'split it, or say in one line why it is long (docs/development.md, "Sizes")').toEqual([]);
  });

  it('allows only files that exist and still exceed', () => {
    const stale = Object.keys(ALLOWED).filter((file) => {
      try {
        return oversized(file, readFileSync(path.join(PROJECT_ROOT, file), 'utf8')).length === 0;
      } catch {
        return true;
      }
    });
    expect(stale, 'remove these from ALLOWED').toEqual([]);
  });

  const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join('\n');
  it.each([
    ['a long function', `function f() {\n${body(80)}\n}\n`, 1],
    ['a long function with its reason', `// Over 80 lines: one loop.\nfunction f() {\n${body(80)}\n}\n`, 0],
    [
      'a reason inside a doc comment',
      `/**\n * Does f.\n * Over 80 lines: one loop.\n */\nconst f = () => {\n${body(80)}\n};\n`,
      0,
    ],
    ['a function of 80 lines', `function f() {\n${body(78)}\n}\n`, 0],
    ['a long file', `${body(401)}\n`, 1],
    ['a long file with its reason', `// Over 400 lines: one table.\n${body(401)}\n`, 0],
  ])('%s', (_, text, problems) => {
    expect(oversized('x.ts', text)).toHaveLength(problems);
  });
});
