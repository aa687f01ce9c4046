import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { CommandResult, GradeContext } from '../grade-context.ts';
import { type ExerciseLayout, type ExercismLanguage, reportFromCounts } from './language.ts';
import { checkFiles, once } from './toolchain-check.ts';

const PACKAGES = ['g++', 'cmake', 'make'];
const CATCH_HEADER = 'test/catch.hpp';
const CATCH_MAIN = 'test/tests-main.cpp';

/** The default folder of compiled Catch mains: the user's cache, which no sandbox can write. */
export function defaultCatchCache(): string {
  return path.join(
    process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'),
    'hyperagents-ts',
    'exercism-cpp',
  );
}

/**
 * Configures and builds with the exercise's own CMakeLists.txt, whose last step runs the tests. The
 * CMakeLists names the exercise after its folder, so the working directory is reached through a link named
 * after the exercise; the build folder is in the private /tmp, away from anything the workspace holds.
 * When the cache holds Catch's main compiled from these very `test/` files (same header, same main, same
 * compiler), the CMakeLists' own switch for a common Catch library links it instead of compiling it again.
 * Arguments: the exercise name, the cache folder ('' for none).
 */
const SCRIPT = `set -e
name=$1 cache=$2
set -- -DEXERCISM_RUN_ALL_TESTS=1
if [ -n "$cache" ] && [ -f ${CATCH_HEADER} ] && [ -f ${CATCH_MAIN} ]; then
  main="$cache/$(g++ -dumpfullversion)/$(sha256sum < ${CATCH_HEADER} | cut -c1-16)-$(sha256sum < ${CATCH_MAIN} | cut -c1-16)"
  if [ -f "$main/catch-main.cmake" ]; then
    set -- "$@" -DEXERCISM_COMMON_CATCH=1 "-DCMAKE_PROJECT_INCLUDE=$main/catch-main.cmake"
  fi
fi
mkdir -p /tmp/exercism
ln -s "$PWD" "/tmp/exercism/$name"
if ! cmake -S "/tmp/exercism/$name" -B /tmp/build "$@" > /tmp/cmake.log 2>&1; then
  cat /tmp/cmake.log >&2
  exit 1
fi
exec make -C /tmp/build --no-print-directory`;

/** Compiles Catch's main and prints the compiler's version, then the object in base64. */
const PREPARE_SCRIPT = `set -e
g++ -dumpfullversion
g++ -std=c++17 -c ${CATCH_MAIN} -I test -o /tmp/tests-main.o
base64 -w0 /tmp/tests-main.o`;

const ALL_PASSED = /^All tests passed \((\d+) assertions? in (\d+) test cases?\)/gm;
const SUMMARY = /^test cases: *(\d+) \|(?: *(\d+) passed)?(?: \|)?(?: *(\d+) failed)?/gm;

const sha16 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

export interface CppOptions {
  /** Where compiled Catch mains are kept; defaults to defaultCatchCache(). */
  catchCache?: string;
}

export function createCpp(options: CppOptions = {}): ExercismLanguage {
  const cache = options.catchCache ?? defaultCatchCache();
  const preparing = new Map<string, Promise<void>>();

  async function compileMain(ctx: GradeContext, support: Record<string, string>, key: string): Promise<void> {
    const result = await ctx.run({
      file: '/bin/sh',
      args: ['-c', PREPARE_SCRIPT],
      files: { [CATCH_HEADER]: support[CATCH_HEADER] ?? '', [CATCH_MAIN]: support[CATCH_MAIN] ?? '' },
      timeoutMs: 600_000,
      memoryMb: 2048,
      maxOutputBytes: 256 * 1024 * 1024,
    });
    const [version, object] = result.stdout.split('\n');
    if (result.exitCode !== 0 || !version || !object) return;
    const dir = path.join(cache, version.trim(), key);
    if (existsSync(path.join(dir, 'catch-main.cmake'))) return;
    // Written whole in a private folder, then renamed into place: a reader never sees half a cache entry.
    const partial = `${dir}.${randomBytes(6).toString('hex')}.partial`;
    mkdirSync(partial, { recursive: true });
    try {
      writeFileSync(path.join(partial, 'tests-main.o'), Buffer.from(object, 'base64'));
      const cmake = `add_library(catchlib OBJECT IMPORTED)\nset_target_properties(catchlib PROPERTIES IMPORTED_OBJECTS "${path.join(dir, 'tests-main.o')}")\n`;
      writeFileSync(path.join(partial, 'catch-main.cmake'), cmake);
      renameSync(partial, dir);
    } catch {
      // Another process put the same entry in place first.
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  }

  return {
    name: 'cpp',
    packages: PACKAGES,
    toolchain: once(() =>
      checkFiles([{ path: '/usr/bin/g++' }, { path: '/usr/bin/cmake' }, { path: '/usr/bin/make' }], PACKAGES),
    ),
    referenceTarget(layout: ExerciseLayout, example: string): string {
      const ext = path.posix.extname(example);
      return (
        layout.solution.find((file) => path.posix.extname(file) === ext) ??
        `${layout.name.replaceAll('-', '_')}${ext}`
      );
    },
    isSupportFile(relPath: string): boolean {
      return relPath === 'CMakeLists.txt' || relPath === CATCH_HEADER || relPath === CATCH_MAIN;
    },
    /** Unchanged: the tests beyond the first are enabled by EXERCISM_RUN_ALL_TESTS, which grading defines. */
    enableAllTests(files: Record<string, string>): Record<string, string> {
      return { ...files };
    },
    testCommand:
      'n=$(basename *_test.cpp _test.cpp | tr _ -) && mkdir -p /tmp/ex && ln -sfn "$PWD" /tmp/ex/$n && cmake -S /tmp/ex/$n -B build -DEXERCISM_RUN_ALL_TESTS=1 >/dev/null && make -C build',
    gradeCommand(layout: ExerciseLayout) {
      const cached = existsSync(cache);
      return {
        file: '/bin/sh',
        args: ['-c', SCRIPT, 'sh', layout.name, cached ? cache : ''],
        ...(cached ? { readOnly: [cache] } : {}),
      };
    },
    prepare(ctx: GradeContext, support: Record<string, string>): Promise<void> {
      const header = support[CATCH_HEADER];
      const main = support[CATCH_MAIN];
      if (header === undefined || main === undefined) return Promise.resolve();
      const key = `${sha16(header)}-${sha16(main)}`;
      let done = preparing.get(key);
      if (done === undefined) {
        mkdirSync(cache, { recursive: true });
        done = compileMain(ctx, support, key).catch(() => {});
        preparing.set(key, done);
      }
      return done;
    },
    isRunnerInput(relPath: string): boolean {
      return /^(CMakeLists\.txt|.*\.cmake|test\/.*|[^/]*_test\.cpp)$/.test(relPath);
    },
    expectedTests: () => [],
    readReport(result: CommandResult) {
      return reportFromCounts(countCatchTests(result.stdout));
    },
    claimsSuccess(result: CommandResult) {
      const count = countCatchTests(result.stdout);
      return count !== null && count.total > 0 && count.passed === count.total;
    },
  };
}

export const cpp = createCpp();

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
