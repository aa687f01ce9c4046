import type { CommandResult } from '../grade-context.ts';
import { type ExerciseLayout, type ExercismLanguage, MAX_OUTPUT_BYTES } from './language.ts';
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
 * The grading script, in three steps that never overlap:
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

export const rust: ExercismLanguage = {
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
  gradeCommand(_layout: ExerciseLayout, token: string) {
    return { file: '/bin/sh', args: ['-c', SCRIPT, CARGO, ...CRATE_SOURCE], stdin: `${token}\n` };
  },
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
  unsupported({ files }) {
    const manifest = files['Cargo.toml'];
    if (manifest === undefined) return null;
    crates ??= registryVersions(DEBIAN_CRATES);
    const missing = missingCrates(manifest, crates);
    return missing.length === 0
      ? null
      : `needs crates that ${DEBIAN_CRATES} (Debian's librust-*-dev packages) does not hold: ${missing.join('; ')}`;
  },
  async run(ctx, files, layout, limits, token) {
    const own = edition(files['Cargo.toml'] ?? '');
    const wrapped = Object.fromEntries(
      Object.entries(files).map(([rel, text]) => [
        rel,
        TEST_FILE.test(rel) ? wrapTests(text, HARNESS_SOURCE, own) : text,
      ]),
    );
    return ctx.run({
      ...rust.gradeCommand(layout, token),
      files: wrapped,
      timeoutMs: limits.timeoutMs,
      memoryMb: limits.memoryMb,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    });
  },
};
