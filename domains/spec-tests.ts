import { createRequire } from 'node:module';
import type TypeScript from 'typescript';
import { eachName, fullName } from './spec-runner/test-name.ts';

const require = createRequire(import.meta.url);
let typescript: typeof TypeScript | undefined;
/** The compiler, loaded on first use (a second or so), as only JavaScript and TypeScript grading needs it. */
const ts = (): typeof TypeScript => {
  typescript ??= require('typescript') as typeof TypeScript;
  return typescript;
};

const DESCRIBE = new Set(['describe', 'xdescribe', 'fdescribe']);
const TEST = new Set(['test', 'it', 'xtest', 'xit', 'fit']);
/** Variants that register as the plain call does (the runner runs `.only` like a plain test). */
const SAME = new Set(['only', 'concurrent', 'failing']);
/** Variants that register nothing: the runner leaves them out, uncounted. */
const SKIPPED = new Set(['skip', 'todo']);

/** Why a spec's tests cannot be listed before it runs. */
class Unknowable extends Error {}

type Kind = 'describe' | 'test' | 'skipped';

/** What registers: `describe`, `test.only`, `it.skip`, …, or null for any other call. */
function kindOf(callee: TypeScript.Expression): Kind | null {
  const t = ts();
  if (t.isIdentifier(callee))
    return DESCRIBE.has(callee.text) ? 'describe' : TEST.has(callee.text) ? 'test' : null;
  if (t.isPropertyAccessExpression(callee)) {
    const base = kindOf(callee.expression);
    if (base === null || base === 'skipped') return base;
    if (SKIPPED.has(callee.name.text)) return 'skipped';
    if (SAME.has(callee.name.text)) return base;
  }
  return null;
}

/** A string the source spells out: a literal, a template without substitutions, or a `+` of them. */
function staticString(node: TypeScript.Expression): string {
  const t = ts();
  if (t.isStringLiteral(node) || t.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (t.isParenthesizedExpression(node)) return staticString(node.expression);
  if (t.isBinaryExpression(node) && node.operatorToken.kind === t.SyntaxKind.PlusToken)
    return staticString(node.left) + staticString(node.right);
  throw new Unknowable('a test name computed at run time');
}

/** A `test.each` table the source spells out as literals. */
function staticValue(node: TypeScript.Expression): unknown {
  const t = ts();
  if (t.isParenthesizedExpression(node) || t.isAsExpression(node)) return staticValue(node.expression);
  if (t.isStringLiteral(node) || t.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (t.isNumericLiteral(node)) return Number(node.text);
  if (t.isPrefixUnaryExpression(node) && node.operator === t.SyntaxKind.MinusToken) {
    const value = staticValue(node.operand);
    if (typeof value === 'number') return -value;
  }
  if (node.kind === t.SyntaxKind.TrueKeyword) return true;
  if (node.kind === t.SyntaxKind.FalseKeyword) return false;
  if (node.kind === t.SyntaxKind.NullKeyword) return null;
  if (t.isIdentifier(node) && node.text === 'undefined') return undefined;
  if (t.isArrayLiteralExpression(node)) return node.elements.map((e) => staticValue(e));
  if (t.isObjectLiteralExpression(node)) {
    const out: Record<string, unknown> = {};
    for (const p of node.properties) {
      if (!t.isPropertyAssignment(p) || !(t.isIdentifier(p.name) || t.isStringLiteral(p.name)))
        throw new Unknowable('a table row computed at run time');
      out[p.name.text] = staticValue(p.initializer);
    }
    return out;
  }
  throw new Unknowable('a test.each table computed at run time');
}

/** The body of a `describe` callback, or null when the callback is not a function written in place. */
function callbackBody(node: TypeScript.Expression | undefined): TypeScript.Node | null {
  const t = ts();
  if (node === undefined) return null;
  if (t.isArrowFunction(node) || t.isFunctionExpression(node)) return node.body;
  return null;
}

/**
 * The names of the tests a spec defines, as the runner reports them (`describe` names and the test's,
 * joined by ` › `), with `test.each` tables expanded and `.skip`/`.todo` left out; a name appears once per
 * test that carries it. Null when the spec's tests cannot be known before it runs: a name or a table
 * computed at run time, or tests defined inside a loop or a helper function.
 */
export function specTestNames(specFile: string, spec: string): string[] | null {
  const t = ts();
  const source = t.createSourceFile(specFile, spec, t.ScriptTarget.Latest, true, t.ScriptKind.TSX);
  const names: string[] = [];
  /** `inside`: the code runs as many times as something decides at run time (a loop, a helper). */
  const visit = (node: TypeScript.Node, scope: string[], inside: boolean): void => {
    if (t.isCallExpression(node)) {
      const eachCall = t.isCallExpression(node.expression) ? node.expression : null;
      const eachCallee =
        eachCall !== null &&
        t.isPropertyAccessExpression(eachCall.expression) &&
        eachCall.expression.name.text === 'each'
          ? eachCall.expression.expression
          : null;
      const kind = kindOf(eachCallee ?? node.expression);
      if (kind !== null) {
        if (kind === 'skipped') return;
        if (inside) throw new Unknowable('tests defined in a loop or a helper function');
        const [nameArg, fnArg] = node.arguments;
        if (nameArg === undefined) throw new Unknowable('a test without a name');
        const title = staticString(nameArg);
        let rows: unknown[] | null = null;
        if (eachCall !== null && eachCallee !== null) {
          const table = eachCall.arguments[0];
          const value = table === undefined ? undefined : staticValue(table);
          if (!Array.isArray(value)) throw new Unknowable('a test.each table computed at run time');
          rows = value;
        }
        const titles = rows === null ? [title] : rows.map((row, i) => eachName(title, row, i));
        if (kind === 'test') {
          for (const name of titles) names.push(fullName(scope, name));
          return;
        }
        const body = callbackBody(fnArg);
        if (body === null) throw new Unknowable('a describe block whose callback is not written in place');
        for (const name of titles) visit(body, [...scope, name], false);
        return;
      }
    }
    const loops =
      t.isForStatement(node) ||
      t.isForOfStatement(node) ||
      t.isForInStatement(node) ||
      t.isWhileStatement(node) ||
      t.isDoStatement(node) ||
      t.isFunctionLike(node);
    t.forEachChild(node, (child) => visit(child, scope, inside || loops));
  };
  try {
    visit(source, [], false);
  } catch (error) {
    if (error instanceof Unknowable) return null;
    throw error;
  }
  return names;
}
