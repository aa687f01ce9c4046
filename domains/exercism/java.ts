import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CommandResult } from '../grade-context.ts';
import { compileRunner, RUNNER_PACKAGE, RUNNER_SOURCES, runnerCache } from './java-runner.ts';
import { javaTestNames, unmetJavaNeed } from './java-sources.ts';
import type { ExerciseLayout, ExercismLanguage, TestReport } from './language.ts';
import { checkFiles, once } from './toolchain-check.ts';

const PACKAGES = ['default-jdk-headless', 'junit5', 'libassertj-core-java', 'libandroid-json-org-java'];
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const ASSERTJ = '/usr/share/java/assertj-core.jar';
/**
 * org.json for the exercises that import it (rest-api): Debian's libandroid-json-org-java, whose
 * json-latest.jar is org.json's own API of 2018 (its JSONException unchecked, as the exercises expect; the
 * package's Android rewrite, json.jar, checks it and does not compile them).
 */
export const JSON_JAR = '/usr/share/java/json-latest.jar';

/**
 * Compiles with the runner's Compile (the quick compiler only: it is short) and runs the project's JUnit
 * runner (java-runner/), which reads the token from standard input and runs the tests under its security
 * manager; the solution and the tests are compiled into folders of their own in the private /tmp. The
 * runner's classes come from the cache (read-only here) when prepare() built them, else they are compiled
 * first into /tmp, from the project's read-only sources. Nothing before the runner reads standard input,
 * which holds the token until the runner takes it.
 *
 * The JVMs get a fixed heap and one garbage collector thread so that they start under the sandbox's
 * memory limit, and small thread stacks (256 KiB) so that a test that starts a thousand threads
 * (bank-account) fits the data limit, which counts each thread's stack (a thousand at 1 MiB, Java's
 * default, did not fit beside the heap); the tests themselves run on one thread with a large stack, so
 * recursive solutions keep the room they had. Those threads also need more processes than the sandbox's
 * default: see PROCESSES.
 * Arguments: the framework's class path, the runner's classes ('' to compile them), the runner's sources.
 */
const SCRIPT = `set -e
cp=$1 runner=$2
quick="-Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
if [ -z "$runner" ]; then
  runner=/tmp/grading-runner
  mkdir -p "$runner"
  javac -J-Xmx256m -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 -XDstringConcat=inline -encoding UTF-8 -nowarn -d "$runner" -cp "$cp" "$3"/*.java < /dev/null
fi
java $quick -cp "$runner:$cp" ${RUNNER_PACKAGE}.Compile src/main/java /tmp/solution-classes src/test/java /tmp/test-classes < /dev/null
exec java -Xmx512m -XX:+UseSerialGC -Xss256k -Djava.security.manager=allow -cp "$runner:$cp" ${RUNNER_PACKAGE}.JUnitRunner \\
  /tmp/test-classes /tmp/solution-classes src/main/resources src/test/resources`;

/**
 * Processes and threads of one grading: bank-account's test starts 1,000 threads, most alive at once on a
 * loaded machine, beside the JVM's own twenty or so. The security manager lets no solution start a process.
 */
const PROCESSES = 1280;

const DISABLED = /@Disabled\b(?:\s*\([^)]*\))?/g;
const DISABLED_IMPORT = /^import\s+org\.junit\.jupiter\.api\.Disabled\s*;[ \t]*\r?\n?/gm;
const SUMMARY_LINE = (what: string) => new RegExp(`^\\[\\s*(\\d+) ${what}\\s*\\]`, 'gm');
const RUNNER_SUMMARY = /^JUnit: (\d+) of (\d+) tests passed$/gm;

/** Packages of the framework and the runner: a solution that declares one is refused. */
const RESERVED_PACKAGE =
  /^\s*package\s+((?:org\s*\.\s*(?:junit|assertj|opentest4j|apiguardian|json)|junit|hyperagents)\b[\w\s.]*);/m;

/** Java source with its Unicode escapes decoded and comments blanked, as javac reads the tokens. */
function asJavacReads(text: string): string {
  return text
    .replace(/\\u+([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/.*$/gm, ' ');
}

const Report = z.object({
  tests: z.array(z.object({ name: z.string(), passed: z.boolean(), message: z.string().optional() })),
  tampering: z.array(z.string()),
});

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

/** The framework's class path: JUnit, AssertJ and, when installed, org.json. */
const classPath = (): string => [LAUNCHER, ASSERTJ, ...(existsSync(JSON_JAR) ? [JSON_JAR] : [])].join(':');

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
  unsupported: ({ tests, reference }) => unmetJavaNeed({ ...tests, ...reference }, existsSync(JSON_JAR)),
  enableAllTests(files: Record<string, string>): Record<string, string> {
    return Object.fromEntries(
      Object.entries(files).map(([rel, text]) => [
        rel,
        rel.endsWith('.java') ? text.replace(DISABLED_IMPORT, '').replace(DISABLED, '') : text,
      ]),
    );
  },
  testCommand: `mkdir -p build && javac -d build -cp ${LAUNCHER}:${ASSERTJ} $(find src -name '*.java') && java -jar ${LAUNCHER} --class-path build:${ASSERTJ} --scan-classpath build`,
  gradeCommand(_layout: ExerciseLayout, token: string) {
    const cache = runnerCache();
    const compiled = existsSync(path.join(cache, 'ok'));
    return {
      file: '/bin/sh',
      args: ['-c', SCRIPT, 'sh', classPath(), compiled ? cache : '', RUNNER_SOURCES],
      readOnly: [...jdkConfigDirs(), compiled ? cache : RUNNER_SOURCES],
      stdin: `${token}\n`,
      processes: PROCESSES,
    };
  },
  prepare: () => compileRunner(classPath()),
  /**
   * Build files, the tests and their resources, service registrations (JUnit extensions, listeners,
   * filters), and sources in the framework's or the runner's packages.
   */
  isRunnerInput(relPath: string): boolean {
    return /^(build\.gradle(\.kts)?|settings\.gradle(\.kts)?|gradle\.properties|pom\.xml|src\/test\/.*|src\/main\/resources\/.*|.*META-INF\/.*|.*junit-platform\.properties|src\/main\/java\/(org|junit|hyperagents)\/.*)$/.test(
      relPath,
    );
  },
  solutionText(relPath: string, text: string) {
    const declared = relPath.endsWith('.java') ? RESERVED_PACKAGE.exec(asJavacReads(text)) : null;
    if (declared === null) return { text };
    const name = declared[1]!.replace(/\s+/g, '');
    return { refused: `it declares the package ${name}, which belongs to the test framework` };
  },
  expectedTests: (tests) => javaTestNames(tests),
  readReport(result: CommandResult, token: string): TestReport | null {
    const prefix = `${token} `;
    const line = result.stdout
      .split('\n')
      .filter((l) => l.startsWith(prefix))
      .at(-1);
    if (line === undefined) return null;
    try {
      return Report.parse(JSON.parse(line.slice(prefix.length)));
    } catch {
      return null;
    }
  },
  claimsSuccess(result: CommandResult) {
    const count = countJUnitTests(result.stdout);
    return count !== null && count.total > 0 && count.passed === count.total;
  },
};

/**
 * Passed and total from a summary in the output: the console launcher's (tests successful of tests found)
 * or the runner's own line. Only for the detail of a run without a report: the solution can print either.
 */
export function countJUnitTests(stdout: string): { passed: number; total: number } | null {
  const runner = [...stdout.matchAll(RUNNER_SUMMARY)].at(-1);
  if (runner) return { passed: Number(runner[1]), total: Number(runner[2]) };
  const found = [...stdout.matchAll(SUMMARY_LINE('tests found'))].at(-1);
  const successful = [...stdout.matchAll(SUMMARY_LINE('tests successful'))].at(-1);
  if (!found || !successful) return null;
  return { passed: Number(successful[1]), total: Number(found[1]) };
}
