/**
 * The subset of Jest's `expect` that exercise specs use. Runs inside the grading sandbox beside the solution,
 * so every built-in it calls was taken before the solution loaded (intrinsics.ts): a solution that patches
 * `Object.is`, `Array.prototype.every` or `Object.keys` does not change what a matcher decides. Only
 * asymmetric matchers this module made (`expect.any`, `expect.objectContaining`, …) match asymmetrically, so
 * a value that merely looks like one (a solution's object with `asymmetricMatch`) is compared as a value.
 */

import {
  argsOf,
  type Check,
  equals,
  isMatcher,
  itemsOfSet,
  type Matcher,
  matcher,
  matchesObject,
  type Outcome,
  show,
} from './equality.ts';
import {
  ArrayIsArray,
  append,
  BooleanCtor,
  copied,
  ErrorCtor,
  guarded,
  isNativeError,
  isRegExp,
  isSet,
  list,
  MapCtor,
  MapPrototypeGet,
  MapPrototypeHas,
  MapPrototypeSet,
  MathAbs,
  NumberIsNaN,
  ObjectCtor,
  ObjectDefineProperty,
  ObjectHasOwn,
  ObjectIs,
  ObjectKeys,
  OrdinaryHasInstance,
  ReflectApply,
  RegExpCtor,
  RegExpFlags,
  RegExpPrototypeExec,
  RegExpSource,
  record,
  StringCtor,
  StringPrototypeIncludes,
  StringPrototypeSplit,
  settledValue,
} from './intrinsics.ts';

export { equals } from './equality.ts';
export { recognizeMocks } from './mock-checks.ts';

import { called, calledTimes, calledWith, lastCalledWith } from './mock-checks.ts';

export class AssertionError extends ErrorCtor {
  override name = 'AssertionError';
}

/** An error's message, only when it is a string (a getter that returns something else gives ''). */
function messageOf(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error !== 'object' || error === null) return StringCtor(error);
  const m = (error as { message?: unknown }).message;
  return typeof m === 'string' ? m : '';
}

function thrownMatches(error: unknown, expected: unknown): boolean {
  if (expected === undefined) return true;
  if (isMatcher(expected)) return BooleanCtor(expected.asymmetricMatch(error));
  const message = messageOf(error);
  if (typeof expected === 'string') return StringPrototypeIncludes(message, expected);
  if (isRegExp(expected)) return RegExpPrototypeExec(expected, message) !== null;
  if (typeof expected === 'function') return OrdinaryHasInstance(expected, error);
  if (isNativeError(expected) || OrdinaryHasInstance(ErrorCtor, expected))
    return message === messageOf(expected);
  return false;
}

function property(
  value: unknown,
  path: string | readonly (string | number)[],
): { found: boolean; value: unknown } {
  const parts = typeof path === 'string' ? StringPrototypeSplit(path, '.') : copied(path);
  let current: unknown = value;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string | number;
    if (current === null || current === undefined) return { found: false, value: undefined };
    if (!ObjectHasOwn(ObjectCtor(current), part) && !(part in ObjectCtor(current)))
      return { found: false, value: undefined };
    current = (current as Record<string | number, unknown>)[part];
  }
  return { found: true, value: current };
}

function thrownCheck(a: unknown, e: unknown): Outcome {
  if (typeof a !== 'function') return { pass: false, message: 'expected a function' };
  try {
    ReflectApply(a, undefined, []);
  } catch (error) {
    return {
      pass: thrownMatches(error, e),
      message: `expected a throw matching ${show(e)}, got ${show(error)}`,
    };
  }
  return { pass: false, message: 'expected the function to throw' };
}

const lengthOf = (v: unknown): unknown =>
  v === null || v === undefined ? undefined : (v as { length?: unknown }).length;

const isNumeric = (v: unknown): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
/** A comparison of numbers (Jest refuses others), so no `valueOf` a solution wrote decides it. */
const compare =
  (op: string, holds: (a: number | bigint, e: number | bigint) => boolean): Check =>
  (a, e) =>
    isNumeric(a) && isNumeric(e)
      ? { pass: holds(a, e), message: `expected ${show(a)} ${op} ${show(e)}` }
      : { pass: false, message: `expected numbers, got ${show(a)} and ${show(e)}` };

function contains(a: unknown, e: unknown, same: (x: unknown, y: unknown) => boolean): boolean {
  if (typeof a === 'string') return typeof e === 'string' && StringPrototypeIncludes(a, e);
  if (a === null || a === undefined) return false;
  const items = ArrayIsArray(a) ? a : isSet(a) ? itemsOfSet(a) : copied([...(a as Iterable<unknown>)]);
  for (let i = 0; i < items.length; i++) if (same(items[i], e)) return true;
  return false;
}

const CHECKS = record({
  toBe: (a, e) => ({ pass: ObjectIs(a, e), message: `expected ${show(a)} to be ${show(e)}` }),
  toEqual: (a, e) => ({ pass: equals(a, e), message: `expected ${show(a)} to equal ${show(e)}` }),
  toStrictEqual: (a, e) => ({
    pass: equals(a, e, true),
    message: `expected ${show(a)} to strictly equal ${show(e)}`,
  }),
  toBeTruthy: (a) => ({ pass: BooleanCtor(a), message: `expected ${show(a)} to be truthy` }),
  toBeFalsy: (a) => ({ pass: !a, message: `expected ${show(a)} to be falsy` }),
  toBeNull: (a) => ({ pass: a === null, message: `expected ${show(a)} to be null` }),
  toBeUndefined: (a) => ({ pass: a === undefined, message: `expected ${show(a)} to be undefined` }),
  toBeDefined: (a) => ({ pass: a !== undefined, message: `expected ${show(a)} to be defined` }),
  toBeNaN: (a) => ({ pass: NumberIsNaN(a), message: `expected ${show(a)} to be NaN` }),
  toBeGreaterThan: compare('>', (a, e) => a > e),
  toBeGreaterThanOrEqual: compare('>=', (a, e) => a >= e),
  toBeLessThan: compare('<', (a, e) => a < e),
  toBeLessThanOrEqual: compare('<=', (a, e) => a <= e),
  toBeCloseTo: (a, e, digits = 2) => ({
    pass:
      typeof a === 'number' &&
      typeof e === 'number' &&
      typeof digits === 'number' &&
      MathAbs(a - e) < 10 ** -digits / 2,
    message: `expected ${show(a)} to be close to ${show(e)}`,
  }),
  toBeInstanceOf: (a, e) => ({
    pass: OrdinaryHasInstance(e, a),
    message: `expected ${show(a)} to be an instance of ${show(e)}`,
  }),
  toContain: (a, e) => ({
    pass: contains(a, e, (x, y) => ObjectIs(x, y) || (x === 0 && y === 0)),
    message: `expected ${show(a)} to contain ${show(e)}`,
  }),
  toContainEqual: (a, e) => ({
    pass: typeof a !== 'string' && contains(a, e, (x, y) => equals(x, y)),
    message: `expected ${show(a)} to contain an item equal to ${show(e)}`,
  }),
  toHaveLength: (a, e) => ({
    pass: ObjectIs(lengthOf(a), e),
    message: `expected length ${show(lengthOf(a))} to be ${show(e)}`,
  }),
  toMatch: (a, e) => ({
    pass:
      typeof a === 'string' &&
      (isRegExp(e)
        ? RegExpPrototypeExec(new RegExpCtor(RegExpSource(e), RegExpFlags(e)), a) !== null
        : typeof e === 'string' && StringPrototypeIncludes(a, e)),
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
} satisfies Record<string, Check>);
const BUILT_IN = copied(ObjectKeys(CHECKS));

/** Rethrows a rejected or resolved promise's value so `toThrow` can look at it. */
const thrower = (value: unknown) => () => {
  throw value;
};

type Assertion = (...args: unknown[]) => unknown;
type Assertions = Record<keyof typeof CHECKS, Assertion> & Record<string, Assertion>;

/** Matchers a spec adds with `expect.extend`, beside the built-in ones (which they may not replace). */
const extended = new MapCtor<string, Check>();
const extendedNames = list<string>();
/** Matchers someone tried to redefine with `expect.extend` (a built-in, or one already added): tampering. */
const redefined = list<string>();

/** The matchers `expect.extend` was asked to redefine: the runner reports them as tampering. */
export function redefinedMatchers(): readonly string[] {
  return redefined;
}

function checkNamed(name: string): Check {
  return ((CHECKS as Record<string, Check | undefined>)[name] ?? MapPrototypeGet(extended, name)) as Check;
}

function assertions(actual: unknown, negate: boolean): Assertions {
  const out = record({}) as Record<string, Assertion>;
  const add = (name: string) => {
    const check = checkNamed(name);
    out[name] = (...args: unknown[]) => {
      const result = ReflectApply(check, undefined, argsOf(actual, args)) as Outcome;
      if (BooleanCtor(result.pass) === negate)
        throw new AssertionError(negate ? `not: ${StringCtor(result.message)}` : StringCtor(result.message));
    };
  };
  for (let i = 0; i < BUILT_IN.length; i++) add(BUILT_IN[i] as string);
  for (let i = 0; i < extendedNames.length; i++) add(extendedNames[i] as string);
  return out as Assertions;
}

function settled(actual: unknown, want: 'resolves' | 'rejects', negate: boolean): Settling {
  const out = record({}) as Record<string, (...args: unknown[]) => Promise<void>>;
  const add = (name: string) => {
    out[name] = async (...args: unknown[]) => {
      const outcome = await guarded(settledValue(actual));
      if (want === 'rejects' && outcome.ok) throw new AssertionError('expected the promise to reject');
      if (want === 'resolves' && !outcome.ok) throw outcome.value;
      const value =
        outcome.ok || (name !== 'toThrow' && name !== 'toThrowError')
          ? outcome.value
          : thrower(outcome.value);
      const run = assertions(value, negate)[name] as (...a: unknown[]) => unknown;
      ReflectApply(run, undefined, copied(args));
    };
  };
  for (let i = 0; i < BUILT_IN.length; i++) add(BUILT_IN[i] as string);
  for (let i = 0; i < extendedNames.length; i++) add(extendedNames[i] as string);
  return out as Settling;
}

type Settling = Record<keyof typeof CHECKS, (...args: unknown[]) => Promise<void>> &
  Record<string, (...args: unknown[]) => Promise<void>>;
/** What `expect(value)` gives a spec. */
export type Expectation = Assertions & {
  not: Assertions;
  resolves: Settling & { not: Settling };
  rejects: Settling & { not: Settling };
};

function expectation(actual: unknown): Expectation {
  const out = assertions(actual, false) as Record<string, unknown>;
  out.not = assertions(actual, true);
  const resolves = settled(actual, 'resolves', false) as Record<string, unknown>;
  resolves.not = settled(actual, 'resolves', true);
  const rejects = settled(actual, 'rejects', false) as Record<string, unknown>;
  rejects.not = settled(actual, 'rejects', true);
  out.resolves = resolves;
  out.rejects = rejects;
  return out as Expectation;
}

/** Jest's `expect`: its asymmetric matchers and `extend` are fixed properties (see `fixed`). */
export const expect = expectation as typeof expectation & {
  any(type: unknown): Matcher;
  anything(): Matcher;
  arrayContaining(items: unknown[]): Matcher;
  objectContaining(shape: object): Matcher;
  stringContaining(text: string): Matcher;
  stringMatching(re: RegExp | string): Matcher;
  assertions(n: number): void;
  hasAssertions(): void;
  extend(matchers: Record<string, CustomMatcher>): void;
};

const ANY_PRIMITIVES = new MapCtor<unknown, string>([
  [Number, 'number'],
  [String, 'string'],
  [Boolean, 'boolean'],
  [BigInt, 'bigint'],
  [Symbol, 'symbol'],
]);

/** Defines `expect.name`, fixed: a spec reads them, and nothing may replace them. */
const fixed = (name: string, value: unknown): void => {
  ObjectDefineProperty(expect, name, { value, writable: false, enumerable: true, configurable: false });
};

fixed('any', (type: unknown) =>
  matcher(`Any<${show(type)}>`, (other) =>
    MapPrototypeHas(ANY_PRIMITIVES, type)
      ? typeof other === MapPrototypeGet(ANY_PRIMITIVES, type)
      : OrdinaryHasInstance(type, other),
  ),
);
fixed('anything', () => matcher('Anything', (other) => other !== null && other !== undefined));
fixed('arrayContaining', (items: unknown[]) => {
  const wanted = copied(items);
  return matcher('ArrayContaining', (other) => {
    if (!ArrayIsArray(other)) return false;
    for (let i = 0; i < wanted.length; i++) {
      let found = false;
      for (let j = 0; j < other.length && !found; j++) found = equals(other[j], wanted[i]);
      if (!found) return false;
    }
    return true;
  });
});
fixed('objectContaining', (shape: object) =>
  matcher('ObjectContaining', (other) => matchesObject(other, shape)),
);
fixed('stringContaining', (text: string) =>
  matcher('StringContaining', (other) => typeof other === 'string' && StringPrototypeIncludes(other, text)),
);
fixed('stringMatching', (re: RegExp | string) => {
  const pattern = isRegExp(re) ? new RegExpCtor(RegExpSource(re), RegExpFlags(re)) : new RegExpCtor(re);
  return matcher(
    'StringMatching',
    (other) => typeof other === 'string' && RegExpPrototypeExec(pattern, other) !== null,
  );
});
fixed('assertions', (_n: number): void => {});
fixed('hasAssertions', (): void => {});

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

/**
 * Adds matchers, usable as `expect(x).name(...)`, `.not.name(...)` and `expect.name(...)` inside others. A
 * matcher that exists already (a built-in, or one added before) is not replaced: a spec never needs to, and
 * a solution that tries (to make `toEqual` pass everything) is reported.
 */
fixed('extend', (matchers: Record<string, CustomMatcher>): void => {
  const names = ObjectKeys(matchers);
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const fn = matchers[name] as CustomMatcher;
    if (ObjectHasOwn(CHECKS, name) || MapPrototypeHas(extended, name) || ObjectHasOwn(expect, name)) {
      append(redefined, name);
      continue;
    }
    MapPrototypeSet(extended, name, (actual: unknown, ...args: unknown[]) => {
      const result = ReflectApply(
        fn,
        matcherContext(false),
        argsOf(actual, args),
      ) as ReturnType<CustomMatcher>;
      const text = typeof result.message === 'function' ? result.message() : result.message;
      return {
        pass: BooleanCtor(result.pass),
        message: typeof text === 'string' ? text : `expected ${show(actual)} to pass ${name}`,
      };
    });
    append(extendedNames, name);
    fixed(name, (...args: unknown[]) =>
      matcher(name, (other) =>
        BooleanCtor(ReflectApply(fn, matcherContext(false), argsOf(other, args)).pass),
      ),
    );
  }
});
