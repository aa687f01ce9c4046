/**
 * The built-ins the spec runner and its `expect` rely on, taken when the runner's modules load: before the
 * spec, and the solution it imports, run. Methods are uncurried (`ArrayPush(list, x)` rather than
 * `list.push(x)`), so a solution that replaces `Array.prototype.push`, `Promise.race` or `Object.is` changes
 * nothing the runner computes. Lists the runner keeps have no prototype, so an accessor a solution defines
 * on `Array.prototype[0]` cannot catch what is stored in them.
 */
import { createHash } from 'node:crypto';
import { writeSync } from 'node:fs';
import { inspect, types } from 'node:util';

const { apply: ReflectApply, ownKeys: ReflectOwnKeys } = Reflect;

/** `fn` as a plain function of its receiver and arguments. */
export const uncurry =
  <T, A extends unknown[], R>(fn: (this: T, ...args: A) => R) =>
  (self: T, ...args: A): R =>
    ReflectApply(fn, self, args);

const getter = <T, R>(proto: object, key: PropertyKey): ((self: T) => R) => {
  const get = Object.getOwnPropertyDescriptor(proto, key)?.get;
  if (get === undefined) throw new Error(`no getter ${String(key)}`);
  return (self: T) => ReflectApply(get, self, []) as R;
};

export { ReflectApply, ReflectOwnKeys };
export const ObjectCtor = Object;
export const ObjectAssign = Object.assign;
export const ObjectIs = Object.is;
export const ObjectKeys = Object.keys;
export const ObjectHasOwn = Object.hasOwn;
export const ObjectFreeze = Object.freeze;
export const ObjectDefineProperty = Object.defineProperty;
export const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const ObjectGetPrototypeOf = Object.getPrototypeOf;
export const ObjectSetPrototypeOf = Object.setPrototypeOf;
export const ObjectCreate = Object.create;
export const ObjectPrototypeIsPrototypeOf = uncurry(Object.prototype.isPrototypeOf);
export const ArrayIsArray = Array.isArray;
export const StringCtor = String;
export const BooleanCtor = Boolean;
export const NumberIsNaN = Number.isNaN;
export const MathAbs = Math.abs;
export const MathMax = Math.max;
export const JSONStringify = JSON.stringify;
export const SymbolCtor = Symbol;
export const PromiseCtor = Promise;
export const PromisePrototypeThen = uncurry(Promise.prototype.then) as (
  promise: Promise<unknown>,
  onFulfilled: (value: unknown) => unknown,
  onRejected: (error: unknown) => unknown,
) => Promise<unknown>;
export const StringPrototypeSlice = uncurry(String.prototype.slice);
export const StringPrototypeIncludes = uncurry(String.prototype.includes);
export const StringPrototypeStartsWith = uncurry(String.prototype.startsWith);
export const StringPrototypeCharCodeAt = uncurry(String.prototype.charCodeAt);
export const StringPrototypeSplit = uncurry(
  String.prototype.split as (this: string, sep: string) => string[],
);
export const RegExpCtor = RegExp;
export const RegExpPrototypeExec = uncurry(RegExp.prototype.exec);
export const RegExpSource = getter<RegExp, string>(RegExp.prototype, 'source');
export const RegExpFlags = getter<RegExp, string>(RegExp.prototype, 'flags');
export const DatePrototypeGetTime = uncurry(Date.prototype.getTime);
export const MapCtor = Map;
export const MapPrototypeGet = uncurry(Map.prototype.get);
export const MapPrototypeSet = uncurry(Map.prototype.set);
export const MapPrototypeHas = uncurry(Map.prototype.has);
export const MapPrototypeDelete = uncurry(Map.prototype.delete);
export const MapPrototypeForEach = uncurry(Map.prototype.forEach) as (
  map: Map<unknown, unknown>,
  fn: (value: unknown, key: unknown) => void,
) => void;
export const MapSize = getter<Map<unknown, unknown>, number>(Map.prototype, 'size');
export const SetPrototypeHas = uncurry(Set.prototype.has);
export const SetPrototypeForEach = uncurry(Set.prototype.forEach) as (
  set: Set<unknown>,
  fn: (value: unknown) => void,
) => void;
export const SetSize = getter<Set<unknown>, number>(Set.prototype, 'size');
export const WeakSetCtor = WeakSet;
export const WeakSetPrototypeAdd = uncurry(WeakSet.prototype.add);
export const WeakSetPrototypeHas = uncurry(WeakSet.prototype.has);
export const WeakMapCtor = WeakMap;
export const WeakMapPrototypeGet = uncurry(WeakMap.prototype.get);
export const WeakMapPrototypeSet = uncurry(WeakMap.prototype.set);
/** `value instanceof ctor` without the `Symbol.hasInstance` a class (or a solution) may define. */
export const OrdinaryHasInstance = (ctor: unknown, value: unknown): boolean =>
  typeof ctor === 'function' &&
  (ReflectApply(Function.prototype[Symbol.hasInstance], ctor, [value]) as boolean);
export const ErrorCtor = Error;
export const isPromise = types.isPromise;
export const isDate = types.isDate;
export const isRegExp = types.isRegExp;
export const isMap = types.isMap;
export const isSet = types.isSet;
export const isNativeError = types.isNativeError;
export const isProxy = types.isProxy;
export const utilInspect = inspect;
export const setTimeoutCaptured = setTimeout;
export const clearTimeoutCaptured = clearTimeout;
export const fsWriteSync = writeSync;
export const cryptoCreateHash = createHash;
const HashPrototype = ObjectGetPrototypeOf(createHash('sha256')) as { update: unknown; digest: unknown };
export const HashUpdate = uncurry(HashPrototype.update as (this: unknown, text: string) => unknown);
export const HashDigest = uncurry(HashPrototype.digest as (this: unknown, encoding: 'hex') => string);
export const BufferFrom = Buffer.from as (text: string, encoding: 'utf8') => Buffer;
export const BufferByteLength = getter<Buffer, number>(
  ObjectGetPrototypeOf(Uint8Array.prototype) as object,
  'byteLength',
);

/** A list that no accessor on `Array.prototype` or `Object.prototype` can observe or change. */
export function list<T>(): T[] {
  return ObjectSetPrototypeOf([], null) as T[];
}

/** Appends to a list made by `list` (or any array no prototype accessor can reach). */
export function append<T>(items: T[], item: T): void {
  ObjectDefineProperty(items, items.length, {
    value: item,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

/** A record with no prototype: reading a key it lacks finds nothing a solution defined. */
export function record<T extends object>(fields: T): T {
  return ObjectSetPrototypeOf(fields, null) as T;
}

/** Names joined by `sep`, with `+` only (no `Array.prototype.join`). */
export function joined(items: readonly string[], sep: string): string {
  let out = '';
  for (let i = 0; i < items.length; i++)
    out = i === 0 ? (items[i] as string) : `${out}${sep}${items[i] as string}`;
  return out;
}

/** A copy of an array-like's items into a `list` (no iterator protocol). */
export function copied<T>(items: ArrayLike<T>): T[] {
  const out = list<T>();
  for (let i = 0; i < items.length; i++) append(out, items[i] as T);
  return out;
}

/**
 * The promise, marked so that `await` on it consults no `then` or `constructor` a solution may have put
 * on `Promise.prototype`: awaiting a native promise whose `constructor` is the real `Promise` is internal.
 */
export function guarded<T>(promise: Promise<T>): Promise<T> {
  ObjectDefineProperty(promise, 'constructor', { value: PromiseCtor, writable: false, configurable: false });
  return promise;
}

/** How a value settled: fulfilled (`ok`) with `value`, or rejected with it. */
export interface Settled {
  ok: boolean;
  value: unknown;
}

/**
 * What `await value` gives, as a record that never rejects. A native promise is followed with the
 * `then` taken before the solution loaded (a `then` or `constructor` a solution put on `Promise.prototype`
 * is never consulted); another object's own `then`, as `await` would. The promise returned is `guarded`.
 */
export function settledValue(value: unknown): Promise<Settled> {
  return guarded(
    new PromiseCtor<Settled>((resolve) => {
      const done = (ok: boolean, result: unknown) => resolve(record({ ok, value: result }));
      if (isPromise(value)) {
        try {
          PromisePrototypeThen(
            value as Promise<unknown>,
            (v) => done(true, v),
            (e) => done(false, e),
          );
        } catch (error) {
          done(false, error);
        }
        return;
      }
      if ((typeof value !== 'object' && typeof value !== 'function') || value === null)
        return done(true, value);
      try {
        const then = (value as { then?: unknown }).then;
        if (typeof then !== 'function') return done(true, value);
        ReflectApply(then, value, [(v: unknown) => done(true, v), (e: unknown) => done(false, e)]);
      } catch (error) {
        done(false, error);
      }
    }),
  );
}
