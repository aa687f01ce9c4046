/**
 * What the runner saw the solution change: a snapshot of the built-ins, Node's modules the runner and the
 * spec rely on, and the runner's own globals, taken before the spec loads and compared after it loaded,
 * after each test and at the end. A property added, removed or replaced on any of them (a replaced
 * `Promise.race`, an `Array.prototype.push` or `Object.is` patched, `Object.prototype.then` defined,
 * `fs.writeSync` or `process.stdout.write` rewritten, `process.exit` replaced) is reported by name as
 * tampering. Every step here uses the built-ins taken in intrinsics.ts, never the live ones.
 */
import fs from 'node:fs';
import Module from 'node:module';
import net from 'node:net';
import stream from 'node:stream';
import tty from 'node:tty';
import v8 from 'node:v8';
import workerThreads from 'node:worker_threads';
import {
  append,
  isProxy,
  list,
  MapCtor,
  MapPrototypeGet,
  MapPrototypeHas,
  MapPrototypeSet,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetPrototypeOf,
  ObjectIs,
  ObjectSetPrototypeOf,
  ReflectOwnKeys,
  record,
  SetPrototypeHas,
  StringCtor,
} from './intrinsics.ts';

/** Globals that hold built-ins: each is watched, and its own properties and its prototype's too. */
const BUILT_INS = [
  'Object',
  'Function',
  'Array',
  'String',
  'Number',
  'Boolean',
  'Symbol',
  'BigInt',
  'Math',
  'JSON',
  'Reflect',
  'Proxy',
  'Promise',
  'Error',
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
  'EvalError',
  'URIError',
  'AggregateError',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'WeakRef',
  'FinalizationRegistry',
  'Date',
  'RegExp',
  'ArrayBuffer',
  'SharedArrayBuffer',
  'DataView',
  'Atomics',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
  'Buffer',
] as const;

/** Globals that are functions the runner or a spec calls. */
const GLOBAL_FUNCTIONS = [
  'globalThis',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
  'queueMicrotask',
  'structuredClone',
  'process',
  'parseInt',
  'parseFloat',
  'isNaN',
  'isFinite',
] as const;

/** Keys that Node itself (or a stack trace) changes, or that say nothing about the tests. */
const IGNORED = new Set(['Error.stackTraceLimit', 'Error.prepareStackTrace']);

/** `process` keys that decide how the run ends and where its output goes. */
const PROCESS_KEYS = [
  'exit',
  'reallyExit',
  'abort',
  'kill',
  'binding',
  '_linkedBinding',
  'dlopen',
  'emit',
  'nextTick',
  'stdout',
  'stderr',
  '_rawDebug',
  'exitCode',
] as const;

interface Watched {
  name: string;
  target: object;
  /** Only these keys; all own keys when absent. */
  keys?: readonly PropertyKey[];
}

/** The objects behind the built-ins that no global names (the iterator and generator prototypes). */
function hiddenIntrinsics(): Watched[] {
  const proto = ObjectGetPrototypeOf;
  const arrayIterator = proto([][Symbol.iterator]()) as object;
  const generator = proto(function* () {}) as object;
  const asyncGenerator = proto(async function* () {}) as object;
  const typedArray = proto(Uint8Array) as object;
  return [
    { name: '%ArrayIteratorPrototype%', target: arrayIterator },
    { name: '%IteratorPrototype%', target: proto(arrayIterator) as object },
    { name: '%MapIteratorPrototype%', target: proto(new Map().entries()) as object },
    { name: '%SetIteratorPrototype%', target: proto(new Set().values()) as object },
    { name: '%StringIteratorPrototype%', target: proto(''[Symbol.iterator]()) as object },
    { name: '%RegExpStringIteratorPrototype%', target: proto(/a/[Symbol.matchAll]('')) as object },
    { name: '%GeneratorFunction.prototype%', target: generator },
    { name: '%GeneratorPrototype%', target: (generator as { prototype: object }).prototype },
    { name: '%AsyncGeneratorFunction.prototype%', target: asyncGenerator },
    { name: '%AsyncGeneratorPrototype%', target: (asyncGenerator as { prototype: object }).prototype },
    { name: '%AsyncFunction.prototype%', target: proto(async () => {}) as object },
    { name: '%TypedArray%', target: typedArray },
    { name: '%TypedArray%.prototype', target: (typedArray as { prototype: object }).prototype },
  ];
}

/** What is watched: built-ins, Node's modules that carry output and loading, and the runner's globals. */
function watchedObjects(runnerGlobals: Record<string, unknown>): Watched[] {
  const g = globalThis as unknown as Record<string, object>;
  const out: Watched[] = [
    {
      name: 'globalThis',
      target: globalThis,
      keys: [...BUILT_INS, ...GLOBAL_FUNCTIONS, ...Object.keys(runnerGlobals)],
    },
  ];
  for (const name of BUILT_INS) {
    const value = g[name];
    if (value === undefined) continue;
    out.push({ name, target: value });
    const prototype = (value as { prototype?: unknown }).prototype;
    if ((typeof prototype === 'object' || typeof prototype === 'function') && prototype !== null)
      out.push({ name: `${name}.prototype`, target: prototype });
  }
  out.push(...hiddenIntrinsics());
  out.push({ name: 'process', target: process, keys: PROCESS_KEYS });
  for (const which of ['stdout', 'stderr'] as const) {
    out.push({
      name: `process.${which}`,
      target: process[which],
      keys: ['write', '_write', '_writev', 'end'],
    });
  }
  const streams: [string, object][] = [
    ['net.Socket.prototype', net.Socket.prototype],
    ['tty.WriteStream.prototype', tty.WriteStream.prototype],
    ['stream.Writable.prototype', stream.Writable.prototype],
    ['stream.Duplex.prototype', stream.Duplex.prototype],
  ];
  for (const [name, target] of streams)
    out.push({ name, target, keys: ['write', '_write', '_writev', 'end'] });
  out.push({ name: 'fs', target: fs });
  out.push({ name: 'v8', target: v8 });
  out.push({ name: 'worker_threads', target: workerThreads, keys: ['Worker', 'isMainThread'] });
  const loader = Module as unknown as Record<string, object>;
  out.push({
    name: 'Module',
    target: Module,
    keys: ['_load', '_resolveFilename', '_extensions', 'wrap', 'wrapper'],
  });
  out.push({ name: 'Module.prototype', target: Module.prototype, keys: ['require', '_compile', 'load'] });
  if (loader._extensions) out.push({ name: 'Module._extensions', target: loader._extensions });
  // `expect` gains a property for each matcher a spec adds (`expect.extend`): only its own are watched.
  for (const [name, value] of Object.entries(runnerGlobals)) {
    if ((typeof value === 'object' || typeof value === 'function') && value !== null)
      out.push({ name, target: value, ...(name === 'expect' ? { keys: Reflect.ownKeys(value) } : {}) });
  }
  return out;
}

type Descriptor = PropertyDescriptor;
/** A property's descriptor with no prototype, so no accessor on `Object.prototype` answers for a field. */
const descriptorOf = (target: object, key: PropertyKey): Descriptor | undefined => {
  const d = ObjectGetOwnPropertyDescriptor(target, key);
  return d === undefined ? undefined : (ObjectSetPrototypeOf(d, null) as Descriptor);
};
const same = (a: Descriptor | undefined, b: Descriptor | undefined): boolean =>
  a === undefined || b === undefined
    ? a === b
    : ObjectIs(a.value, b.value) &&
      a.get === b.get &&
      a.set === b.set &&
      a.writable === b.writable &&
      a.enumerable === b.enumerable &&
      a.configurable === b.configurable;

const keyName = (owner: string, key: PropertyKey): string =>
  typeof key === 'symbol'
    ? `${owner}[${StringCtor(key)}]`
    : owner === 'globalThis'
      ? `global ${key}`
      : `${owner}.${key}`;

interface Entry {
  name: string;
  target: object;
  key: PropertyKey;
  descriptor: Descriptor | undefined;
}

/** Takes the snapshot; returns the check, which lists what changed since (each name once per call). */
export function watch(runnerGlobals: Record<string, unknown>): () => string[] {
  const entries = list<Entry>();
  /** The own keys of each wholly watched object, for properties added later. */
  const wholly = list<{ name: string; target: object; keys: Map<PropertyKey, true> }>();
  for (const w of watchedObjects(runnerGlobals)) {
    if (isProxy(w.target)) continue;
    const keys = w.keys ?? ReflectOwnKeys(w.target);
    const known = new MapCtor<PropertyKey, true>();
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as PropertyKey;
      const name = keyName(w.name, key);
      MapPrototypeSet(known, key, true);
      if (SetPrototypeHas(IGNORED, name)) continue;
      append(entries, record({ name, target: w.target, key, descriptor: descriptorOf(w.target, key) }));
    }
    if (w.keys === undefined) append(wholly, record({ name: w.name, target: w.target, keys: known }));
  }
  return () => {
    const changed = list<string>();
    const seen = new MapCtor<string, true>();
    const note = (name: string) => {
      if (MapPrototypeHas(seen, name) || SetPrototypeHas(IGNORED, name)) return;
      MapPrototypeSet(seen, name, true);
      append(changed, name);
    };
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as Entry;
      if (!same(e.descriptor, descriptorOf(e.target, e.key))) note(e.name);
    }
    for (let i = 0; i < wholly.length; i++) {
      const w = wholly[i] as (typeof wholly)[number];
      const keys = ReflectOwnKeys(w.target);
      for (let j = 0; j < keys.length; j++) {
        const key = keys[j] as PropertyKey;
        if (MapPrototypeGet(w.keys, key) !== true) note(keyName(w.name, key));
      }
    }
    return changed;
  };
}
