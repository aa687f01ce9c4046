import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Grade } from './define-domain.ts';
import type { CommandResult, GradeContext } from './grade-context.ts';
import { hoistJestMocks } from './spec-hoist.ts';
import { JEST_GLOBALS, RESULT_MARK, type SpecOutcome } from './spec-runner/protocol.ts';

const RUNNER_DIR = fileURLToPath(new URL('./spec-runner/', import.meta.url));
const RUNNER = fileURLToPath(new URL('./spec-runner/runner.ts', import.meta.url));
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
      `--max-old-space-size=${limits.memoryMb}`,
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
    readOnly: [RUNNER_DIR, ...(typecheck && NODE_TYPES !== null ? [NODE_TYPES] : [])],
    env: { TSX_DISABLE_CACHE: '1', NODE_ENV: 'test' },
    timeoutMs: limits.timeoutMs,
    memoryMb: limits.memoryMb + 256,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  });
  return { grade: judge(result, token, limits), result };
}

function judge(result: CommandResult, token: string, limits: SpecLimits): Grade {
  if (result.timedOut) return { score: 0, detail: `time limit of ${limits.timeoutMs / 1000} s exceeded` };
  if (result.outputExceeded)
    return { score: 0, detail: `output limit of ${MAX_OUTPUT_BYTES} bytes exceeded` };
  const outcome = parseOutcome(result.stdout, token);
  if (outcome === null) {
    if (result.memoryExceeded) return { score: 0, detail: `memory limit of ${limits.memoryMb} MiB exceeded` };
    const why = result.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 300);
    return { score: 0, detail: `the spec did not finish (exit ${result.exitCode ?? result.signal}): ${why}` };
  }
  const first = outcome.failures[0];
  const detail = `${outcome.passed}/${outcome.total} tests passed${first ? `; ${first.name}: ${first.message}` : ''}`;
  return { score: outcome.total > 0 && outcome.passed === outcome.total ? 1 : 0, detail };
}

/** The runner's outcome from its output: the last line that carries the token, or null when none did. */
export function parseOutcome(stdout: string, token: string): SpecOutcome | null {
  const mark = `${RESULT_MARK}${token}`;
  const at = stdout.lastIndexOf(mark);
  if (at < 0) return null;
  try {
    return JSON.parse(stdout.slice(at + mark.length).split('\n')[0] ?? '') as SpecOutcome;
  } catch {
    return null;
  }
}
