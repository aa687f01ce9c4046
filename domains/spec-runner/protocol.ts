/** The runner prints this, then its JSON outcome, as the last line of its output. */
export const RESULT_MARK = '@@spec-result@@';

export interface SpecOutcome {
  passed: number;
  total: number;
  failures: { name: string; message: string }[];
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
