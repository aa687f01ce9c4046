import path from 'node:path';

/** The module a spec with `jest.mock` calls imports first: those calls, in their order. */
export const MOCKS_MODULE = '__jest_mocks__.js';

/**
 * Moves a spec's top-level `jest.mock(…)` statements into a module it imports first, as Jest's babel
 * plugin hoists them above the imports, so the modules they replace are mocked before anything loads
 * them. Line numbers of the rest stay as they were. Null when the spec has no such statement.
 */
export async function hoistJestMocks(
  specFile: string,
  spec: string,
): Promise<{ spec: string; mocksFile: string; mocks: string } | null> {
  if (!spec.includes('jest.mock(')) return null;
  const ts = (await import('typescript')).default;
  const source = ts.createSourceFile(specFile, spec, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const hoisted = source.statements.filter(
    (s) =>
      ts.isExpressionStatement(s) &&
      ts.isCallExpression(s.expression) &&
      s.expression.expression.getText(source) === 'jest.mock',
  );
  if (hoisted.length === 0) return null;
  let rest = spec;
  for (const s of [...hoisted].reverse()) {
    const [start, end] = [s.getStart(source), s.getEnd()];
    rest = rest.slice(0, start) + rest.slice(start, end).replace(/[^\n]/g, '') + rest.slice(end);
  }
  return {
    spec: `import './${MOCKS_MODULE}'; ${rest}`,
    mocksFile: path.posix.join(path.posix.dirname(specFile), MOCKS_MODULE),
    mocks: `${hoisted.map((s) => s.getText(source)).join('\n')}\n`,
  };
}
