/**
 * A small Jest-compatible runner for exercise specs, run inside the grading sandbox as
 * `node --import tsx runner.ts SPEC`, with a one-time token on standard input. Tests run the way
 * Exercism's track CI runs them: `xtest`, `xit` and `xdescribe` are enabled (the CI rewrites them to
 * `test` and `describe`), while `test.skip`, `it.skip`, `describe.skip` and `test.todo` stay skipped and
 * are not counted; `.only` runs like a plain test. With `--typecheck`, the TypeScript files are checked
 * first (the `typescript` package, the track's compiler options) and a type error fails the spec. Prints
 * one line `RESULT_MARK` + token + JSON `{passed, total, failures: [{name, message}]}` on stdout after
 * the spec's own output. The token is read before the spec (and the solution it imports) is loaded, and
 * the globals cannot be reassigned, so a solution cannot print or fake a passing result.
 */
import { existsSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from './expect.ts';
import { moduleMocks } from './module-mocks.ts';
import { plainWorkers } from './plain-workers.ts';
import { RESULT_MARK, type SpecOutcome } from './protocol.ts';

const TEST_TIMEOUT_MS = 10_000;
/** Taken before the spec loads, so a solution that replaces them changes nothing here. */
const stringify = JSON.stringify;

type Fn = () => unknown;
interface Block {
  name: string;
  tests: { name: string; fn: Fn | undefined }[];
  children: Block[];
  beforeAll: Fn[];
  afterAll: Fn[];
  beforeEach: Fn[];
  afterEach: Fn[];
}

const block = (name: string): Block => ({
  name,
  tests: [],
  children: [],
  beforeAll: [],
  afterAll: [],
  beforeEach: [],
  afterEach: [],
});

const root = block('');
let current = root;

function describe(name: string, fn: Fn): void {
  const child = block(name);
  current.children.push(child);
  const parent = current;
  current = child;
  try {
    fn();
  } finally {
    current = parent;
  }
}

function test(name: string, fn?: Fn): void {
  current.tests.push({ name, fn });
}

type Table = readonly unknown[];
function format(name: string, row: unknown, index: number): string {
  const values = Array.isArray(row) ? row : [row];
  let i = 0;
  return name
    .replace(/%[sdifjop#%]/g, (spec) =>
      spec === '%%' ? '%' : spec === '%#' ? String(index) : String(values[i++]),
    )
    .replace(/\$(\w+)/g, (m, key: string) =>
      typeof row === 'object' && row !== null && key in row
        ? String((row as Record<string, unknown>)[key])
        : m,
    );
}
const each =
  (register: (name: string, fn: Fn) => void) =>
  (table: Table) =>
  (name: string, fn: (...args: unknown[]) => unknown) =>
    table.forEach((row, index) => {
      register(format(name, row, index), () => (Array.isArray(row) ? fn(...row) : fn(row)));
    });

/** A test or block marked `.skip`: registered nowhere, so it neither runs nor counts. */
const skip = (_name: string, _fn?: unknown): void => {};
Object.assign(skip, { each: () => skip });

/** `test` or `describe` with its variants: `.only` registers normally, `.skip` is left out. */
function variants<T extends (name: string, fn: Fn) => void>(register: T) {
  const f = register as T & Record<string, unknown>;
  const eachOf = each(register);
  const only = Object.assign((name: string, fn: Fn) => register(name, fn), { each: eachOf });
  Object.assign(f, { skip, only, each: eachOf, concurrent: register, failing: register });
  return f;
}

const hook = (list: keyof Pick<Block, 'beforeAll' | 'afterAll' | 'beforeEach' | 'afterEach'>) => (fn: Fn) => {
  current[list].push(fn);
};

const testFn = variants(test);
Object.assign(testFn, { todo: (_name: string) => {} });
const describeFn = variants(describe);
type Mock = ((...args: unknown[]) => unknown) & { mockReset(): Mock; mockClear(): Mock };
const mocks: Mock[] = [];

/** A mock function as Jest makes one: it records its calls, and its implementation can be set or reset. */
function mockFn(impl?: (...args: unknown[]) => unknown): Mock {
  let current = impl;
  const calls: unknown[][] = [];
  const results: { type: 'return' | 'throw'; value: unknown }[] = [];
  const mock = function (this: unknown, ...args: unknown[]) {
    calls.push(args);
    try {
      const value = current?.apply(this, args);
      results.push({ type: 'return', value });
      return value;
    } catch (error) {
      results.push({ type: 'throw', value: error });
      throw error;
    }
  } as Mock;
  Object.assign(mock, {
    _isMockFunction: true,
    mock: { calls, results },
    mockImplementation: (f: (...args: unknown[]) => unknown) => {
      current = f;
      return mock;
    },
    mockReturnValue: (v: unknown) => {
      current = () => v;
      return mock;
    },
    mockClear: () => {
      calls.length = 0;
      results.length = 0;
      return mock;
    },
    mockReset: () => {
      current = undefined;
      return mock.mockClear();
    },
  });
  mocks.push(mock);
  return mock;
}

/** `jest.mock`, once `main` knows the spec's folder. */
let mockModule: (request: string, factory?: () => unknown) => void = () => {
  throw new Error('jest.mock is called before the spec loads');
};

const jest = {
  fn: mockFn,
  spyOn: (object: Record<string, unknown>, key: string) => {
    const original = object[key] as (...args: unknown[]) => unknown;
    const spy = mockFn(function (this: unknown, ...args: unknown[]) {
      return original.apply(this, args);
    });
    object[key] = Object.assign(spy, { mockRestore: () => (object[key] = original) });
    return spy;
  },
  clearAllMocks: () => {
    for (const m of mocks) m.mockClear();
  },
  resetAllMocks: () => {
    for (const m of mocks) m.mockReset();
  },
  restoreAllMocks: () => {},
  mock: (request: string, factory?: () => unknown) => mockModule(request, factory),
  setTimeout: () => {},
};

const globals = {
  describe: describeFn,
  xdescribe: describeFn,
  fdescribe: describeFn,
  test: testFn,
  it: testFn,
  xtest: testFn,
  xit: testFn,
  fit: testFn,
  expect,
  beforeAll: hook('beforeAll'),
  afterAll: hook('afterAll'),
  beforeEach: hook('beforeEach'),
  afterEach: hook('afterEach'),
  jest,
};

async function timed(fn: Fn): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`test took longer than ${TEST_TIMEOUT_MS} ms`)),
      TEST_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([Promise.resolve().then(fn), limit]);
  } finally {
    clearTimeout(timer);
  }
}

const message = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).slice(0, 500);

type Outcome = SpecOutcome;

function count(b: Block): number {
  return b.tests.length + b.children.reduce((n, c) => n + count(c), 0);
}

async function run(
  b: Block,
  names: string[],
  each: { before: Fn[]; after: Fn[] },
  out: Outcome,
): Promise<void> {
  const scope = b.name === '' ? names : [...names, b.name];
  const hooks = { before: [...each.before, ...b.beforeEach], after: [...b.afterEach, ...each.after] };
  try {
    for (const fn of b.beforeAll) await timed(fn);
  } catch (error) {
    const n = count(b);
    out.total += n;
    out.failures.push({ name: scope.join(' › '), message: `beforeAll failed: ${message(error)}` });
    return;
  }
  for (const t of b.tests) {
    out.total += 1;
    const name = [...scope, t.name].join(' › ');
    try {
      if (t.fn === undefined) throw new Error('test has no body');
      for (const fn of hooks.before) await timed(fn);
      await timed(t.fn);
      for (const fn of hooks.after) await timed(fn);
      out.passed += 1;
    } catch (error) {
      out.failures.push({ name, message: message(error) });
    }
  }
  for (const child of b.children) await run(child, scope, hooks, out);
  for (const fn of b.afterAll) await timed(fn).catch(() => {});
}

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
async function typeErrors(nodeTypes: string | undefined): Promise<string[]> {
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

async function main(specFile: string, typecheck: boolean, nodeTypes: string | undefined): Promise<void> {
  const token = readFileSync(0, 'utf8').trim();
  if (typecheck) {
    const errors = await typeErrors(nodeTypes).catch((error: unknown) => [
      `the type check did not run: ${message(error)}`,
    ]);
    if (errors.length > 0) {
      writeSync(1, `${errors.join('\n')}\n`);
      const failures = [{ name: '(type check)', message: `${errors.length} type error(s); ${errors[0]}` }];
      writeSync(1, `\n${RESULT_MARK}${token}${stringify({ passed: 0, total: 1, failures })}\n`);
      process.exit(0);
    }
  }
  for (const [name, value] of Object.entries(globals)) {
    Object.defineProperty(globalThis, name, { value, writable: false, configurable: false });
  }
  const out: Outcome = { passed: 0, total: 0, failures: [] };
  const packageIsModule = existsSync('package.json') && /"module"/.test(readFileSync('package.json', 'utf8'));
  plainWorkers(packageIsModule);
  if (!packageIsModule) mockModule = moduleMocks(path.resolve(specFile));
  try {
    await import(pathToFileURL(path.resolve(specFile)).href);
    await run(root, [], { before: [], after: [] }, out);
  } catch (error) {
    out.failures.push({ name: '(loading the spec)', message: message(error) });
    out.total = Math.max(out.total, 1);
  }
  writeSync(1, `\n${RESULT_MARK}${token}${stringify(out)}\n`);
  process.exit(0);
}

const started =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (started && process.argv[2] !== undefined)
  await main(process.argv[2], process.argv[3] === '--typecheck', process.argv[4]);
