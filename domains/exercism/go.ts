import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CommandResult, GradeContext } from '../grade-context.ts';
import { buildOnce, defaultBuildCache, markUsed, sha16 } from './build-cache.ts';
import {
  type BuildContext,
  declaredData,
  goMod,
  imports,
  packageName,
  selectedTestFiles,
  testFunctions,
} from './go-source.ts';
import { type ExercismLanguage, MAX_OUTPUT_BYTES, type TestOutcome, type TestReport } from './language.ts';
import { toolchainStatus } from './toolchain.ts';

const PACKAGES = ['golang-go'] as const;

/** The harness compiled into every test binary (see its package comment for the contract). */
const HARNESS = readFileSync(new URL('./go-harness/harness.go', import.meta.url), 'utf8');
/** The one test the binary runs: the harness runs the exercise's tests under it. */
const GRADING_TEST = 'TestExercismGrading';
const REPORT = 'go-grading-report ';
/** Printed by the grading script, before any solution code has run, when it refuses the solution. */
const REFUSED = 'go-grading-refused: ';

/**
 * Imports a solution may not have: they reach the process's memory or file descriptors (`unsafe`,
 * `syscall`, `runtime/debug`'s heap dump), the test framework (`testing`), files at build time (`embed`),
 * or code the grader does not see (`C`, `plugin`). No Exercism solution needs them.
 */
const REFUSED_IMPORTS = [
  'unsafe',
  'syscall',
  'runtime/debug',
  'testing',
  'testing/*',
  'embed',
  'C',
  'plugin',
];

/**
 * The installed Go: its minor version and GOROOT, read once. Null when `go env` does not run (the
 * toolchain check then refuses every exercise first).
 */
let installed: { minor: number; version: string; goroot: string } | null | undefined;
function installedGo(): { minor: number; version: string; goroot: string } | null {
  if (installed !== undefined) return installed;
  const result = spawnSync('/usr/bin/go', ['env', 'GOVERSION', 'GOROOT'], {
    env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent', GOTOOLCHAIN: 'local' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const [version = '', goroot = ''] = (result.stdout ?? '').trim().split('\n');
  const minor = /^go1\.(\d+)/.exec(version)?.[1];
  installed = result.status === 0 && minor !== undefined ? { minor: Number(minor), version, goroot } : null;
  return installed;
}

/** The grader's compiled standard library for the installed Go under `root`, or null (no Go, no cache). */
export function stdlibCache(root: string | null): string | null {
  const go = installedGo();
  return go === null || root === null ? null : path.join(root, `${go.version}-${sha16(go.goroot)}`);
}

/**
 * Compiles the whole standard library into `into`, in the grading sandbox with the grading's settings
 * (the cache is keyed by every input, settings included), from the toolchain alone: no exercise, no answer.
 */
async function buildStdlib(ctx: GradeContext, into: string): Promise<boolean> {
  const result = await ctx.run({
    file: '/bin/sh',
    args: ['-c', [...GO_ENV, 'export GOCACHE="$1"', 'go build std </dev/null'].join('\n'), 'sh', into],
    env: { CGO_ENABLED: '0' },
    files: {},
    readWrite: [into],
    timeoutMs: 900_000,
    memoryMb: 4096,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  });
  return result.exitCode === 0;
}

const buildContext = (): BuildContext => ({ goMinor: installedGo()?.minor ?? 0 });

/** The exercise's test functions, in file order, from the test files a build selects. */
function exerciseTests(files: Record<string, string>): string[] {
  return selectedTestFiles(files, buildContext()).flatMap(([, text]) => testFunctions(text));
}

/** The module path, safe to put in a shell pattern and a Go import path. */
function modulePath(files: Record<string, string>): string | null {
  const module = goMod(files['go.mod'] ?? '').module;
  return module !== null && /^[A-Za-z0-9._~/-]+$/.test(module) ? module : null;
}

/** The go command's settings in every grading step: module mode, no proxy, no toolchain download. */
const GO_ENV = [
  'export GOPATH="$PWD/.go/path" GOMODCACHE="$PWD/.go/path/pkg/mod"',
  'export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GO111MODULE=on GOTOOLCHAIN=local GOTELEMETRY=off',
];

/**
 * Grading, in the sandbox: refuse what the solution may not import (the toolchain's own `go list`, before
 * any solution code runs), build the package alone (a solution that needs the tests' own declarations to
 * build has changed the tests' data, which is refused), build the test binary with the harness, delete the
 * harness's sources, then run the binary with the token on standard input. Module mode without a proxy.
 * The build cache is the grader's compiled standard library (`$1`), mounted read-only: the go command
 * reads it and its writes there fail quietly, so nothing of an answer outlives its grading. Without
 * it (`$1` empty), a cache inside the working directory.
 */
function script(module: string, harnessDir: string, testData: readonly string[]): string {
  const refusedCase = [...REFUSED_IMPORTS, module, `${module}/*`].join('|');
  return [
    ...GO_ENV,
    'export GOCACHE="$1"',
    '[ -n "$GOCACHE" ] || GOCACHE="$PWD/.go/cache"',
    `imports=$(go list -f '{{join .Imports " "}}' . </dev/null) || exit 3`,
    'refused=""',
    'for p in $imports; do',
    `  case "$p" in ${refusedCase}) refused="$refused $p";; esac`,
    'done',
    `if [ -n "$refused" ]; then echo "${REFUSED}the solution imports$refused"; exit 3; fi`,
    'mkdir -p .go',
    // A solution may use the tests' helper functions (bottle-song's reference uses their Title), never
    // their variables or types: naming those, it could change the cases the tests check. The package
    // built without its tests says which names the solution takes from them (-e: every error, not ten).
    'if ! go build -gcflags=-e ./... </dev/null 2>.go/build.log; then',
    "  taken=''",
    `  for n in $(sed -n 's/.*undefined: \\([A-Za-z0-9_]*\\).*/\\1/p' .go/build.log | sort -u); do`,
    `    case " ${testData.join(' ')} " in *" $n "*) taken="$taken $n";; esac`,
    '  done',
    `  if [ -n "$taken" ]; then echo "${REFUSED}the solution uses the tests' own data:$taken"; exit 3; fi`,
    'fi',
    'go test -c -o grade.test . </dev/null || exit 3',
    // What the solution could read its expected answers from at run time: the test sources, the build
    // cache's compiled tests (and the binary, which the harness deletes once it runs).
    `rm -rf ${harnessDir} ./*_test.go .go`,
    `exec ./grade.test -test.run '^${GRADING_TEST}$' -test.v -test.paniconexit0 -test.count=1`,
  ].join('\n');
}

/** The generated test that hands the exercise's tests to the harness, in the tests' own package. */
function runnerSource(pkg: string, importPath: string, alias: string, tests: readonly string[]): string {
  const list = tests.map((name) => `\t\t{Name: ${JSON.stringify(name)}, F: ${name}},`).join('\n');
  return `package ${pkg}

import (
\t"testing"

\t${alias} ${JSON.stringify(importPath)}
)

func ${GRADING_TEST}(t *testing.T) {
\t${alias}.Run(t, []${alias}.Test{
${list}
\t})
}
`;
}

const ReportLine = z.union([
  z.object({ start: z.string() }),
  z.object({ test: z.string(), passed: z.boolean(), message: z.string() }),
  z.object({ done: z.literal(true), tampering: z.array(z.string()) }),
]);

/** The harness's report lines whose signature the token verifies; lines signed otherwise are forged. */
function readGoReport(result: CommandResult, token: string): TestReport | null {
  const refused = result.stdout
    .split('\n')
    .filter((l) => l.startsWith(REFUSED))
    .map((l) => l.slice(REFUSED.length).trim());
  if (refused.length > 0) return { tests: [], tampering: refused };
  const tests: TestOutcome[] = [];
  const tampering: string[] = [];
  let done = false;
  let forged = 0;
  /** The test that started last: the one a crash ended, when no outcome follows it. */
  let running: string | null = null;
  for (const line of result.stdout.split('\n')) {
    const at = line.indexOf(REPORT);
    if (at < 0) continue;
    const signed = /^(\{.*\}) ([0-9a-f]{64})$/.exec(line.slice(at + REPORT.length));
    if (signed === null) continue;
    const [, json = '', mac = ''] = signed;
    const expected = createHmac('sha256', token).update(json).digest();
    if (!timingSafeEqual(expected, Buffer.from(mac, 'hex'))) {
      forged++;
      continue;
    }
    const parsed = ReportLine.safeParse(JSON.parse(json));
    if (!parsed.success) continue;
    const entry = parsed.data;
    if ('start' in entry) running = entry.start;
    else if ('done' in entry) {
      done = true;
      tampering.push(...entry.tampering);
    } else
      tests.push({
        name: entry.test,
        passed: entry.passed,
        ...(entry.message ? { message: entry.message } : {}),
      });
  }
  if (running !== null && !done && !tests.some((t) => t.name === running)) {
    // Go prints the panic that ended the process on standard error; it only ever explains a failure.
    const crash = /^(panic: .*|fatal error: .*)$/m.exec(result.stderr)?.[1];
    tests.push({
      name: running,
      passed: false,
      message: crash ?? `the test process ended (${result.exitCode ?? result.signal})`,
    });
  }
  if (forged > 0) tampering.push(`${forged} report line(s) the test harness did not write`);
  const exited = /panic: unexpected call to os\.Exit\(0\) during test/.test(result.stdout + result.stderr);
  if (exited && !tampering.some((t) => t.includes('os.Exit(0)')))
    tampering.push('the solution called os.Exit(0) while the tests ran');
  if (tests.length > 0 && !done && result.exitCode === 0)
    tampering.push('the test process exited with status 0 before the tests finished');
  if (tests.length === 0 && !done && tampering.length === 0) return null;
  return { tests, tampering };
}

/** Why this exercise cannot be graded by the installed Go (see ExercismLanguage.unsupported), or null. */
function unsupportedExercise({
  tests,
  reference,
  support,
}: Parameters<NonNullable<ExercismLanguage['unsupported']>>[0]): string | null {
  const go = installedGo();
  if (go === null) return null;
  if (exerciseTests(tests).length === 0)
    return (
      `its tests define no test function (${Object.keys(tests).join(', ')}): ` +
      'the exercise asks for a test suite, and grading could not tell a right answer from a wrong one'
    );
  const mod = goMod(support['go.mod'] ?? '');
  if (mod.minor !== null && mod.minor > go.minor)
    return `its go.mod asks for Go 1.${mod.minor}, newer than the installed ${go.version}`;
  const module = mod.module ?? '';
  const all = { ...support, ...tests, ...reference };
  const missing = Object.entries(all).flatMap(([rel, text]) =>
    !rel.endsWith('.go')
      ? []
      : imports(text)
          .filter((p) => !p.includes('.') && p !== 'C' && p !== module && !p.startsWith(`${module}/`))
          .filter((p) => !existsSync(path.join(go.goroot, 'src', p)))
          .map((p) => `${rel in reference ? 'the reference ' : ''}${rel} imports ${p}`),
  );
  if (missing.length > 0)
    return `${missing.join(', ')}, which ${go.version} does not have: it needs a newer Go`;
  return null;
}

export interface GoOptions {
  /** Where the compiled standard library is kept; defaultBuildCache('go') when left out, none when null. */
  buildCache?: string | null;
}

export function createGo(options: GoOptions = {}): ExercismLanguage {
  const root = options.buildCache === undefined ? defaultBuildCache('go') : options.buildCache;
  const building = new Map<string, Promise<void>>();
  return {
    name: 'go',
    packages: PACKAGES,
    toolchain: () =>
      toolchainStatus(PACKAGES, [{ what: '/usr/bin/go', file: '/usr/bin/go', args: ['version'] }]),
    referenceTarget: (layout, example) => {
      const at = layout.example.indexOf(example);
      return layout.solution[at] ?? example.replace(/^\.meta\//, '');
    },
    isSupportFile: (rel) =>
      !rel.endsWith('_test.go') && (rel.endsWith('.go') || rel === 'go.mod' || rel === 'go.sum'),
    enableAllTests: (files) => files,
    testCommand: 'go test ./...',
    gradeCommand: () => {
      throw new Error('Go exercises are graded by run(), which adds the grading harness to the files');
    },
    // Module and workspace files, test sources and the data folder they read, vendored packages.
    isRunnerInput: (rel) =>
      /(^|\/)(go\.(mod|sum|work|work\.sum)|[^/]*_test\.go|vendor\/.*|testdata\/.*)$/.test(rel),
    expectedTests: (tests) => exerciseTests(tests),
    unsupported: unsupportedExercise,
    readReport: readGoReport,
    prepare: (ctx) => {
      const cache = stdlibCache(root);
      return cache === null
        ? Promise.resolve()
        : buildOnce(building, cache, (into) => buildStdlib(ctx, into));
    },
    claimsSuccess: (result) => /^(ok|PASS)\b/m.test(result.stdout),
    limits: { timeoutMs: 240_000, memoryMb: 4096 },
    async run(ctx, files, _layout, limits, token) {
      const module = modulePath(files) ?? 'exercise';
      const id = randomBytes(8).toString('hex');
      const harnessDir = `grading_${id}`;
      const runner = `zz_grading_${id}_test.go`;
      const testFiles = selectedTestFiles(files, buildContext());
      const pkg = packageName(testFiles[0]?.[1] ?? '') ?? 'main';
      const harnessImport = `${module}/${harnessDir}`;
      // The package under test must import the harness itself, so that the harness's init runs before
      // any of the solution's: an external test package (`x_test`) would not order them.
      const internal = pkg.endsWith('_test')
        ? {
            [`zz_grading_${id}_init_test.go`]: `package ${pkg.slice(0, -5)}\n\nimport _ ${JSON.stringify(harnessImport)}\n`,
          }
        : {};
      const cache = stdlibCache(root);
      const cached = cache !== null && existsSync(cache);
      if (cached) markUsed(cache);
      return ctx.run({
        file: '/bin/sh',
        args: [
          '-c',
          script(
            module,
            harnessDir,
            testFiles.flatMap(([, text]) => declaredData(text)),
          ),
          'sh',
          cached ? cache : '',
        ],
        ...(cached ? { readOnly: [cache] } : {}),
        env: { CGO_ENABLED: '0' },
        files: {
          ...files,
          ...(files['go.mod'] === undefined ? { 'go.mod': `module ${module}\n\ngo 1.18\n` } : {}),
          [`${harnessDir}/harness.go`]: HARNESS,
          [runner]: runnerSource(pkg, harnessImport, `grading${id}`, exerciseTests(files)),
          ...internal,
        },
        stdin: token,
        timeoutMs: limits.timeoutMs,
        memoryMb: limits.memoryMb,
        maxOutputBytes: MAX_OUTPUT_BYTES,
      });
    },
  };
}

export const go = createGo();
