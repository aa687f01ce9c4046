/** The matchers of calls a mock function recorded (`toHaveBeenCalled...`), for the spec runner's `expect`. */

import { type Check, equals, show } from './equality.ts';
import { copied } from './intrinsics.ts';

/** The calls a mock function (`jest.fn()`, `jest.spyOn`) recorded, or null for anything else. */
export let callsOf: (v: unknown) => unknown[][] | null = () => null;
/** Lets the runner say which functions are its mocks, and where their calls are kept. */
export function recognizeMocks(calls: (v: unknown) => unknown[][] | null): void {
  callsOf = calls;
}
export const notMock = (a: unknown) => ({ pass: false, message: `expected a mock function, got ${show(a)}` });
export const anyCallEquals = (calls: unknown[][], args: unknown[]): boolean => {
  for (let i = 0; i < calls.length; i++) if (equals(calls[i], args)) return true;
  return false;
};
export const called: Check = (a) => {
  const calls = callsOf(a);
  return calls ? { pass: calls.length > 0, message: `expected the mock to be called` } : notMock(a);
};
export const calledTimes: Check = (a, n) => {
  const calls = callsOf(a);
  return calls
    ? { pass: calls.length === n, message: `expected ${show(n)} calls, got ${calls.length}` }
    : notMock(a);
};
export const calledWith: Check = (a, ...args) => {
  const calls = callsOf(a);
  return calls
    ? {
        pass: anyCallEquals(calls, copied(args)),
        message: `expected a call with ${show(args)}, got ${show(calls)}`,
      }
    : notMock(a);
};
export const lastCalledWith: Check = (a, ...args) => {
  const calls = callsOf(a);
  const last = calls === null || calls.length === 0 ? undefined : calls[calls.length - 1];
  return calls
    ? {
        pass: last !== undefined && equals(last, copied(args)),
        message: `expected the last call with ${show(args)}, got ${show(last)}`,
      }
    : notMock(a);
};
