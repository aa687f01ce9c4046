import { createHash } from 'node:crypto';

/**
 * The runner's report is one line on stdout: this mark, the grading's token, the SHA-256 of the token and
 * the JSON (hex), and the JSON of a `SpecReport`: `RESULT_MARK + token + ' ' + digest + ' ' + json`.
 */
export const RESULT_MARK = '@@spec-result@@';

/** One test as the runner ran it, by its full name (test-name.ts). */
export interface SpecTest {
  name: string;
  passed: boolean;
  message?: string;
}

/** What the runner reports: each test it ran, and what it saw the solution change (tampering). */
export interface SpecReport {
  tests: SpecTest[];
  tampering: string[];
}

export const reportDigest = (token: string, json: string): string =>
  createHash('sha256').update(`${token}${json}`).digest('hex');

const isReport = (value: unknown): value is SpecReport => {
  if (typeof value !== 'object' || value === null) return false;
  const { tests, tampering } = value as Partial<SpecReport>;
  return (
    Array.isArray(tests) &&
    Array.isArray(tampering) &&
    tampering.every((t) => typeof t === 'string') &&
    tests.every(
      (t) =>
        typeof t === 'object' &&
        t !== null &&
        typeof t.name === 'string' &&
        typeof t.passed === 'boolean' &&
        (t.message === undefined || typeof t.message === 'string'),
    )
  );
};

/**
 * The runner's report from its output, or null when no line carries the token. The runner writes exactly
 * one such line: a second one, or one whose digest does not match, was written or changed by someone who
 * learned the token, and is reported as tampering in place of the tests.
 */
export function readSpecReport(stdout: string, token: string): SpecReport | null {
  const mark = `${RESULT_MARK}${token} `;
  const lines = stdout.split('\n').filter((line) => line.includes(mark));
  if (lines.length === 0) return null;
  const altered = (why: string): SpecReport => ({ tests: [], tampering: [why] });
  if (lines.length > 1) return altered(`the runner's report line appeared ${lines.length} times`);
  const line = lines[0]!;
  const rest = line.slice(line.indexOf(mark) + mark.length);
  const space = rest.indexOf(' ');
  const digest = rest.slice(0, space);
  const json = rest.slice(space + 1);
  if (space < 0 || digest !== reportDigest(token, json) || !line.startsWith(mark))
    return altered("the runner's report line was altered");
  try {
    const report: unknown = JSON.parse(json);
    return isReport(report) ? report : altered("the runner's report is not one it writes");
  } catch {
    return altered("the runner's report is not JSON");
  }
}

/** The names the `@jest/globals` module gives a spec: the runner's globals. */
export const JEST_GLOBALS = [
  'describe',
  'xdescribe',
  'fdescribe',
  'test',
  'it',
  'xtest',
  'xit',
  'fit',
  'expect',
  'beforeAll',
  'afterAll',
  'beforeEach',
  'afterEach',
  'jest',
] as const;
