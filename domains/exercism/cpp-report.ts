import type { TestOutcome, TestReport } from './language.ts';

/** Catch2's summary lines on the shared output: read only to say a run claimed success. */
const ALL_PASSED = /^All tests passed \((\d+) assertions? in (\d+) test cases?\)/gm;
const SUMMARY = /^test cases: *(\d+) \|(?: *(\d+) passed)?(?: \|)?(?: *(\d+) failed)?/gm;

/** Macros grading defines for the test file: every test enabled, Catch from the exercise's own header. */
const GRADING_DEFINES = new Set(['EXERCISM_RUN_ALL_TESTS']);

/**
 * Whether a conditional of the test file holds when grading builds it: `#ifdef`, `#ifndef` and `#if` of
 * `defined` names are read; any other condition counts as true, so no test it guards goes unexpected.
 */
function holds(directive: string, rest: string): boolean {
  const name = rest.trim().split(/\s/)[0] ?? '';
  if (directive === 'ifdef') return GRADING_DEFINES.has(name);
  if (directive === 'ifndef') return !GRADING_DEFINES.has(name);
  const only = /^!?\s*defined\s*\(?\s*(\w+)\s*\)?$/.exec(rest.trim());
  if (only === null) return true;
  return rest.trim().startsWith('!') !== GRADING_DEFINES.has(only[1] ?? '');
}

/** The test file without its comments and without what its conditionals leave out when grading builds it. */
function gradedText(source: string): string {
  const kept: string[] = [];
  const stack: { active: boolean; taken: boolean }[] = [];
  const active = () => stack.every((s) => s.active);
  for (const line of source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/[^\n]*/g, '')
    .split('\n')) {
    const directive = /^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$/.exec(line);
    if (directive === null) {
      if (active()) kept.push(line);
      continue;
    }
    const [, kind = '', rest = ''] = directive;
    const top = stack.at(-1);
    if (kind === 'if' || kind === 'ifdef' || kind === 'ifndef') {
      const value = holds(kind, rest);
      stack.push({ active: value, taken: value });
    } else if (kind === 'elif' && top !== undefined) {
      top.active = !top.taken && holds('if', rest);
      top.taken ||= top.active;
    } else if (kind === 'else' && top !== undefined) {
      top.active = !top.taken;
      top.taken = true;
    } else if (kind === 'endif') stack.pop();
  }
  return kept.join('\n');
}

const TEST_CASE =
  /\b(TEST_CASE|SCENARIO|TEST_CASE_METHOD)\s*\(\s*(?:\w+(?:::\w+)*\s*,\s*)?"((?:[^"\\\n]|\\.)*)"/g;

/** The names Catch gives the test cases a test file defines when grading builds it (every test enabled). */
export function catchTestNames(source: string): string[] {
  return [...gradedText(source).matchAll(TEST_CASE)].map(([, macro, name = '']) => {
    const decoded = name.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t' })[c] ?? c);
    return macro === 'SCENARIO' ? `Scenario: ${decoded}` : decoded;
  });
}

/**
 * The report main's line (see cpp-report-main.cpp), or the harness's own refusal on that channel: only
 * lines that begin with this grading's token count. Two reports are tampering (a forked test process).
 */
export function readCatchReport(stdout: string, token: string): TestReport | null {
  const lines = stdout.split('\n').filter((line) => line.startsWith(`${token} `));
  if (lines.length === 0) return null;
  if (lines.length > 1) return { tests: [], tampering: ['the test process reported more than once'] };
  let parsed: { tests?: unknown; refused?: unknown; fatal?: unknown };
  try {
    parsed = JSON.parse(lines[0]!.slice(token.length + 1));
  } catch {
    return null;
  }
  if (Array.isArray(parsed.refused)) return { tests: [], tampering: parsed.refused.map(String) };
  if (!Array.isArray(parsed.tests)) return null;
  const tests: TestOutcome[] = parsed.tests.map(
    (t: { name?: unknown; passed?: unknown; message?: unknown }) => ({
      name: String(t.name),
      passed: t.passed === true,
      ...(typeof t.message === 'string' && t.message !== '' ? { message: t.message } : {}),
    }),
  );
  return { tests, tampering: [] };
}

/** Passed and total test cases from Catch2's last summary line, or null when it printed none (a crash). */
export function countCatchTests(stdout: string): { passed: number; total: number } | null {
  const allPassed = [...stdout.matchAll(ALL_PASSED)].at(-1);
  const summary = [...stdout.matchAll(SUMMARY)].at(-1);
  if (allPassed && (!summary || (summary.index ?? 0) < (allPassed.index ?? 0))) {
    const total = Number(allPassed[2]);
    return { passed: total, total };
  }
  if (!summary) return stdout.includes('No tests ran') ? { passed: 0, total: 0 } : null;
  const total = Number(summary[1]);
  const failed = Number(summary[3] ?? 0);
  return { passed: summary[2] === undefined ? total - failed : Number(summary[2]), total };
}
