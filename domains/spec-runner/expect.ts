/**
 * The subset of Jest's `expect` that exercise specs use. Runs inside the grading sandbox, so it imports
 * nothing but Node's `util` (for messages).
 */
import { inspect } from 'node:util';

export class AssertionError extends Error {
  override name = 'AssertionError';
}

const show = (value: unknown): string => inspect(value, { depth: 6, breakLength: Number.POSITIVE_INFINITY });

type Matcher = { asymmetricMatch(other: unknown): boolean; toString(): string };
const ASYMMETRIC = Symbol('asymmetric');
const isMatcher = (value: unknown): value is Matcher =>
  typeof value === 'object' && value !== null && ASYMMETRIC in value;

function matcher(description: string, test: (other: unknown) => boolean): Matcher {
  return { [ASYMMETRIC]: true, asymmetricMatch: test, toString: () => description } as Matcher;
}

/** Deep equality the way Jest's `toEqual` sees it (undefined properties ignored unless `strict`). */
export function equals(a: unknown, b: unknown, strict = false, seen = new Map<object, unknown>()): boolean {
  if (isMatcher(b)) return b.asymmetricMatch(a);
  if (isMatcher(a)) return a.asymmetricMatch(b);
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof RegExp && b instanceof RegExp) return String(a) === String(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !equals(v, b.get(k), strict, seen)) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const v of a) if (![...b].some((w) => equals(v, w, strict, seen))) return false;
    return true;
  }
  const keys = (o: object) =>
    Object.keys(o).filter((k) => strict || (o as Record<string, unknown>)[k] !== undefined);
  const ka = keys(a);
  const kb = keys(b);
  if (ka.length !== kb.length) return false;
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) &&
      equals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], strict, seen),
  );
}

function matchesObject(actual: unknown, expected: unknown): boolean {
  if (isMatcher(expected)) return expected.asymmetricMatch(actual);
  if (typeof expected !== 'object' || expected === null || typeof actual !== 'object' || actual === null) {
    return equals(actual, expected);
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => matchesObject(actual[i], e))
    );
  }
  return Object.entries(expected).every(
    ([k, v]) => k in actual && matchesObject((actual as Record<string, unknown>)[k], v),
  );
}

function thrownMatches(error: unknown, expected: unknown): boolean {
  if (expected === undefined) return true;
  if (isMatcher(expected)) return expected.asymmetricMatch(error);
  const message = error instanceof Error ? error.message : String(error);
  if (typeof expected === 'string') return message.includes(expected);
  if (expected instanceof RegExp) return expected.test(message);
  if (typeof expected === 'function') return error instanceof (expected as new () => unknown);
  if (expected instanceof Error) return message === expected.message;
  return false;
}

function property(
  value: unknown,
  path: string | readonly (string | number)[],
): { found: boolean; value: unknown } {
  const parts = typeof path === 'string' ? path.split('.') : path;
  let current: unknown = value;
  for (const part of parts) {
    if (
      current === null ||
      current === undefined ||
      !(Object(current) as object).hasOwnProperty.call(current, part)
    ) {
      if (current === null || current === undefined || !(part in Object(current)))
        return { found: false, value: undefined };
    }
    current = (current as Record<string | number, unknown>)[part];
  }
  return { found: true, value: current };
}

type Check = (actual: unknown, ...args: unknown[]) => { pass: boolean; message: string };

function thrownCheck(a: unknown, e: unknown): { pass: boolean; message: string } {
  if (typeof a !== 'function') return { pass: false, message: 'expected a function' };
  try {
    (a as () => unknown)();
  } catch (error) {
    return {
      pass: thrownMatches(error, e),
      message: `expected a throw matching ${show(e)}, got ${show(error)}`,
    };
  }
  return { pass: false, message: 'expected the function to throw' };
}

const lengthOf = (v: unknown): unknown => (v as { length?: unknown } | null)?.length;

/** The calls a mock function (`jest.fn()`, `jest.spyOn`) recorded, or null for anything else. */
const callsOf = (v: unknown): unknown[][] | null =>
  (typeof v === 'function' && (v as { mock?: { calls?: unknown[][] } }).mock?.calls) || null;
const notMock = (a: unknown) => ({ pass: false, message: `expected a mock function, got ${show(a)}` });
const called: Check = (a) => {
  const calls = callsOf(a);
  return calls ? { pass: calls.length > 0, message: `expected the mock to be called` } : notMock(a);
};
const calledTimes: Check = (a, n) => {
  const calls = callsOf(a);
  return calls
    ? { pass: calls.length === n, message: `expected ${show(n)} calls, got ${calls.length}` }
    : notMock(a);
};
const calledWith: Check = (a, ...args) => {
  const calls = callsOf(a);
  return calls
    ? {
        pass: calls.some((c) => equals(c, args)),
        message: `expected a call with ${show(args)}, got ${show(calls)}`,
      }
    : notMock(a);
};
const lastCalledWith: Check = (a, ...args) => {
  const calls = callsOf(a);
  return calls
    ? {
        pass: calls.length > 0 && equals(calls.at(-1), args),
        message: `expected the last call with ${show(args)}, got ${show(calls.at(-1))}`,
      }
    : notMock(a);
};

const CHECKS = {
  toBe: (a, e) => ({ pass: Object.is(a, e), message: `expected ${show(a)} to be ${show(e)}` }),
  toEqual: (a, e) => ({ pass: equals(a, e), message: `expected ${show(a)} to equal ${show(e)}` }),
  toStrictEqual: (a, e) => ({
    pass: equals(a, e, true),
    message: `expected ${show(a)} to strictly equal ${show(e)}`,
  }),
  toBeTruthy: (a) => ({ pass: Boolean(a), message: `expected ${show(a)} to be truthy` }),
  toBeFalsy: (a) => ({ pass: !a, message: `expected ${show(a)} to be falsy` }),
  toBeNull: (a) => ({ pass: a === null, message: `expected ${show(a)} to be null` }),
  toBeUndefined: (a) => ({ pass: a === undefined, message: `expected ${show(a)} to be undefined` }),
  toBeDefined: (a) => ({ pass: a !== undefined, message: `expected ${show(a)} to be defined` }),
  toBeNaN: (a) => ({ pass: Number.isNaN(a), message: `expected ${show(a)} to be NaN` }),
  toBeGreaterThan: (a, e) => ({
    pass: (a as number) > (e as number),
    message: `expected ${show(a)} > ${show(e)}`,
  }),
  toBeGreaterThanOrEqual: (a, e) => ({
    pass: (a as number) >= (e as number),
    message: `expected ${show(a)} >= ${show(e)}`,
  }),
  toBeLessThan: (a, e) => ({
    pass: (a as number) < (e as number),
    message: `expected ${show(a)} < ${show(e)}`,
  }),
  toBeLessThanOrEqual: (a, e) => ({
    pass: (a as number) <= (e as number),
    message: `expected ${show(a)} <= ${show(e)}`,
  }),
  toBeCloseTo: (a, e, digits = 2) => ({
    pass: Math.abs((a as number) - (e as number)) < 10 ** -(digits as number) / 2,
    message: `expected ${show(a)} to be close to ${show(e)}`,
  }),
  toBeInstanceOf: (a, e) => ({
    pass: a instanceof (e as new () => unknown),
    message: `expected ${show(a)} to be an instance of ${(e as { name?: string }).name}`,
  }),
  toContain: (a, e) => ({
    pass: typeof a === 'string' ? a.includes(e as string) : [...((a as Iterable<unknown>) ?? [])].includes(e),
    message: `expected ${show(a)} to contain ${show(e)}`,
  }),
  toContainEqual: (a, e) => ({
    pass: [...((a as Iterable<unknown>) ?? [])].some((item) => equals(item, e)),
    message: `expected ${show(a)} to contain an item equal to ${show(e)}`,
  }),
  toHaveLength: (a, e) => ({
    pass: lengthOf(a) === e,
    message: `expected length ${show(lengthOf(a))} to be ${show(e)}`,
  }),
  toMatch: (a, e) => ({
    pass: typeof a === 'string' && (e instanceof RegExp ? e.test(a) : a.includes(e as string)),
    message: `expected ${show(a)} to match ${show(e)}`,
  }),
  toMatchObject: (a, e) => ({
    pass: matchesObject(a, e),
    message: `expected ${show(a)} to match ${show(e)}`,
  }),
  toHaveProperty: (a, path, ...rest) => {
    const found = property(a, path as string);
    const pass = found.found && (rest.length === 0 || equals(found.value, rest[0]));
    return { pass, message: `expected ${show(a)} to have property ${show(path)}` };
  },
  toHaveBeenCalled: called,
  toBeCalled: called,
  toHaveBeenCalledTimes: calledTimes,
  toBeCalledTimes: calledTimes,
  toHaveBeenCalledWith: calledWith,
  toBeCalledWith: calledWith,
  toHaveBeenLastCalledWith: lastCalledWith,
  lastCalledWith,
  toThrow: (a: unknown, e?: unknown) => thrownCheck(a, e),
  toThrowError: (a: unknown, e?: unknown) => thrownCheck(a, e),
} satisfies Record<string, Check>;

/** Rethrows a rejected or resolved promise's value so `toThrow` can look at it. */
const thrower = (value: unknown) => () => {
  throw value;
};

type Assertions = Record<keyof typeof CHECKS, (...args: unknown[]) => unknown>;

/** Matchers a spec adds with `expect.extend`, beside the built-in ones. */
const extended: Record<string, Check> = {};
const allChecks = (): [string, Check][] => [...Object.entries(CHECKS), ...Object.entries(extended)];

function assertions(actual: unknown, negate: boolean, wrap?: (check: () => void) => unknown): Assertions {
  const out = {} as Assertions;
  for (const [name, check] of allChecks() as [keyof typeof CHECKS, Check][]) {
    out[name] = (...args: unknown[]) => {
      const run = (value: unknown): void => {
        const result = check(value, ...args);
        if (result.pass === negate)
          throw new AssertionError(negate ? `not: ${result.message}` : result.message);
      };
      return wrap ? wrap(() => run(actual)) : run(actual);
    };
  }
  return out;
}

function settled(actual: unknown, want: 'resolves' | 'rejects', negate: boolean): Assertions {
  const out = {} as Assertions;
  for (const [name] of allChecks() as [keyof typeof CHECKS, Check][]) {
    out[name] = async (...args: unknown[]) => {
      let value: unknown;
      try {
        value = await actual;
        if (want === 'rejects') throw new AssertionError('expected the promise to reject');
      } catch (error) {
        if (error instanceof AssertionError || want === 'resolves') throw error;
        value = name.startsWith('toThrow') ? thrower(error) : error;
      }
      assertions(value, negate)[name](...args);
    };
  }
  return out;
}

export function expect(actual: unknown) {
  return {
    ...assertions(actual, false),
    not: assertions(actual, true),
    resolves: { ...settled(actual, 'resolves', false), not: settled(actual, 'resolves', true) },
    rejects: { ...settled(actual, 'rejects', false), not: settled(actual, 'rejects', true) },
  };
}

expect.any = (type: unknown) =>
  matcher(`Any<${(type as { name?: string }).name}>`, (other) =>
    type === Number
      ? typeof other === 'number'
      : type === String
        ? typeof other === 'string'
        : type === Boolean
          ? typeof other === 'boolean'
          : other instanceof (type as new () => unknown),
  );
expect.anything = () => matcher('Anything', (other) => other !== null && other !== undefined);
expect.arrayContaining = (items: unknown[]) =>
  matcher(
    'ArrayContaining',
    (other) => Array.isArray(other) && items.every((i) => other.some((o) => equals(o, i))),
  );
expect.objectContaining = (shape: object) =>
  matcher('ObjectContaining', (other) => matchesObject(other, shape));
expect.stringContaining = (text: string) =>
  matcher('StringContaining', (other) => typeof other === 'string' && other.includes(text));
expect.stringMatching = (re: RegExp | string) =>
  matcher('StringMatching', (other) => typeof other === 'string' && new RegExp(re).test(other));
expect.assertions = (_n: number): void => {};
expect.hasAssertions = (): void => {};

/** What a custom matcher gets as `this`, as in Jest (the parts exercise specs use). */
const matcherContext = (isNot: boolean) => ({
  isNot,
  promise: '',
  equals: (a: unknown, b: unknown) => equals(a, b),
  utils: {
    printReceived: show,
    printExpected: show,
    stringify: show,
    matcherHint: (name: string) => `expect(received).${isNot ? 'not.' : ''}${name}(expected)`,
  },
});

type CustomMatcher = (
  this: ReturnType<typeof matcherContext>,
  received: unknown,
  ...args: unknown[]
) => { pass: boolean; message?: (() => string) | string };

/** Adds matchers, usable as `expect(x).name(...)`, `.not.name(...)` and `expect.name(...)` inside others. */
expect.extend = (matchers: Record<string, CustomMatcher>): void => {
  for (const [name, fn] of Object.entries(matchers)) {
    extended[name] = (actual, ...args) => {
      const result = fn.call(matcherContext(false), actual, ...args);
      const text = typeof result.message === 'function' ? result.message() : result.message;
      return { pass: Boolean(result.pass), message: text ?? `expected ${show(actual)} to pass ${name}` };
    };
    (expect as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
      matcher(name, (other) => Boolean(fn.call(matcherContext(false), other, ...args).pass));
  }
};
