import type { CommandResult, GradeContext } from '../grade-context.ts';
import { defaultBuildCache } from './build-cache.ts';
import {
  type ExerciseLayout,
  type ExercismLanguage,
  type GradeLimits,
  MAX_OUTPUT_BYTES,
} from './language.ts';
import { builtDependencies, prepareDependencies } from './rust-deps.ts';
import { HARNESS_SOURCE, LIST_MARK, RUN_MARK, readHarnessReport } from './rust-harness.ts';
import { gradingManifest, missingCrates, registryVersions } from './rust-manifest.ts';
import { solutionSourceProblem } from './rust-solution.ts';
import { definedTests, wrapTests } from './rust-tests.ts';
import { checkFiles, once } from './toolchain-check.ts';

const CARGO = '/usr/bin/cargo';
const RUSTC = '/usr/bin/rustc';
/** Where Debian's `librust-*-dev` packages put crate sources: the only crates a solution can use offline. */
export const DEBIAN_CRATES = '/usr/share/cargo/registry';

/**
 * crates.io replaced by Debian's crate folder, given on the command line so that no file in the workspace
 * decides it. Cargo reads these over any `.cargo/config.toml`.
 */
const CRATE_SOURCE = [
  '--config',
  'source.crates-io.replace-with="debian-packages"',
  '--config',
  `source.debian-packages.directory="${DEBIAN_CRATES}"`,
];

/** Test files are the top-level files of `tests/`; folders under it hold what tests read. */
const TEST_FILE = /^tests\/[^/]+\.rs$/;

/**
 * The grading script, in three steps that never overlap (after copying the grader's compiled dependencies
 * of the manifest, when it has them, into the fresh target folder: see rust-deps.ts):
 * 1. build every integration test (`--test '*'`: never the library's own `#[test]`s, which are the
 *    solution's) with standard input closed, then delete the test sources (a solution reading them at run
 *    time would find the expected answers);
 * 2. list each binary's tests (`--list` runs no solution code), between marks the solution cannot write
 *    before, since none of its code has run yet;
 * 3. run the tests with the key on standard input. One binary (the usual case) takes the shell's standard
 *    input itself, so no other process ever holds the key; with several, the shell reads the key and hands
 *    it to each binary through a pipe of its own, and the exit status is the first failing binary's.
 */
const SCRIPT = `export CARGO_HOME="$PWD/.cargo" CARGO_TARGET_DIR="$PWD/target" CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0 CARGO_TERM_COLOR=never
[ -z "$GRADING_DEPENDENCIES" ] || cp -R -p "$GRADING_DEPENDENCIES/target" "$CARGO_TARGET_DIR" || exit 3
"$0" "$@" test --offline --no-run --test '*' --message-format=json-render-diagnostics </dev/null >target.json || exit $?
bins=$(sed -n 's/.*"executable":"\\([^"]*\\)".*/\\1/p' target.json)
rm -f target.json tests/*.rs
[ -n "$bins" ] || { echo 'cargo built no test binary' >&2; exit 3; }
for bin in $bins; do
  name=\${bin##*/}
  printf '%s %s\\n' '${LIST_MARK}' "\${name%-*}"
  "$bin" --list </dev/null || exit $?
done
printf '%s\\n' '${RUN_MARK}'
set -- $bins
[ $# -gt 1 ] || exec "$1" --include-ignored
IFS= read -r key
status=0
for bin; do
  printf '%s\\n' "$key" | "$bin" --include-ignored
  code=$?
  [ "$status" -ne 0 ] || status=$code
done
exit $status`;

const IGNORE_LINE = /^[ \t]*#\[ignore(?:\s*=\s*"[^"\n]*")?\][ \t]*\r?\n/gm;

const edition = (manifest: string): string => /^\s*edition\s*=\s*"(\d{4})"/m.exec(manifest)?.[1] ?? '2015';

/** The local registry's crates, read once per process (installing a package means a new run). */
let crates: Map<string, string[]> | undefined;

/** The grading command; the key (`token`) goes to standard input. */
const gradeCommand = (token: string) => ({
  file: '/bin/sh',
  args: ['-c', SCRIPT, CARGO, ...CRATE_SOURCE],
  stdin: `${token}\n`,
});

/**
 * Runs the tests on the grading copy: each test file wrapped by the harness, and the grader's compiled
 * dependencies of the manifest (when `cache` holds them) copied into the fresh target folder.
 */
function gradeRust(
  cache: string | null,
  ctx: GradeContext,
  files: Record<string, string>,
  _layout: ExerciseLayout,
  limits: GradeLimits,
  token: string,
): Promise<CommandResult> {
  const own = edition(files['Cargo.toml'] ?? '');
  const wrapped = Object.fromEntries(
    Object.entries(files).map(([rel, text]) => [
      rel,
      TEST_FILE.test(rel) ? wrapTests(text, HARNESS_SOURCE, own) : text,
    ]),
  );
  const dependencies = cache === null ? null : builtDependencies(files['Cargo.toml'], cache);
  return ctx.run({
    ...gradeCommand(token),
    ...(dependencies === null
      ? {}
      : { readOnly: [dependencies], env: { GRADING_DEPENDENCIES: dependencies } }),
    files: wrapped,
    timeoutMs: limits.timeoutMs,
    memoryMb: limits.memoryMb,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  });
}

export interface RustOptions {
  /** Where exercises' compiled dependencies are kept (rust-deps.ts); defaultBuildCache('rust') when left out, none when null. */
  buildCache?: string | null;
}

export function createRust(options: RustOptions = {}): ExercismLanguage {
  const cache = options.buildCache === undefined ? defaultBuildCache('rust') : options.buildCache;
  const building = new Map<string, Promise<void>>();
  return {
    name: 'rust',
    packages: ['rustc', 'cargo'],
    toolchain: once(() => checkFiles([{ path: CARGO }, { path: RUSTC }], ['rustc', 'cargo'])),
    referenceTarget(_layout: ExerciseLayout, example: string): string {
      if (example === '.meta/example.rs') return 'src/lib.rs';
      // Some exercises keep the manifest their example needs (its crates) beside it.
      if (example === '.meta/Cargo-example.toml') return 'Cargo.toml';
      return example.replace(/^\.meta\//, '');
    },
    /**
     * The manifest, sources beside the solution (`src/pre_implemented.rs`), benches, and the inputs tests
     * read from folders under `tests/` (`tests/invalid/*.rs`, which must fail to compile). Test files right
     * in `tests/` are tests, never support: they stay hidden.
     */
    isSupportFile(relPath: string): boolean {
      return /^(Cargo\.toml|Cargo\.lock|src\/.+|benches\/.+|tests\/[^/]+\/.+)$/.test(relPath);
    },
    enableAllTests(files: Record<string, string>): Record<string, string> {
      return Object.fromEntries(
        Object.entries(files).map(([rel, text]) => [
          rel,
          rel.endsWith('.rs') ? text.replace(IGNORE_LINE, '') : text,
        ]),
      );
    },
    testCommand: `cargo ${CRATE_SOURCE.map((arg) => (arg.startsWith('--') ? arg : `'${arg}'`)).join(' ')} test --offline -- --include-ignored`,
    gradeCommand: (_layout, token) => gradeCommand(token),
    /**
     * What Cargo reads besides the solution to decide what runs: the manifest, a build script, `.cargo/`
     * configuration, tests, benches, examples, a toolchain file. Not `Cargo.lock` or `target/`, which Cargo
     * writes, nor a `src/main.rs` an agent tried things in: the grading copy never holds it.
     */
    isRunnerInput(relPath: string): boolean {
      return /^(Cargo\.toml|build\.rs|\.cargo\/.*|tests\/.*|benches\/.*|examples\/.*|rust-toolchain(\.toml)?)$/.test(
        relPath,
      );
    },
    expectedTests(tests: Record<string, string>): string[] {
      return Object.entries(tests)
        .filter(([rel]) => TEST_FILE.test(rel))
        .flatMap(([rel, text]) => definedTests(rel, text));
    },
    readReport: readHarnessReport,
    claimsSuccess(result: CommandResult) {
      return /^test result: ok\. \d+ passed/m.test(result.stdout);
    },
    /**
     * The manifest: the exercise's own with the answer's `[dependencies]` (rust-manifest.ts). A source file:
     * as written, unless it reaches around the harness (rust-solution.ts).
     */
    solutionText(relPath, text, exercise) {
      if (relPath === 'Cargo.toml') {
        const own = exercise['Cargo.toml'];
        if (own === undefined) throw new Error('the exercise’s own Cargo.toml is not in the answer');
        const checked = gradingManifest(text, own);
        return 'refused' in checked ? { refused: `Cargo.toml: ${checked.refused}` } : checked;
      }
      const problem = relPath.endsWith('.rs') ? solutionSourceProblem(text) : null;
      return problem === null ? { text } : { refused: `${relPath}: ${problem}` };
    },
    prepare: (ctx, support) =>
      cache === null
        ? Promise.resolve()
        : prepareDependencies(ctx, support, cache, building, { file: CARGO, args: CRATE_SOURCE }),
    unsupported({ files }) {
      const manifest = files['Cargo.toml'];
      if (manifest === undefined) return null;
      crates ??= registryVersions(DEBIAN_CRATES);
      const missing = missingCrates(manifest, crates);
      return missing.length === 0
        ? null
        : `needs crates that ${DEBIAN_CRATES} (Debian's librust-*-dev packages) does not hold: ${missing.join('; ')}`;
    },
    run: (ctx, files, layout, limits, token) => gradeRust(cache, ctx, files, layout, limits, token),
  };
}

export const rust = createRust();
