import { existsSync } from 'node:fs';
import path from 'node:path';

/** The TypeScript track's compiler options (its exercises' tsconfig.json), for folders without one. */
const TRACK_OPTIONS = {
  lib: ['ES2020', 'dom'],
  module: 'Node16',
  target: 'ES2020',
  strict: true,
  esModuleInterop: true,
  skipLibCheck: true,
  forceConsistentCasingInFileNames: true,
  allowImportingTsExtensions: true,
  noEmit: true,
  isolatedModules: true,
};

/**
 * Type errors in the folder's TypeScript files, as `tsc --noEmit -p .` reports them: with the folder's
 * `tsconfig.json` when it has one, else the track's options. `nodeTypes` is `@types/node`'s folder, if any.
 */
export async function typeErrors(nodeTypes: string | undefined): Promise<string[]> {
  const ts = (await import('typescript')).default;
  const dir = process.cwd();
  const read = existsSync('tsconfig.json') ? ts.readConfigFile('tsconfig.json', ts.sys.readFile) : null;
  const json = (read?.config ?? {
    compilerOptions: TRACK_OPTIONS,
    include: ['**/*.ts', '**/*.tsx'],
    exclude: ['node_modules'],
  }) as { compilerOptions?: Record<string, unknown>; exclude?: string[] };
  // tstyche's type tests (`*.tst.ts`) need tstyche, which the sandbox does not have.
  json.exclude = [...(json.exclude ?? []), 'node_modules', '**/*.tst.ts'];
  json.compilerOptions = {
    ...json.compilerOptions,
    noEmit: true,
    ...(nodeTypes ? { typeRoots: [path.dirname(nodeTypes)], types: ['node'] } : { types: [] }),
  };
  const config = ts.parseJsonConfigFileContent(json, ts.sys, dir);
  const program = ts.createProgram(config.fileNames, config.options);
  const host = {
    getCanonicalFileName: (f: string) => f,
    getCurrentDirectory: () => dir,
    getNewLine: () => '\n',
  };
  return [...config.errors, ...ts.getPreEmitDiagnostics(program)].map((d) =>
    ts.formatDiagnostic(d, host).trim(),
  );
}
