/**
 * How a test is named in the runner's report, shared by the runner and by the grader that lists the tests
 * a spec defines before it runs (spec-tests.ts): the names of its `describe` blocks and its own, joined by
 * ` › ` as Jest prints them; a `test.each` row's name has `%s`, `%d`, `%i`, `%f`, `%j`, `%o`, `%p` replaced by
 * the row's values in turn, `%#` by the row's index, `%%` by `%`, and `$key` by an object row's field.
 * Uses only the built-ins taken before the spec loads, as the runner names tests after the solution loaded.
 */
import { ArrayIsArray, joined, ObjectHasOwn, StringCtor, StringPrototypeCharCodeAt } from './intrinsics.ts';

export const NAME_SEPARATOR = ' › ';

/** A name from its block names and its own. */
export const fullName = (scope: readonly string[], name: string): string =>
  scope.length === 0 ? name : `${joined(scope, NAME_SEPARATOR)}${NAME_SEPARATOR}${name}`;

/** A value as a test name shows it: primitives as `String` gives them, arrays by their items, objects plainly. */
export function shown(value: unknown, depth = 0): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' && typeof value !== 'function') return StringCtor(value);
  if (value === null) return 'null';
  if (ArrayIsArray(value) && depth < 4) {
    let out = '';
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      out = `${i === 0 ? '' : `${out},`}${item === null || item === undefined ? '' : shown(item, depth + 1)}`;
    }
    return out;
  }
  return typeof value === 'function' ? '[Function]' : '[object Object]';
}

const SPECIFIERS = 'sdifjop';
const isWordCode = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** The name of row `index` of a `test.each` table. */
export function eachName(name: string, row: unknown, index: number): string {
  const values = ArrayIsArray(row) ? row : [row];
  let next = 0;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i] as string;
    const following = name[i + 1];
    if (c === '%' && following !== undefined) {
      if (following === '%') {
        out = `${out}%`;
        i++;
        continue;
      }
      if (following === '#') {
        out = `${out}${index}`;
        i++;
        continue;
      }
      let known = false;
      for (let k = 0; k < SPECIFIERS.length; k++) if (SPECIFIERS[k] === following) known = true;
      if (known) {
        out = `${out}${shown(values[next++])}`;
        i++;
        continue;
      }
    }
    if (c === '$' && typeof row === 'object' && row !== null && !ArrayIsArray(row)) {
      let end = i + 1;
      while (end < name.length && isWordCode(StringPrototypeCharCodeAt(name, end))) end++;
      let key = '';
      for (let k = i + 1; k < end; k++) key = `${key}${name[k] as string}`;
      if (key !== '' && ObjectHasOwn(row, key)) {
        out = `${out}${shown((row as Record<string, unknown>)[key])}`;
        i = end - 1;
        continue;
      }
    }
    out = `${out}${c}`;
  }
  return out;
}
