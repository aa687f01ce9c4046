/**
 * Deep equality and the asymmetric matchers of the spec runner's `expect` (expect.ts), on built-ins taken
 * before the solution loads (intrinsics.ts): what `toEqual`, `toStrictEqual`, `toMatchObject` and the
 * call matchers decide with. Only matchers this module made match asymmetrically.
 */
import {
  ArrayIsArray,
  append,
  BooleanCtor,
  DatePrototypeGetTime,
  isDate,
  isMap,
  isRegExp,
  isSet,
  list,
  MapCtor,
  MapPrototypeForEach,
  MapPrototypeGet,
  MapPrototypeHas,
  MapPrototypeSet,
  MapSize,
  ObjectGetPrototypeOf,
  ObjectHasOwn,
  ObjectIs,
  ObjectKeys,
  RegExpFlags,
  RegExpSource,
  record,
  SetPrototypeForEach,
  SetPrototypeHas,
  SetSize,
  utilInspect,
  WeakSetCtor,
  WeakSetPrototypeAdd,
  WeakSetPrototypeHas,
} from './intrinsics.ts';

/** A value for a message; a value whose inspection throws is named, not rethrown. */
export const show = (value: unknown): string => {
  try {
    return utilInspect(value, { depth: 6, breakLength: Infinity });
  } catch {
    return '(a value that cannot be shown)';
  }
};

export type Matcher = { asymmetricMatch(other: unknown): boolean; toString(): string };
/** The asymmetric matchers this module made: only these match asymmetrically. */
export const MATCHERS = new WeakSetCtor<object>();
export const isMatcher = (value: unknown): value is Matcher =>
  typeof value === 'object' && value !== null && WeakSetPrototypeHas(MATCHERS, value);

export function matcher(description: string, test: (other: unknown) => boolean): Matcher {
  const m = record({
    asymmetricMatch: test,
    toString: () => description,
    [Symbol.for('nodejs.util.inspect.custom')]: () => description,
  });
  WeakSetPrototypeAdd(MATCHERS, m);
  return m;
}

/** `[first, ...rest]` built without the iterator protocol. */
export function argsOf(first: unknown, rest: ArrayLike<unknown>): unknown[] {
  const out = list<unknown>();
  append(out, first);
  for (let i = 0; i < rest.length; i++) append(out, rest[i]);
  return out;
}

/** Own enumerable string keys of `o`; those whose value is undefined are left out unless `strict`. */
export function keysOf(o: object, strict: boolean): string[] {
  const all = ObjectKeys(o);
  const out = list<string>();
  for (let i = 0; i < all.length; i++) {
    const k = all[i] as string;
    if (strict || (o as Record<string, unknown>)[k] !== undefined) append(out, k);
  }
  return out;
}

export const itemsOfSet = (s: Set<unknown>): unknown[] => {
  const out = list<unknown>();
  SetPrototypeForEach(s, (v) => append(out, v));
  return out;
};

/**
 * Deep equality of a received value `a` and an expected `b` the way Jest's `toEqual` sees it (undefined
 * properties ignored unless `strict`). Asymmetric matchers count on the expected side only: a solution that
 * returns `expect.anything()` as its answer is compared as the value it is.
 */
export function equals(
  a: unknown,
  b: unknown,
  strict = false,
  seen = new MapCtor<object, unknown>(),
): boolean {
  if (isMatcher(b)) return BooleanCtor(b.asymmetricMatch(a));
  if (ObjectIs(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (MapPrototypeHas(seen, a) && MapPrototypeGet(seen, a) === b) return true;
  MapPrototypeSet(seen, a, b);
  if (strict && ObjectGetPrototypeOf(a) !== ObjectGetPrototypeOf(b)) return false;
  if (isDate(a) || isDate(b))
    return isDate(a) && isDate(b) && ObjectIs(DatePrototypeGetTime(a), DatePrototypeGetTime(b));
  if (isRegExp(a) || isRegExp(b))
    return (
      isRegExp(a) && isRegExp(b) && RegExpSource(a) === RegExpSource(b) && RegExpFlags(a) === RegExpFlags(b)
    );
  if (ArrayIsArray(a) !== ArrayIsArray(b)) return false;
  if (isMap(a) || isMap(b)) {
    if (!isMap(a) || !isMap(b) || MapSize(a) !== MapSize(b)) return false;
    let same = true;
    MapPrototypeForEach(a, (v, k) => {
      if (same && (!MapPrototypeHas(b, k) || !equals(v, MapPrototypeGet(b, k), strict, seen))) same = false;
    });
    return same;
  }
  if (isSet(a) || isSet(b)) {
    if (!isSet(a) || !isSet(b) || SetSize(a) !== SetSize(b)) return false;
    const others = itemsOfSet(b);
    const items = itemsOfSet(a);
    for (let i = 0; i < items.length; i++) {
      if (SetPrototypeHas(b, items[i])) continue;
      let found = false;
      for (let j = 0; j < others.length && !found; j++) found = equals(items[i], others[j], strict, seen);
      if (!found) return false;
    }
    return true;
  }
  const ka = keysOf(a, strict);
  const kb = keysOf(b, strict);
  if (ka.length !== kb.length) return false;
  if (ArrayIsArray(a) && ArrayIsArray(b) && a.length !== b.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (!ObjectHasOwn(b, k)) return false;
    if (!equals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], strict, seen))
      return false;
  }
  return true;
}

export function matchesObject(actual: unknown, expected: unknown): boolean {
  if (isMatcher(expected)) return BooleanCtor(expected.asymmetricMatch(actual));
  if (typeof expected !== 'object' || expected === null || typeof actual !== 'object' || actual === null) {
    return equals(actual, expected);
  }
  if (ArrayIsArray(expected)) {
    if (!ArrayIsArray(actual) || actual.length !== expected.length) return false;
    for (let i = 0; i < expected.length; i++) if (!matchesObject(actual[i], expected[i])) return false;
    return true;
  }
  const keys = ObjectKeys(expected);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (!(k in actual)) return false;
    if (!matchesObject((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}

/** What a matcher decides, and the message for when it fails. */
export type Outcome = { pass: boolean; message: string };
export type Check = (actual: unknown, ...args: unknown[]) => Outcome;
