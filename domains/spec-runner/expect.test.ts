import { describe, it, expect as vexpect } from 'vitest';
import { equals, expect, recognizeMocks } from './expect.ts';

describe('equals', () => {
  it.each<[unknown, unknown, boolean]>([
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [[1, [2, { c: 3 }]], [1, [2, { c: 3 }]], true],
    [[1, 2], [2, 1], false],
    [new Map([['a', 1]]), new Map([['a', 1]]), true],
    [new Set([1, 2]), new Set([2, 1]), true],
    [Number.NaN, Number.NaN, true],
    [{ a: 1 }, { a: '1' }, false],
    [[1], { 0: 1 }, false],
  ])('%j and %j → %j', (a, b, same) => vexpect(equals(a, b)).toBe(same));
});

describe('expect', () => {
  it.each<[string, () => unknown]>([
    ['toBe', () => expect(1).toBe(1)],
    ['not.toBe', () => expect(1).not.toBe(2)],
    ['toEqual', () => expect({ a: [1] }).toEqual({ a: [1] })],
    [
      'toThrow with text',
      () =>
        expect(() => {
          throw new Error('bad input');
        }).toThrow('bad'),
    ],
    [
      'toThrow with a class',
      () =>
        expect(() => {
          throw new RangeError('x');
        }).toThrow(RangeError),
    ],
    ['toContain', () => expect([1, 2]).toContain(2)],
    ['toHaveLength', () => expect('abc').toHaveLength(3)],
    ['toBeCloseTo', () => expect(0.1 + 0.2).toBeCloseTo(0.3)],
    ['toMatchObject', () => expect({ a: 1, b: 2 }).toMatchObject({ a: 1 })],
    ['objectContaining', () => expect({ a: 1, b: 2 }).toEqual(expect.objectContaining({ b: 2 }))],
  ])('%s passes', (_name, run) => vexpect(run).not.toThrow());

  it.each<[string, () => unknown, RegExp]>([
    ['toBe', () => expect(1).toBe(2), /expected 1 to be 2/],
    ['not.toEqual', () => expect([1]).not.toEqual([1]), /^not: expected/],
    ['toThrow when nothing throws', () => expect(() => 1).toThrow(), /expected the function to throw/],
    ['toStrictEqual with undefined', () => expect({ a: undefined }).toStrictEqual({}), /strictly equal/],
  ])('%s fails with a message', (_name, run, message) => vexpect(run).toThrow(message));

  it('awaits rejects and resolves', async () => {
    await expect(Promise.reject(new Error('no'))).rejects.toThrow('no');
    await expect(Promise.resolve(3)).resolves.toBe(3);
    await vexpect(expect(Promise.resolve(3)).rejects.toBe(3)).rejects.toThrow(
      /expected the promise to reject/,
    );
  });
  it('matches a thrown error against an asymmetric matcher, as Exercism specs do', () => {
    const throwsType = () => {
      throw new TypeError('Input must be a string');
    };
    expect(throwsType).toThrow(
      expect.objectContaining({ name: 'TypeError', message: expect.stringMatching(/.+/) }),
    );
    vexpect(() => expect(throwsType).toThrow(expect.objectContaining({ name: 'RangeError' }))).toThrow(
      /expected a throw matching/,
    );
  });

  it('runs matchers added with expect.extend, negated and as asymmetric matchers', () => {
    expect.extend({
      toBeEven(this: { utils: { printReceived(v: unknown): string } }, received: unknown) {
        const pass = typeof received === 'number' && received % 2 === 0;
        return { pass, message: () => `expected ${this.utils.printReceived(received)} to be even` };
      },
    });
    const even = expect(4) as unknown as Record<string, (...args: unknown[]) => unknown>;
    even.toBeEven!();
    const odd = expect(3) as unknown as Record<string, (...args: unknown[]) => unknown>;
    vexpect(() => odd.toBeEven!()).toThrow(/expected 3 to be even/);
    (odd.not as unknown as Record<string, () => unknown>).toBeEven!();
    const asymmetric = (expect as unknown as Record<string, () => unknown>).toBeEven!();
    expect({ n: 2 }).toEqual({ n: asymmetric });
    // A matcher may not be redefined (a solution that makes toEqual pass everything is reported).
    expect.extend({ toEqual: () => ({ pass: true }) });
    vexpect(() => expect(1).toEqual(2)).toThrow(/expected 1 to equal 2/);
  });

  it('honours asymmetric matchers on the expected side only', () => {
    expect(3).toEqual(expect.anything());
    vexpect(() => expect(expect.anything()).toEqual(3)).toThrow(/to equal 3/);
    // An object that merely looks like a matcher is a plain value.
    const lookalike = { asymmetricMatch: () => true, $$typeof: Symbol.for('jest.asymmetricMatcher') };
    vexpect(() => expect(3).toEqual(lookalike)).toThrow(/to equal/);
  });

  it('decides as before when a built-in it relies on was replaced', () => {
    const is = Object.is;
    const every = Array.prototype.every;
    try {
      Object.is = () => true;
      Array.prototype.every = (() => true) as unknown as typeof every;
      vexpect(() => expect(1).toBe(2)).toThrow(/expected 1 to be 2/);
      vexpect(() => expect([1, 2]).toEqual([1, 3])).toThrow(/to equal/);
    } finally {
      Object.is = is;
      Array.prototype.every = every;
    }
  });
  it("checks the calls of the runner's mock functions only", () => {
    const calls: unknown[][] = [
      [1, 'a'],
      [2, 'b'],
    ];
    const mock = () => {};
    recognizeMocks((v) => (v === mock ? calls : null));
    // A function that only looks like a mock (a solution's) is not one.
    const lookalike = Object.assign(() => {}, { mock: { calls } });
    vexpect(() => expect(lookalike).toHaveBeenCalled()).toThrow(/expected a mock function/);
    expect(mock).toHaveBeenCalledTimes(2);
    expect(mock).toHaveBeenCalledWith(1, 'a');
    expect(mock).toHaveBeenLastCalledWith(2, 'b');
    vexpect(() => expect(mock).not.toHaveBeenCalled()).toThrow(/^not: expected the mock to be called/);
    vexpect(() => expect(() => {}).toHaveBeenCalled()).toThrow(/expected a mock function/);
  });
});
