/**
 * A small Jest-compatible runner for exercise specs, run inside the grading sandbox as
 * `node --import tsx runner.ts SPEC`, with a one-time token on standard input. Tests run the way
 * Exercism's track CI runs them: `xtest`, `xit` and `xdescribe` are enabled (the CI rewrites them to
 * `test` and `describe`), while `test.skip`, `it.skip`, `describe.skip` and `test.todo` stay skipped and
 * are not counted; `.only` runs like a plain test. With `--typecheck`, the TypeScript files are checked
 * first (the `typescript` package, the track's compiler options) and a type error fails the spec.
 *
 * The report (protocol.ts) is one line on stdout after the spec's own output: every test by its full name,
 * passed or not, and what the runner saw the solution change. The solution runs in this process, so:
 * - the token is read before the spec (and the solution it imports) loads, and is kept only here;
 * - every built-in the runner relies on was taken before then (intrinsics.ts), and the report is written
 *   with those, so a patched `Promise.race`, `Array.prototype.push`, `JSON.stringify` or `fs.writeSync`
 *   changes nothing in it; the line carries a digest of its content, so a changed line is seen;
 * - the runner's globals cannot be reassigned, and the built-ins, Node's output and loading functions and
 *   the globals' own properties are compared with a snapshot after loading, after each test and at the
 *   end (watch.ts): what changed is reported as tampering;
 * - the run ends through the exit taken before the spec loaded, so `exit` listeners never run after the
 *   report, and a solution that ends the process before it leaves no report at all.
 */
import { existsSync, readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { expect, redefinedMatchers } from './expect.ts';
import {
  ArrayIsArray,
  append,
  clearTimeoutCaptured,
  copied,
  cryptoCreateHash,
  ErrorCtor,
  guarded,
  HashDigest,
  HashUpdate,
  list,
  ObjectDefineProperty,
  PromiseCtor,
  ReflectApply,
  record,
  type Settled,
  StringCtor,
  StringPrototypeSlice,
  setTimeoutCaptured,
  settledValue,
} from './intrinsics.ts';
import { clearAllMocks, mockFn, resetAllMocks, spyOn } from './jest-mocks.ts';
import { moduleMocks } from './module-mocks.ts';
import { plainWorkers } from './plain-workers.ts';
import { RESULT_MARK, type SpecTest } from './protocol.ts';
import { reportJson, writeOut } from './report-line.ts';
import { eachName, fullName } from './test-name.ts';
import { typeErrors } from './type-check.ts';
import { watch } from './watch.ts';

const TEST_TIMEOUT_MS = 10_000;
/** Taken before the spec loads: the solution may replace `process.exit` and `process.reallyExit`. */
const reallyExit = (process as unknown as { reallyExit: (code: number) => never }).reallyExit;
const exitNow = (code: number): never => ReflectApply(reallyExit, process, [code]) as never;

type Fn = () => unknown;
interface Test {
  name: string;
  fn: Fn | undefined;
}
interface Block {
  name: string;
  tests: Test[];
  children: Block[];
  beforeAll: Fn[];
  afterAll: Fn[];
  beforeEach: Fn[];
  afterEach: Fn[];
}

const block = (name: string): Block =>
  record({
    name,
    tests: list<Test>(),
    children: list<Block>(),
    beforeAll: list<Fn>(),
    afterAll: list<Fn>(),
    beforeEach: list<Fn>(),
    afterEach: list<Fn>(),
  });

const root = block('');
let current = root;

/** A name as the spec gave it; anything but a string is shown as `String` shows it. */
const nameOf = (name: unknown): string => {
  if (typeof name === 'string') return name;
  try {
    return typeof name === 'function' ? StringCtor((name as { name?: unknown }).name) : StringCtor(name);
  } catch {
    return '(unnamed)';
  }
};

function describe(name: unknown, fn: Fn): void {
  const child = block(nameOf(name));
  append(current.children, child);
  const parent = current;
  current = child;
  try {
    ReflectApply(fn, undefined, []);
  } finally {
    current = parent;
  }
}

function test(name: unknown, fn?: Fn): void {
  append(current.tests, record({ name: nameOf(name), fn }));
}

type Table = ArrayLike<unknown>;
const each =
  (register: (name: string, fn: Fn) => void) =>
  (table: Table) =>
  (name: unknown, fn: (...args: unknown[]) => unknown) => {
    const rows = copied(table);
    const title = nameOf(name);
    for (let index = 0; index < rows.length; index++) {
      const row = rows[index];
      register(eachName(title, row, index), () =>
        ReflectApply(fn, undefined, ArrayIsArray(row) ? copied(row) : copied([row])),
      );
    }
  };

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

const hook = (which: 'beforeAll' | 'afterAll' | 'beforeEach' | 'afterEach') => (fn: Fn) => {
  append(current[which], fn);
};

const testFn = variants(test);
Object.assign(testFn, { todo: (_name: string) => {} });
const describeFn = variants(describe);
/** `jest.mock`, once `main` knows the spec's folder. */
let mockModule: (request: string, factory?: () => unknown) => void = () => {
  throw new ErrorCtor('jest.mock is called before the spec loads');
};

const jest = {
  fn: mockFn,
  spyOn,
  clearAllMocks,
  resetAllMocks,
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

/** Runs `fn` (a test or a hook) to its end, or to the time limit: how it settled, never a rejection. */
function settle(fn: Fn | undefined): Promise<Settled> {
  return guarded(
    new PromiseCtor<Settled>((resolve) => {
      const timer = setTimeoutCaptured(
        () =>
          resolve(record({ ok: false, value: new ErrorCtor(`test took longer than ${TEST_TIMEOUT_MS} ms`) })),
        TEST_TIMEOUT_MS,
      );
      const done = (outcome: Settled) => {
        clearTimeoutCaptured(timer);
        resolve(outcome);
      };
      if (fn === undefined) return done(record({ ok: false, value: new ErrorCtor('test has no body') }));
      let value: unknown;
      try {
        value = ReflectApply(fn, undefined, []);
      } catch (error) {
        return done(record({ ok: false, value: error }));
      }
      void finish(settledValue(value), done);
    }),
  );
}

/** Hands `done` how a value settled; `outcome` is `guarded`, so `await` consults nothing a solution set. */
async function finish(outcome: Promise<Settled>, done: (s: Settled) => void): Promise<void> {
  done(await outcome);
}

/** An error's message for the report: only a string `message` is believed, and it is cut to 500 chars. */
const messageOf = (error: unknown): string => {
  let text: unknown = error;
  try {
    if (typeof error === 'object' && error !== null) text = (error as { message?: unknown }).message;
    if (typeof text !== 'string') text = typeof error === 'string' ? error : StringCtor(text);
  } catch {
    text = '(an error that cannot be shown)';
  }
  return StringPrototypeSlice(text as string, 0, 500);
};

interface Run {
  tests: SpecTest[];
  tampering: string[];
  check: () => string[];
}

/** Notes what the watch sees changed now (each name once in the report). */
function checkTampering(run: Run): void {
  const changed = run.check();
  for (let i = 0; i < changed.length; i++) {
    let known = false;
    for (let j = 0; j < run.tampering.length && !known; j++) known = run.tampering[j] === changed[i];
    if (!known) append(run.tampering, changed[i] as string);
  }
}

function failAll(b: Block, scope: string[], why: string, run: Run): void {
  for (let i = 0; i < b.tests.length; i++)
    append(
      run.tests,
      record({ name: fullName(scope, (b.tests[i] as Test).name), passed: false, message: why }),
    );
  for (let i = 0; i < b.children.length; i++) {
    const child = b.children[i] as Block;
    failAll(child, withName(scope, child.name), why, run);
  }
}

const withName = (scope: string[], name: string): string[] => {
  const out = copied(scope);
  append(out, name);
  return out;
};

async function runBlock(b: Block, scope: string[], before: Fn[], after: Fn[], run: Run): Promise<void> {
  const names = b === root ? scope : withName(scope, b.name);
  const beforeEach = copied(before);
  for (let i = 0; i < b.beforeEach.length; i++) append(beforeEach, b.beforeEach[i] as Fn);
  const afterEach = copied(b.afterEach);
  for (let i = 0; i < after.length; i++) append(afterEach, after[i] as Fn);
  for (let i = 0; i < b.beforeAll.length; i++) {
    const outcome = await settle(b.beforeAll[i]);
    if (!outcome.ok) {
      failAll(b, names, `beforeAll failed: ${messageOf(outcome.value)}`, run);
      return;
    }
  }
  for (let i = 0; i < b.tests.length; i++) {
    const t = b.tests[i] as Test;
    let failure: unknown = null;
    let failed = false;
    for (let h = 0; h < beforeEach.length && !failed; h++) {
      const outcome = await settle(beforeEach[h]);
      if (!outcome.ok) {
        failed = true;
        failure = outcome.value;
      }
    }
    if (!failed) {
      const outcome = await settle(t.fn);
      if (!outcome.ok) {
        failed = true;
        failure = outcome.value;
      }
    }
    for (let h = 0; h < afterEach.length; h++) {
      const outcome = await settle(afterEach[h]);
      if (!outcome.ok && !failed) {
        failed = true;
        failure = outcome.value;
      }
    }
    const result: SpecTest = record({ name: fullName(names, t.name), passed: !failed });
    if (failed) result.message = messageOf(failure);
    append(run.tests, result);
    checkTampering(run);
  }
  for (let i = 0; i < b.children.length; i++)
    await guarded(runBlock(b.children[i] as Block, names, beforeEach, afterEach, run));
  for (let i = 0; i < b.afterAll.length; i++) await settle(b.afterAll[i]);
}

/** Writes the report line and ends the process, with no `exit` listener run after it. */
function report(token: string, tests: SpecTest[], tampering: string[]): never {
  const json = reportJson(tests, tampering);
  const hash = cryptoCreateHash('sha256');
  HashUpdate(hash, `${token}${json}`);
  writeOut(`\n${RESULT_MARK}${token} ${HashDigest(hash, 'hex')} ${json}\n`);
  return exitNow(0);
}

/**
 * Takes from the solution what would let it read this process's memory, where the token is: the heap
 * snapshots of `v8` and its flags (`--allow-natives-syntax`). The inspector, `process.binding`, native
 * addons and reading `/proc` are refused by Node's permission model, which the grader runs the runner under.
 */
function closeIntrospection(): void {
  const refused = (name: string) => () => {
    throw new ErrorCtor(`v8.${name} is not available to a graded solution`);
  };
  const target = v8 as unknown as Record<string, unknown>;
  for (const name of [
    'getHeapSnapshot',
    'writeHeapSnapshot',
    'setHeapSnapshotNearHeapLimit',
    'setFlagsFromString',
  ])
    if (typeof target[name] === 'function') target[name] = refused(name);
  Module.syncBuiltinESMExports();
}

async function main(specFile: string, typecheck: boolean, nodeTypes: string | undefined): Promise<void> {
  const token = readFileSync(0, 'utf8').trim();
  if (typecheck) {
    const errors = await typeErrors(nodeTypes).catch((error: unknown) => [
      `the type check did not run: ${messageOf(error)}`,
    ]);
    if (errors.length > 0) {
      writeOut(`${errors.join('\n')}\n`);
      const message = `${errors.length} type error(s); ${errors[0]}`;
      report(
        token,
        [{ name: '(type check)', passed: false, message: StringPrototypeSlice(message, 0, 500) }],
        [],
      );
    }
  }
  for (const [name, value] of Object.entries(globals)) {
    ObjectDefineProperty(globalThis, name, { value, writable: false, configurable: false });
  }
  const packageIsModule = existsSync('package.json') && /"module"/.test(readFileSync('package.json', 'utf8'));
  plainWorkers(packageIsModule);
  const specPath = path.resolve(specFile);
  if (!packageIsModule) mockModule = moduleMocks(specPath);
  // The spec's `@jest/globals` (written beside it by the grader), loaded now so the watch covers its exports.
  const jestGlobals = createRequire(specPath)('@jest/globals') as Record<string, unknown>;
  closeIntrospection();
  const run: Run = {
    tests: list<SpecTest>(),
    tampering: list<string>(),
    check: watch({ ...globals, '@jest/globals': jestGlobals }),
  };
  const outcome = await guarded(settledValue(import(pathToFileURL(specPath).href)));
  checkTampering(run);
  if (!outcome.ok) {
    append(
      run.tests,
      record({ name: '(loading the spec)', passed: false, message: messageOf(outcome.value) }),
    );
  } else {
    await guarded(runBlock(root, list<string>(), list<Fn>(), list<Fn>(), run));
  }
  checkTampering(run);
  const redefined = redefinedMatchers();
  for (let i = 0; i < redefined.length; i++) append(run.tampering, `expect.extend redefined ${redefined[i]}`);
  report(token, run.tests, run.tampering);
}

const started =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (started && process.argv[2] !== undefined)
  await main(process.argv[2], process.argv[3] === '--typecheck', process.argv[4]);
