import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { CommandResult, GradeContext } from '../grade-context.ts';
import { catchTestNames, countCatchTests, readCatchReport } from './cpp-report.ts';
import { checkPreprocessed, identifiers } from './cpp-source-check.ts';
import {
  type ExerciseLayout,
  type ExercismLanguage,
  type GradeLimits,
  MAX_OUTPUT_BYTES,
  type TestReport,
} from './language.ts';
import { checkFiles, once } from './toolchain-check.ts';

const PACKAGES = ['g++', 'cmake', 'make'];
const CATCH_HEADER = 'test/catch.hpp';
const CATCH_MAIN = 'test/tests-main.cpp';
/** Where the exercise folder is reached inside the sandbox: its CMakeLists names the exercise after it. */
const ROOT = '/tmp/exercism';
/**
 * The test main grading links instead of the exercise's `test/tests-main.cpp`: Catch with the exercise's
 * command line, plus the per-test report carrying the grading's token (see the file's header).
 */
export const REPORT_MAIN = readFileSync(new URL('./cpp-report-main.cpp', import.meta.url), 'utf8');
/** Processes and threads a C++ grading run may have at once: `bank-account`'s test starts 1,000 threads. */
const PROCESSES = 1536;
/** Output of the step that hands back the preprocessed sources (the test file's is about 3 MB). */
const SOURCES_BYTES = 64 * 1024 * 1024;

/** The default folder of compiled Catch mains: the user's cache, which no sandbox can write. */
export function defaultCatchCache(): string {
  return path.join(
    process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'),
    'hyperagents-ts',
    'exercism-cpp',
  );
}

/**
 * The first grading step: configures the exercise's own CMakeLists.txt and preprocesses the test file and
 * the solution's source with its flags (`-E -dD`: directives kept, so the check sees every macro the
 * solution defines). Nothing of the solution runs here. Prints, each on a line of its own, the compile
 * commands, the link command and each preprocessed source, in base64; diagnostics go to stderr. When the
 * cache holds the report main compiled for these very Catch and compiler, the CMakeLists' switch for a
 * common Catch library links it instead of compiling it again. Arguments: exercise name, cache ('' for none).
 */
const SOURCES_SCRIPT = `set -e
name=$1 cache=$2
file=$(printf %s "$name" | tr - _)
printf '%s\\n' 'set(CMAKE_CXX_CREATE_PREPROCESSED_SOURCE "<CMAKE_CXX_COMPILER> <DEFINES> <INCLUDES> <FLAGS> -E -dD <SOURCE> -o <PREPROCESSED_SOURCE>")' > /tmp/grading.cmake
set -- -DEXERCISM_RUN_ALL_TESTS=1 -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_PROJECT_INCLUDE=/tmp/grading.cmake
if [ -n "$cache" ] && [ -f ${CATCH_HEADER} ]; then
  main="$cache/$(g++ -dumpfullversion)/$(sha256sum < ${CATCH_HEADER} | cut -c1-16)-$(sha256sum < ${CATCH_MAIN} | cut -c1-16)"
  if [ -f "$main/catch-main.cmake" ]; then
    printf 'include("%s")\\n' "$main/catch-main.cmake" >> /tmp/grading.cmake
    set -- "$@" -DEXERCISM_COMMON_CATCH=1
  fi
fi
mkdir -p ${ROOT}
ln -s "$PWD" "${ROOT}/$name"
if ! cmake -S "${ROOT}/$name" -B /tmp/build "$@" > /tmp/cmake.log 2>&1 < /dev/null; then
  cat /tmp/cmake.log >&2
  exit 1
fi
targets="\${file}_test.cpp.i"
if [ -f "\${file}.cpp" ]; then targets="$targets \${file}.cpp.i"; fi
make -C /tmp/build --no-print-directory $targets >&2 < /dev/null
cd /tmp/build
printf 'commands '; base64 -w0 compile_commands.json; echo
printf 'link '; base64 -w0 "CMakeFiles/$name.dir/link.txt"; echo
for target in $targets; do
  printf 'source %s ' "\${target%.i}"; base64 -w0 "CMakeFiles/$name.dir/$target"; echo
done`;

/** Compiles Catch's main and prints the compiler's version, then the object in base64. */
const PREPARE_SCRIPT = `set -e
g++ -dumpfullversion
g++ -std=c++17 -c ${CATCH_MAIN} -I test -o /tmp/tests-main.o
base64 -w0 /tmp/tests-main.o`;

const sha16 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);
const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

export interface CppOptions {
  /** Where compiled Catch mains are kept; defaults to defaultCatchCache(). */
  catchCache?: string;
}

/** One translation unit as CMake compiles it (compile_commands.json). */
interface CompileCommand {
  directory: string;
  command: string;
  file: string;
}

/** What the first step handed back, or why it did not. */
type Sources =
  | { ok: true; commands: CompileCommand[]; link: string; preprocessed: Map<string, string> }
  | { ok: false; why: string };

function readSources(stdout: string): Sources {
  let commands: CompileCommand[] | undefined;
  let link: string | undefined;
  const preprocessed = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const [kind, a = '', b = ''] = line.split(' ');
    if (kind === 'commands') commands = JSON.parse(Buffer.from(a, 'base64').toString('utf8'));
    else if (kind === 'link') link = Buffer.from(a, 'base64').toString('utf8').trim();
    else if (kind === 'source') preprocessed.set(a, b);
  }
  if (commands === undefined || link === undefined || preprocessed.size === 0)
    return { ok: false, why: 'the build step did not hand back its sources' };
  return { ok: true, commands, link, preprocessed };
}

/** The names the test file's translation unit keeps from the solution: Catch's and the tests'. */
const reservedFor = (() => {
  const byCatch = new Map<string, Set<string>>();
  return (catchHeader: string, tests: readonly string[]): Set<string> => {
    const key = sha16(catchHeader);
    let names = byCatch.get(key);
    if (names === undefined) {
      names = identifiers(catchHeader);
      byCatch.set(key, names);
    }
    const reserved = new Set(names);
    for (const test of tests) for (const name of identifiers(test)) reserved.add(name);
    for (const name of ['EXERCISM_RUN_ALL_TESTS', 'EXERCISM_TEST_SUITE', 'EXERCISM_COMMON_CATCH'])
      reserved.add(name);
    return reserved;
  };
})();

/**
 * Whether the cache holds an entry for this key under some compiler version: then compiling again is left
 * out (grading itself picks the entry of the compiler it runs, and compiles Catch's main when there is none).
 */
function cachedFor(cache: string, key: string): boolean {
  try {
    return readdirSync(cache).some((version) =>
      existsSync(path.join(cache, version, key, 'catch-main.cmake')),
    );
  } catch {
    return false;
  }
}

/** Compiles Catch's main for `catchHeader` in the sandbox, into `cache` under `key`; quiet on failure. */
async function compileMain(
  cache: string,
  ctx: GradeContext,
  catchHeader: string,
  key: string,
): Promise<void> {
  const result = await ctx.run({
    file: '/bin/sh',
    args: ['-c', PREPARE_SCRIPT],
    files: { [CATCH_HEADER]: catchHeader, [CATCH_MAIN]: REPORT_MAIN },
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

/**
 * Grades in two sandboxed steps. The first preprocesses the test file and the solution's source (no
 * solution code runs); the harness checks what came back (cpp-source-check.ts). The second compiles
 * exactly those preprocessed sources with the exercise's flags, links the report main, and runs the
 * tests with the token on standard input, which the report main reads before any solution code runs.
 * `cache`: the compiled Catch mains, mounted read-only when there.
 */
async function gradeCpp(
  cache: string,
  ctx: GradeContext,
  files: Record<string, string>,
  layout: ExerciseLayout,
  limits: GradeLimits,
  token: string,
): Promise<CommandResult> {
  const cached = existsSync(cache);
  const readOnly = cached ? { readOnly: [cache] } : {};
  const copy = { ...files, [CATCH_MAIN]: REPORT_MAIN };
  const first = await ctx.run({
    file: '/bin/sh',
    args: ['-c', SOURCES_SCRIPT, 'sh', layout.name, cached ? cache : ''],
    files: copy,
    ...readOnly,
    timeoutMs: limits.timeoutMs,
    memoryMb: limits.memoryMb,
    maxOutputBytes: SOURCES_BYTES,
  });
  if (first.exitCode !== 0 || first.timedOut) return { ...first, stdout: '' };
  const sources = readSources(first.stdout);
  if (!sources.ok) return { ...first, exitCode: 1, stdout: '', stderr: `${first.stderr}\n${sources.why}` };
  const root = `${ROOT}/${layout.name}`;
  const checked = new Map<string, string>();
  const refused: string[] = [];
  const reserved = reservedFor(
    files[CATCH_HEADER] ?? '',
    layout.test.map((t) => files[t] ?? ''),
  );
  const exerciseFiles = [...layout.test, CATCH_HEADER];
  for (const [rel, encoded] of sources.preprocessed) {
    const text = Buffer.from(encoded, 'base64').toString('utf8');
    const isTest = layout.test.includes(rel);
    for (const why of checkPreprocessed(text, { root, exerciseFiles }, isTest ? reserved : new Set()))
      refused.push(`${isTest ? (layout.solution.find((f) => f.endsWith('.h')) ?? rel) : rel} ${why}`);
    checked.set(rel, encoded);
  }
  if (refused.length > 0)
    return { ...first, exitCode: 1, stdout: `${token} ${JSON.stringify({ refused })}\n`, stderr: '' };
  const script = buildScript(layout.name, root, sources, checked);
  if (script === null)
    return {
      ...first,
      exitCode: 1,
      stdout: '',
      stderr: 'the build step compiles a file grading did not check',
    };
  const second = await ctx.run({
    file: '/bin/sh',
    args: ['-c', script, 'sh', layout.name],
    files: {
      ...copy,
      ...Object.fromEntries([...checked.values()].map((encoded, i) => [`.grading/${i}.b64`, encoded])),
    },
    ...readOnly,
    stdin: `${token}\n`,
    timeoutMs: Math.max(1000, limits.timeoutMs - first.durationMs),
    memoryMb: limits.memoryMb,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    processes: PROCESSES,
  });
  const interposed = second.exitCode === INTERPOSED_EXIT ? INTERPOSED.exec(second.stdout)?.[1] : undefined;
  if (interposed !== undefined) {
    const why = `defines ${interposed.trim().split(' ').join(', ')}, which the C and C++ libraries define (replacing them for the test main too)`;
    return { ...second, stdout: `${token} ${JSON.stringify({ refused: [why] })}\n` };
  }
  return { ...second, durationMs: first.durationMs + second.durationMs };
}

export function createCpp(options: CppOptions = {}): ExercismLanguage {
  const cache = options.catchCache ?? defaultCatchCache();
  const preparing = new Map<string, Promise<void>>();

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
    gradeCommand() {
      throw new Error('C++ exercises are graded by run(): preprocess, check, then build and run');
    },
    run: (ctx, files, layout, limits, token) => gradeCpp(cache, ctx, files, layout, limits, token),
    prepare(ctx: GradeContext, support: Record<string, string>): Promise<void> {
      const header = support[CATCH_HEADER];
      if (header === undefined) return Promise.resolve();
      const key = `${sha16(header)}-${sha16(REPORT_MAIN)}`;
      let done = preparing.get(key);
      if (done === undefined && cachedFor(cache, key)) done = Promise.resolve();
      if (done === undefined) {
        mkdirSync(cache, { recursive: true });
        done = compileMain(cache, ctx, header, key).catch(() => {});
        preparing.set(key, done);
      }
      return done;
    },
    isRunnerInput(relPath: string): boolean {
      return /^(CMakeLists\.txt|.*\.cmake|test\/.*|[^/]*_test\.cpp)$/.test(relPath);
    },
    expectedTests(tests: Record<string, string>, layout: ExerciseLayout): string[] {
      return layout.test.flatMap((file) => catchTestNames(tests[file] ?? ''));
    },
    readReport(result: CommandResult, token: string): TestReport | null {
      return readCatchReport(result.stdout, token);
    },
    claimsSuccess(result: CommandResult) {
      const count = countCatchTests(result.stdout);
      return count !== null && count.total > 0 && count.passed === count.total;
    },
  };
}

/** The libraries every test binary links, whose functions a solution must not define in their place. */
const LIBRARIES = ['libc.so.6', 'libm.so.6', 'libstdc++.so.6', 'libgcc_s.so.1'];
/**
 * The symbols of the checked objects that would take the place of a library's (`nm` types): every strong
 * definition, and weak ones that are not C++ template or inline instances (those are named `_Z...`).
 */
const INTERPOSABLE = '($2 ~ /^[TDBRGS]$/) || ($2 ~ /^[WVi]$/ && $1 !~ /^_Z/) { print $1 }';
/** The second step's exit when the solution defines a library's function (before anything runs). */
const INTERPOSED_EXIT = 97;
const INTERPOSED = /^interposed: (.*)$/m;

/**
 * The second step's script: compiles each checked source as preprocessed input (`.ii`: no directive of
 * the solution is read again), with CMake's own command for it; refuses objects that define a function
 * of the libraries the binary links (a `write` of the solution's would see the report), links with
 * CMake's link command (stripped), and
 * execs the test binary, so that the binary, not a shell, is what holds standard input (the token). The
 * compilers get /dev/null as input. Null when CMake compiles a file that is neither checked nor the
 * report main.
 */
function buildScript(
  name: string,
  root: string,
  sources: Extract<Sources, { ok: true }>,
  checked: Map<string, string>,
): string | null {
  const index = new Map([...checked.keys()].map((rel, i) => [rel, i]));
  const steps: string[] = [];
  const objects: string[] = [];
  for (const entry of sources.commands) {
    const rel = path.posix.relative(root, entry.file);
    steps.push(`echo ${shellQuote(`Compiling ${rel}`)}`);
    if (rel === CATCH_MAIN) {
      steps.push(entry.command);
      continue;
    }
    const i = index.get(rel);
    const at = entry.command.lastIndexOf(` -c ${entry.file}`);
    if (i === undefined || at < 0) return null;
    const ii = `/tmp/grading/${i}.ii`;
    const object = / -o (\S+)/.exec(entry.command)?.[1];
    if (object === undefined) return null;
    objects.push(object);
    steps.push(`base64 -d < "$work/.grading/${i}.b64" > ${ii}`);
    steps.push(
      `${entry.command.slice(0, at)} -c ${ii}${entry.command.slice(at + ` -c ${entry.file}`.length)}`,
    );
  }
  return `set -e
work=$PWD
mkdir -p ${ROOT} /tmp/grading /tmp/build/CMakeFiles/${shellQuote(`${name}.dir`)}/test
ln -s "$PWD" ${shellQuote(root)}
cd /tmp/build
{
${steps.join('\n')}
nm -g --defined-only --format=posix ${objects.join(' ')} | awk '${INTERPOSABLE}' | sort -u > /tmp/grading/defined
for lib in ${LIBRARIES.join(' ')}; do nm -D --defined-only --format=posix "$(g++ -print-file-name=$lib)"; done | awk '{ sub(/@.*/, "", $1); print $1 }' | sort -u > /tmp/grading/libraries
interposed=$(comm -12 /tmp/grading/defined /tmp/grading/libraries | tr '\n' ' ')
if [ -n "$interposed" ]; then echo "interposed: $interposed"; exit ${INTERPOSED_EXIT}; fi
${sources.link} -s
} < /dev/null
exec ./${shellQuote(name)}`;
}

export const cpp = createCpp();
