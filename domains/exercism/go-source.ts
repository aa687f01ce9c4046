import path from 'node:path';

/**
 * What grading reads from an exercise's own Go files (never from an answer's): which files a build
 * selects, the test functions they define, the packages they import, the module's path and Go version.
 * Go's own rules, in the subset the Exercism track uses; the toolchain decides everything else.
 */

/** Operating systems and architectures Go knows, for file-name constraints (`x_windows_test.go`). */
const KNOWN_OS = new Set(
  'aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos'.split(
    ' ',
  ),
);
const KNOWN_ARCH = new Set(
  '386 amd64 amd64p32 arm arm64 arm64be armbe loong64 mips mips64 mips64le mips64p32 mips64p32le mipsle ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm'.split(
    ' ',
  ),
);
const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386' };

/** The build this grader makes: Linux, this machine's architecture, the gc compiler, cgo off. */
export interface BuildContext {
  goMinor: number;
  arch?: string;
}

function tagSet(ctx: BuildContext): Set<string> {
  const tags = new Set(['linux', 'unix', 'gc', ctx.arch ?? ARCH[process.arch] ?? process.arch]);
  for (let minor = 1; minor <= ctx.goMinor; minor++) tags.add(`go1.${minor}`);
  return tags;
}

/** A `//go:build` expression's value (`a && (b || !c)`), unknown tags false. */
function evalExpr(expr: string, tags: Set<string>): boolean {
  const tokens = expr.match(/\(|\)|&&|\|\||!|[\w.]+/g) ?? [];
  let at = 0;
  const or = (): boolean => {
    let v = and();
    while (tokens[at] === '||') {
      at++;
      v = and() || v;
    }
    return v;
  };
  const and = (): boolean => {
    let v = not();
    while (tokens[at] === '&&') {
      at++;
      v = not() && v;
    }
    return v;
  };
  const not = (): boolean => {
    const t = tokens[at++];
    if (t === '!') return !not();
    if (t === '(') {
      const v = or();
      at++;
      return v;
    }
    return t !== undefined && tags.has(t);
  };
  return or();
}

/** Whether a build for `ctx` includes the file, by its name and its build constraints. */
export function selected(rel: string, text: string, ctx: BuildContext): boolean {
  const tags = tagSet(ctx);
  const parts = path.posix
    .basename(rel, '.go')
    .replace(/_test$/, '')
    .split('_')
    .slice(1);
  const last = parts.at(-1);
  const before = parts.at(-2);
  if (last !== undefined && KNOWN_ARCH.has(last)) {
    if (!tags.has(last)) return false;
    if (before !== undefined && KNOWN_OS.has(before) && !tags.has(before)) return false;
  } else if (last !== undefined && KNOWN_OS.has(last) && !tags.has(last)) return false;
  // Constraints sit in the header: the lines before the package clause.
  const header = text.split(/^package\s/m)[0] ?? '';
  const goBuild = /^\/\/go:build\s+(.+)$/m.exec(header);
  if (goBuild?.[1] !== undefined) return evalExpr(goBuild[1], tags);
  for (const line of header.matchAll(/^\/\/ \+build\s+(.+)$/gm)) {
    const any = line[1]!
      .trim()
      .split(/\s+/)
      .some((option) =>
        option.split(',').every((term) => (term.startsWith('!') ? !tags.has(term.slice(1)) : tags.has(term))),
      );
    if (!any) return false;
  }
  return true;
}

/** The package clause's name. */
export function packageName(text: string): string | null {
  return /^package\s+(\w+)/m.exec(text)?.[1] ?? null;
}

/** Top-level `func TestXxx(t *testing.T)`: the names go test runs (`Test` then no lower-case letter). */
export function testFunctions(text: string): string[] {
  return [...text.matchAll(/^func\s+(Test(?![a-z])\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)/gm)].map((m) => m[1]!);
}

/**
 * Names of the package-level variables and types a file declares (`var x`, `var ( a, b = … )`, `type T`):
 * what a solution must not touch in the tests, as changing them changes what the tests check. gofmt'd
 * text, as the exercise's own files are.
 */
export function declaredData(text: string): string[] {
  const names: string[] = [];
  const list = (s: string) =>
    s
      .split(',')
      .map((n) => n.trim())
      .filter((n) => /^\w+$/.test(n));
  for (const m of text.matchAll(/^(?:var|type)\s+(\w+(?:\s*,\s*\w+)*)/gm)) names.push(...list(m[1]!));
  for (const block of text.matchAll(/^(?:var|type)\s*\(\n([\s\S]*?)^\)/gm))
    for (const m of block[1]!.matchAll(/^\t(\w+(?:\s*,\s*\w+)*)/gm)) names.push(...list(m[1]!));
  return [...new Set(names)];
}

/** The import paths of a Go file (well-formed, as the exercise's own files are). */
export function imports(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const out: string[] = [];
  for (const decl of code.matchAll(/^import\s*(\([^)]*\)|[^\n]*)/gm))
    for (const spec of decl[1]!.matchAll(/["`]([^"`]+)["`]/g)) out.push(spec[1]!);
  return out;
}

/** The module path and the Go version a go.mod names. */
export function goMod(text: string): { module: string | null; minor: number | null } {
  const module = /^module\s+"?([^\s"]+)"?/m.exec(text)?.[1] ?? null;
  const minor = /^go\s+1\.(\d+)/m.exec(text)?.[1];
  return { module, minor: minor === undefined ? null : Number(minor) };
}

/** The exercise's test files a build selects: `*_test.go` at the top of the folder. */
export function selectedTestFiles(files: Record<string, string>, ctx: BuildContext): [string, string][] {
  return Object.entries(files)
    .filter(([rel, text]) => /^[^/]+_test\.go$/.test(rel) && selected(rel, text, ctx))
    .sort(([a], [b]) => a.localeCompare(b));
}
