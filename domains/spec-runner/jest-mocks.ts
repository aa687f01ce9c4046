/**
 * Jest's mock functions for the spec runner (runner.ts): `jest.fn`, `jest.spyOn` and the clearing of every
 * mock, on built-ins taken before the solution loads (intrinsics.ts). The calls each records are what
 * `toHaveBeenCalled` and the like trust (recognizeMocks).
 */
import {
  append,
  copied,
  list,
  ObjectAssign,
  ReflectApply,
  WeakMapCtor,
  WeakMapPrototypeGet,
  WeakMapPrototypeSet,
} from './intrinsics.ts';
import { recognizeMocks } from './mock-checks.ts';

export type Mock = ((...args: unknown[]) => unknown) & { mockReset(): Mock; mockClear(): Mock };
const mocks = list<Mock>();
/** The calls of each mock this runner made: `toHaveBeenCalled` and the like trust only these. */
const mockCalls = new WeakMapCtor<object, unknown[][]>();
recognizeMocks((v) =>
  typeof v === 'function' ? ((WeakMapPrototypeGet(mockCalls, v) as unknown[][] | undefined) ?? null) : null,
);

/** A mock function as Jest makes one: it records its calls, and its implementation can be set or reset. */
export function mockFn(impl?: (...args: unknown[]) => unknown): Mock {
  let current = impl;
  let calls = list<unknown[]>();
  let results = list<{ type: 'return' | 'throw'; value: unknown }>();
  const mock = function (this: unknown, ...args: unknown[]) {
    append(calls, copied(args));
    try {
      const value = current === undefined ? undefined : ReflectApply(current, this, args);
      append(results, { type: 'return', value });
      return value;
    } catch (error) {
      append(results, { type: 'throw', value: error });
      throw error;
    }
  } as Mock;
  WeakMapPrototypeSet(mockCalls, mock, calls);
  const state = { calls, results };
  ObjectAssign(mock, {
    _isMockFunction: true,
    mock: state,
    mockImplementation: (f: (...args: unknown[]) => unknown) => {
      current = f;
      return mock;
    },
    mockReturnValue: (v: unknown) => {
      current = () => v;
      return mock;
    },
    mockClear: () => {
      calls = list();
      results = list();
      state.calls = calls;
      state.results = results;
      WeakMapPrototypeSet(mockCalls, mock, calls);
      return mock;
    },
    mockReset: () => {
      current = undefined;
      return mock.mockClear();
    },
  });
  append(mocks, mock);
  return mock;
}

/** `jest.spyOn`: a mock over `object[key]` that calls the original, restored by its `mockRestore`. */
export function spyOn(object: Record<string, unknown>, key: string): Mock {
  const original = object[key] as (...args: unknown[]) => unknown;
  const spy = mockFn(function (this: unknown, ...args: unknown[]) {
    return ReflectApply(original, this, args);
  });
  object[key] = ObjectAssign(spy, { mockRestore: () => (object[key] = original) });
  return spy;
}

/** `jest.clearAllMocks`: every mock's calls forgotten. */
export function clearAllMocks(): void {
  for (let i = 0; i < mocks.length; i++) (mocks[i] as Mock).mockClear();
}

/** `jest.resetAllMocks`: every mock's calls and implementation forgotten. */
export function resetAllMocks(): void {
  for (let i = 0; i < mocks.length; i++) (mocks[i] as Mock).mockReset();
}
