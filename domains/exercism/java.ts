import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { CommandResult } from '../grade-context.ts';
import { type ExerciseLayout, type ExercismLanguage, reportFromCounts } from './language.ts';
import { checkFiles, once } from './toolchain-check.ts';

const PACKAGES = ['default-jdk-headless', 'junit5', 'libassertj-core-java'];
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const ASSERTJ = '/usr/share/java/assertj-core.jar';

/**
 * Compiles the main and test sources in one javac run and runs every test class with JUnit's console
 * launcher, classes in the private /tmp. The JVMs get a fixed heap and one garbage collector thread so
 * that they start under the sandbox's memory limit; javac runs with the quick compiler only (it is short).
 */
const SCRIPT = `set -e
cp=$1
find src -name '*.java' > /tmp/sources.txt
mkdir -p /tmp/classes
javac -J-Xmx512m -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 -encoding UTF-8 -nowarn -d /tmp/classes -cp "$cp" @/tmp/sources.txt
run=/tmp/classes:$cp
for dir in src/main/resources src/test/resources; do
  if [ -d "$dir" ]; then run=$PWD/$dir:$run; fi
done
exec java -Xmx512m -XX:+UseSerialGC -jar ${LAUNCHER} --class-path "$run" --scan-classpath /tmp/classes \\
  --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests`;

const DISABLED = /@Disabled\b(?:\s*\([^)]*\))?/g;
const DISABLED_IMPORT = /^import\s+org\.junit\.jupiter\.api\.Disabled\s*;[ \t]*\r?\n?/gm;
const SUMMARY_LINE = (what: string) => new RegExp(`^\\[\\s*(\\d+) ${what}\\s*\\]`, 'gm');

/** The folders of the JDK's configuration: its conf/ links into /etc, which the sandbox hides. */
function jdkConfigDirs(): string[] {
  try {
    return readdirSync('/etc')
      .filter((name) => /^java(-\d+)?-openjdk$/.test(name))
      .map((name) => path.join('/etc', name));
  } catch {
    return [];
  }
}

export const java: ExercismLanguage = {
  name: 'java',
  packages: PACKAGES,
  toolchain: once(() =>
    checkFiles(
      [
        { path: '/usr/bin/javac' },
        { path: '/usr/bin/java' },
        { path: LAUNCHER, readOnly: true },
        { path: ASSERTJ, readOnly: true },
      ],
      PACKAGES,
    ),
  ),
  referenceTarget(_layout: ExerciseLayout, example: string): string {
    return example.replace(/^\.meta\/src\/reference\//, 'src/main/').replace(/^\.meta\//, '');
  },
  /** The build file, and sources beside the solution (the classes an exercise gives, its resources). */
  isSupportFile(relPath: string): boolean {
    return /^(build\.gradle|settings\.gradle|src\/main\/.+)$/.test(relPath);
  },
  enableAllTests(files: Record<string, string>): Record<string, string> {
    return Object.fromEntries(
      Object.entries(files).map(([rel, text]) => [
        rel,
        rel.endsWith('.java') ? text.replace(DISABLED_IMPORT, '').replace(DISABLED, '') : text,
      ]),
    );
  },
  testCommand: `mkdir -p build && javac -d build -cp ${LAUNCHER}:${ASSERTJ} $(find src -name '*.java') && java -jar ${LAUNCHER} --class-path build:${ASSERTJ} --scan-classpath build`,
  gradeCommand(_layout: ExerciseLayout, _token: string) {
    const readOnly = jdkConfigDirs();
    return {
      file: '/bin/sh',
      args: ['-c', SCRIPT, 'sh', `${LAUNCHER}:${ASSERTJ}`],
      ...(readOnly.length > 0 ? { readOnly } : {}),
    };
  },
  isRunnerInput(relPath: string): boolean {
    return /^(build\.gradle(\.kts)?|settings\.gradle(\.kts)?|pom\.xml|src\/test\/.*|src\/main\/resources\/.*|.*META-INF\/.*|src\/main\/java\/(org|junit)\/.*)$/.test(
      relPath,
    );
  },
  expectedTests: () => [],
  readReport(result: CommandResult) {
    return reportFromCounts(countJUnitTests(result.stdout));
  },
  claimsSuccess(result: CommandResult) {
    const count = countJUnitTests(result.stdout);
    return count !== null && count.total > 0 && count.passed === count.total;
  },
};

/**
 * Passed and total from the console launcher's summary: tests successful of tests found (a test that was
 * found but never ran, say after its class failed to start, counts as not passed). Null without a summary.
 */
export function countJUnitTests(stdout: string): { passed: number; total: number } | null {
  const found = [...stdout.matchAll(SUMMARY_LINE('tests found'))].at(-1);
  const successful = [...stdout.matchAll(SUMMARY_LINE('tests successful'))].at(-1);
  if (!found || !successful) return null;
  return { passed: Number(successful[1]), total: Number(found[1]) };
}
