import type { CommandResult } from '../grade-context.ts';
import { type ExerciseLayout, type ExercismLanguage, reportFromCounts } from './language.ts';
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

/**
 * `cargo test` with every target that holds tests (the library's unit tests and `tests/`, not doc tests:
 * grading is about the exercise's tests, not the examples in a solution's comments), every test binary run
 * even after one fails (so the count covers them all), and `#[ignore]` lifted.
 */
const TEST_ARGS = ['test', '--offline', '--tests', '--no-fail-fast', '--', '--include-ignored'];

/**
 * Cargo's home and target folder in the working directory (the only writable place), no incremental
 * cache (a clean build never reuses it; writing it costs time) and no debug info (faster to build and link;
 * a panic still names the test and its message).
 */
const SCRIPT =
  'CARGO_HOME="$PWD/.cargo" CARGO_TARGET_DIR="$PWD/target" CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0 CARGO_TERM_COLOR=never exec "$0" "$@"';

const IGNORE_LINE = /^[ \t]*#\[ignore(?:\s*=\s*"[^"\n]*")?\][ \t]*\r?\n/gm;
const RUNNING = /^running (\d+) tests?$/gm;
const RESULT = /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured/gm;

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
  gradeCommand() {
    return { file: '/bin/sh', args: ['-c', SCRIPT, CARGO, ...CRATE_SOURCE, ...TEST_ARGS] };
  },
  isRunnerInput(relPath: string): boolean {
    return /^(Cargo\.toml|build\.rs|\.cargo\/.*|tests\/.*|benches\/.*|examples\/.*|rust-toolchain(\.toml)?)$/.test(
      relPath,
    );
  },
  expectedTests: () => [],
  readReport(result: CommandResult) {
    return reportFromCounts(countRustTests(result.stdout));
  },
  claimsSuccess(result: CommandResult) {
    const count = countRustTests(result.stdout);
    return count !== null && count.total > 0 && count.passed === count.total;
  },
};

/**
 * Passed and total from libtest's output: each test binary says `running N tests` when it starts and
 * `test result: ...` when it ends. The total is what the binaries started, so a binary that crashed
 * before its result (a stack overflow, an abort) leaves its tests counted as not passed.
 */
export function countRustTests(stdout: string): { passed: number; total: number } | null {
  const started = [...stdout.matchAll(RUNNING)].map((m) => Number(m[1]));
  if (started.length === 0) return null;
  let passed = 0;
  let reported = 0;
  for (const m of stdout.matchAll(RESULT)) {
    passed += Number(m[1]);
    reported += Number(m[1]) + Number(m[2]) + Number(m[3]) + Number(m[4]);
  }
  const total = Math.max(
    reported,
    started.reduce((a, b) => a + b, 0),
  );
  return { passed, total };
}
