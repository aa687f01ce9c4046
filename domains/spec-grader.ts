import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tampered } from '../system/grade-marks.ts';
import type { Grade } from './define-domain.ts';
import type { CommandResult, GradeContext } from './grade-context.ts';
import { hoistJestMocks } from './spec-hoist.ts';
import { JEST_GLOBALS, readSpecReport, type SpecReport } from './spec-runner/protocol.ts';
import { specTestNames } from './spec-tests.ts';

const RUNNER_DIR = realpathSync(fileURLToPath(new URL('./spec-runner/', import.meta.url)));
const RUNNER = path.join(RUNNER_DIR, 'runner.ts');
/** Starts the runner with the grading folder readable (launch.mjs). */
const LAUNCHER = path.join(RUNNER_DIR, 'launch.mjs');
/** tsx's full loader: TypeScript, and ES module syntax inside CommonJS files (as babel-jest allows). */
const TSX_LOADER = import.meta.resolve('tsx');
/** `@types/node` when the project has it, so a type check knows Node's modules (it is a development package). */
const NODE_TYPES = (() => {
  try {
    return path.dirname(fileURLToPath(import.meta.resolve('@types/node/package.json')));
  } catch {
    return null;
  }
})();

/** The `node_modules` folder a resolved module file lies in, by its real path. */
function modulesFolderOf(file: string): string {
  let dir = path.dirname(realpathSync(file));
  while (path.basename(dir) !== 'node_modules' && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/**
 * What the runner reads besides the grading folder, by real path: its own folder and the `node_modules`
 * folders tsx, typescript and `@types/node` resolve to. The project's `node_modules` may be a link, or
 * hoisted to a parent folder; the sandbox mounts these real paths, so either way the runner finds its
 * packages where Node resolved them.
 */
const RUNNER_READS = (() => {
  const modules = [fileURLToPath(TSX_LOADER), fileURLToPath(import.meta.resolve('typescript'))];
  if (NODE_TYPES !== null) modules.push(path.join(NODE_TYPES, 'package.json'));
  const projectModules = path.join(path.dirname(RUNNER_DIR), '..', 'node_modules');
  const folders = new Set([RUNNER_DIR, ...modules.map(modulesFolderOf)]);
  if (existsSync(projectModules)) folders.add(path.resolve(projectModules));
  return [...folders];
})();

/**
 * Node's permission model for the runner: the grading folder (added by launch.mjs), the runner and its
 * packages may be read and nothing written; the inspector, `process.binding`, native addons and `/proc` (the process's own memory)
 * are refused. Workers and child processes stay allowed: tsx's loader runs in a worker and starts esbuild,
 * and specs start processes (grep runs the solution with `node`). Node 20 names the flag
 * `--experimental-permission`; later versions `--permission`.
 */
const PERMISSIONS = [
  process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission',
  '--allow-worker',
  '--allow-child-process',
  ...RUNNER_READS.map((dir) => `--allow-fs-read=${dir}`),
  '--disable-warning=ExperimentalWarning',
  '--disable-warning=SecurityWarning',
];

export interface SpecLimits {
  /** Wall-clock limit for the whole spec, loading included. */
  timeoutMs: number;
  /** Memory limit of the process, in MiB. */
  memoryMb: number;
}

export const DEFAULT_SPEC_LIMITS: SpecLimits = { timeoutMs: 60_000, memoryMb: 512 };
const MAX_OUTPUT_BYTES = 256 * 1024;

/** One exercise to grade: the candidate solution next to the spec and any support files. */
export interface SpecRun {
  solutionFile: string;
  solution: string;
  specFile: string;
  spec: string;
  /** Other files of the exercise the spec may import (relative path → text). */
  support: Record<string, string>;
  /**
   * Check the TypeScript files' types first, as the TypeScript track's runner does (`tsc --noEmit`): a type
   * error fails the spec, with the errors in the output. A `tsconfig.json` among the files sets the options.
   */
  typecheck?: boolean;
}

/** Code that loads or exports through CommonJS: `require(…)`, `module.exports`, `exports.name =`. */
const COMMONJS = /\brequire\s*\(|\bmodule\.exports\b|(^|[^.\w$])exports\.[\w$]+\s*=/m;

/**
 * Whether an exercise runs as CommonJS: when any of its files uses CommonJS. Exercism's CI compiles every
 * file with babel-jest to CommonJS, so a spec may `import` a solution that sets `module.exports`, and a
 * spec may `require`; tsx gives the same interop. Others run as ES modules, which also allows top-level
 * `await`.
 */
export function isCommonJs(texts: Iterable<string>): boolean {
  for (const text of texts) if (COMMONJS.test(text)) return true;
  return false;
}

/** A `@jest/globals` whose exports are the runner's globals (CommonJS, so either module kind imports it). */
const JEST_GLOBALS_MODULE = `${JEST_GLOBALS.map((name) => `exports.${name} = globalThis.${name};`).join('\n')}\n`;
/** Its types for a type check: loose, as a spec's own use of Jest is not what is graded. */
const JEST_GLOBALS_TYPES = `${JEST_GLOBALS.map((name) => `export declare const ${name}: any;`).join('\n')}\n`;
/** Jest's `expect` package as specs name it for types (`MatcherFunction`, matcher declarations), loosely. */
const EXPECT_TYPES = `export type MatcherFunction<T extends unknown[] = unknown[]> = (this: any, received: unknown, ...expected: T) => { pass: boolean; message: () => string };
export interface AsymmetricMatchers {}
export interface Matchers<R> { _r?: R }
`;

/**
 * Runs the spec against the solution in the sandbox. Score 1 when every test passes (skipped ones
 * included), else 0; the detail says how many passed, or which limit was hit.
 */
export async function gradeWithSpec(
  ctx: GradeContext,
  exercise: SpecRun,
  limits: SpecLimits,
): Promise<Grade> {
  return (await runSpec(ctx, exercise, limits)).grade;
}

/** `gradeWithSpec` with the runner's output beside the grade. */
export async function runSpec(
  ctx: GradeContext,
  exercise: SpecRun,
  limits: SpecLimits,
  token: string = randomBytes(12).toString('hex'),
): Promise<{ grade: Grade; result: CommandResult }> {
  const hoisted = await hoistJestMocks(exercise.specFile, exercise.spec);
  const files = {
    ...exercise.support,
    [exercise.specFile]: hoisted?.spec ?? exercise.spec,
    [exercise.solutionFile]: exercise.solution,
    ...(hoisted ? { [hoisted.mocksFile]: hoisted.mocks } : {}),
  };
  // Module mocks replace what `require` returns, so a spec with them runs as CommonJS.
  const commonJs = hoisted !== null || isCommonJs(Object.values(files));
  const typecheck = exercise.typecheck === true;
  const result = await ctx.run({
    stdin: token,
    file: process.execPath,
    args: [
      LAUNCHER,
      `--max-old-space-size=${limits.memoryMb}`,
      ...PERMISSIONS,
      '--import',
      TSX_LOADER,
      RUNNER,
      exercise.specFile,
      ...(typecheck ? ['--typecheck', ...(NODE_TYPES === null ? [] : [NODE_TYPES])] : []),
    ],
    files: {
      ...files,
      'package.json': commonJs ? '{ "type": "commonjs" }\n' : '{ "type": "module" }\n',
      'node_modules/@jest/globals/package.json':
        '{ "name": "@jest/globals", "main": "index.js", "types": "index.d.ts" }\n',
      'node_modules/@jest/globals/index.js': JEST_GLOBALS_MODULE,
      'node_modules/@jest/globals/index.d.ts': JEST_GLOBALS_TYPES,
      ...(typecheck
        ? {
            'node_modules/expect/package.json': '{ "name": "expect", "types": "index.d.ts" }\n',
            'node_modules/expect/index.d.ts': EXPECT_TYPES,
          }
        : {}),
    },
    readOnly: RUNNER_READS,
    env: { TSX_DISABLE_CACHE: '1', NODE_ENV: 'test' },
    timeoutMs: limits.timeoutMs,
    memoryMb: limits.memoryMb + 256,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  });
  const expected = specTestNames(exercise.specFile, exercise.spec) ?? [];
  return { grade: judge(result, token, limits, expected), result };
}

/** Names listed in a detail before "and N more". */
const LISTED = 5;
const listed = (names: readonly string[]): string =>
  names.length <= LISTED
    ? names.join(', ')
    : `${names.slice(0, LISTED).join(', ')} and ${names.length - LISTED} more`;

/**
 * The grade of a run, from the runner's report only: 1 when every test the spec defines (`expected`; the
 * report's own tests when the spec's cannot be listed) passed, nothing else failed, and the runner saw
 * nothing changed. A run that ended with status 0 and no report was ended by the solution.
 */
function judge(result: CommandResult, token: string, limits: SpecLimits, expected: readonly string[]): Grade {
  const report = readSpecReport(result.stdout, token);
  if (report !== null && report.tampering.length > 0)
    return {
      score: 0,
      detail: tampered(`the solution changed the test framework: ${listed(report.tampering)}`),
    };
  if (result.timedOut) return { score: 0, detail: `time limit of ${limits.timeoutMs / 1000} s exceeded` };
  if (result.outputExceeded)
    return { score: 0, detail: `output limit of ${MAX_OUTPUT_BYTES} bytes exceeded` };
  if (report === null) {
    if (result.memoryExceeded) return { score: 0, detail: `memory limit of ${limits.memoryMb} MiB exceeded` };
    if (result.exitCode === 0)
      return {
        score: 0,
        detail: tampered('the test process exited with status 0 before the runner reported'),
      };
    const why = result.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 300);
    return { score: 0, detail: `the spec did not finish (exit ${result.exitCode ?? result.signal}): ${why}` };
  }
  return judgeTests(report, expected);
}

function judgeTests(report: SpecReport, expected: readonly string[]): Exclude<Grade, number> {
  const outcome = new Map<string, boolean>();
  for (const t of report.tests) outcome.set(t.name, (outcome.get(t.name) ?? true) && t.passed);
  const names = expected.length > 0 ? expected : report.tests.map((t) => t.name);
  const passed = names.filter((name) => outcome.get(name) === true).length;
  const missing = names.filter((name) => !outcome.has(name));
  const first = report.tests.find((t) => !t.passed);
  const parts = [`${passed}/${names.length} tests passed`];
  if (missing.length > 0) parts.push(`${missing.length} never ran (${listed(missing)})`);
  if (first !== undefined) parts.push(`${first.name}: ${first.message ?? 'failed'}`);
  const all = names.length > 0 && passed === names.length && first === undefined;
  return { score: all ? 1 : 0, detail: parts.join('; ') };
}
