import path from 'node:path';

/** An annotation that makes a method a test (each invocation of a template counts under its method). */
const TEST_ANNOTATION = /@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b(?!\s*\.)/g;
/** After a test annotation: further annotations and modifiers, the return type, then the method's name. */
const METHOD_AFTER =
  /^(?:\s*@[\w.]+(?:\s*\((?:[^()]|\([^()]*\))*\))?)*\s*(?:(?:public|protected|private|static|final|synchronized|abstract)\s+)*(?:<[^>]*>\s*)?[\w.<>[\],?\s]+?\s+(\w+)\s*\(/;

/** Block comments, and line comments that start their line, which may mention `@Test` without a test. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/^\s*\/\/.*$/gm, '');
}

/**
 * The tests the Java test sources define, by the names the project's JUnit runner reports: the top-level
 * class (the file's name, with its package) and the method, `BowlingTest#twelveStrikes`. Every test counts,
 * as the grading copy has every `@Disabled` lifted.
 */
export function javaTestNames(tests: Record<string, string>): string[] {
  const names = new Set<string>();
  for (const [rel, source] of Object.entries(tests)) {
    if (!rel.endsWith('.java')) continue;
    const text = withoutComments(source);
    const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1];
    const cls = `${pkg ? `${pkg}.` : ''}${path.posix.basename(rel, '.java')}`;
    for (const at of text.matchAll(TEST_ANNOTATION)) {
      const method = METHOD_AFTER.exec(text.slice((at.index ?? 0) + at[0].length));
      if (method?.[1] !== undefined) names.add(`${cls}#${method[1]}`);
    }
  }
  return [...names].sort();
}

/** What an exercise's files use that this machine's Java cannot give, each with the reason it is refused. */
const NEEDS: { uses: RegExp; missing: (jsonInstalled: boolean) => string | null }[] = [
  {
    uses: /^\s*import\s+(?:static\s+)?io\.reactivex\./m,
    missing: () => 'RxJava (io.reactivex), which Debian does not package',
  },
  {
    uses: /\.hasDimensions\s*\(/,
    missing: () => "AssertJ 3.25's hasDimensions; Debian's libassertj-core-java has AssertJ 3.14",
  },
  {
    uses: /^\s*import\s+(?:static\s+)?org\.json\./m,
    missing: (jsonInstalled) =>
      jsonInstalled ? null : 'org.json, which is not installed: apt-get install libandroid-json-org-java',
  },
];

/**
 * Why this exercise cannot be graded here (a library its tests or reference use is missing), or null.
 * `files` are the exercise's tests, reference and support files.
 */
export function unmetJavaNeed(files: Record<string, string>, jsonInstalled: boolean): string | null {
  const texts = Object.entries(files)
    .filter(([rel]) => rel.endsWith('.java'))
    .map(([, text]) => text);
  for (const need of NEEDS) {
    if (!texts.some((t) => need.uses.test(t))) continue;
    const missing = need.missing(jsonInstalled);
    if (missing !== null) return `the exercise needs ${missing}`;
  }
  return null;
}
