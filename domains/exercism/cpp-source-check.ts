import path from 'node:path';

/**
 * What a C++ solution may not do to the program its tests are built into, read off the preprocessed
 * translation units (`g++ -E -dD`) that grading then compiles as they are, so that what is checked is
 * exactly what runs. The solution's header is part of the test file's translation unit, ahead of Catch,
 * and its code shares the test process: the rules keep it from reshaping Catch or the tests with the
 * preprocessor, from running before the test main, and from reaching into the framework by name.
 */

/** Where the exercise's own files are, as the preprocessor names them. */
export interface SourceLayout {
  /** The exercise folder inside the sandbox, e.g. `/tmp/exercism/space-age`. */
  root: string;
  /** The exercise's files a solution may not include (test files, `test/catch.hpp`), relative to root. */
  exerciseFiles: readonly string[];
}

/** Folders of the system's headers, which the solution includes as they are. */
const SYSTEM_HEADERS = ['/usr/include/', '/usr/lib/gcc/', '/usr/local/include/'];

/** Attributes that place code before the test main, rename symbols, or place data in special sections. */
const REFUSED_ATTRIBUTES = new Set([
  'constructor',
  'destructor',
  'init_priority',
  'section',
  'ifunc',
  'alias',
  'weakref',
  'symver',
  'weak',
]);

/** Names a solution never needs and that end the test process or reach into its code and memory. */
const REFUSED_NAMES: Record<string, string> = {
  Catch: "names Catch's namespace (the test framework is not the solution's to use)",
  main: 'declares main (the test main is the grader’s)',
  asm: 'uses inline assembly',
  __asm: 'uses inline assembly',
  __asm__: 'uses inline assembly',
  exit: 'calls exit (ending the test process early)',
  _exit: 'calls _exit (ending the test process early)',
  _Exit: 'calls _Exit (ending the test process early)',
  quick_exit: 'calls quick_exit (ending the test process early)',
  at_quick_exit: 'registers an exit handler',
  atexit: 'registers an exit handler',
  abort: 'calls abort (ending the test process early)',
  pthread_exit: 'ends the main thread (the test process then exits with status 0)',
  terminate: 'calls terminate (ending the test process early)',
  set_terminate: 'replaces the terminate handler',
  raise: 'raises a signal',
  kill: 'sends a signal',
  signal: 'installs a signal handler',
  sigaction: 'installs a signal handler',
  fork: 'starts a process',
  vfork: 'starts a process',
  syscall: 'makes raw system calls',
  ptrace: 'traces processes',
  mprotect: 'changes memory protection (patching code)',
  pkey_mprotect: 'changes memory protection (patching code)',
  process_vm_readv: "reads another process's memory",
  process_vm_writev: "writes another process's memory",
  dlopen: 'loads code at run time',
  dlsym: 'looks up symbols at run time',
  dlvsym: 'looks up symbols at run time',
};

const MARKER = /^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)$/;
const DIRECTIVE = /^#\s*(\w+)\s*(\w*)/;

type Owner = 'system' | 'exercise' | 'solution';

/** GCC escapes `\`, `"` and unprintable bytes (as octal) in the file names of line markers. */
function markerName(escaped: string): string {
  return escaped.replace(/\\([0-7]{1,3}|.)/g, (_, c: string) =>
    /^[0-7]+$/.test(c) ? String.fromCharCode(Number.parseInt(c, 8)) : c,
  );
}

function ownerOf(file: string, layout: SourceLayout): Owner {
  const normal = path.posix.normalize(file);
  if (SYSTEM_HEADERS.some((dir) => normal.startsWith(dir))) return 'system';
  const rel = path.posix.relative(layout.root, normal);
  return layout.exerciseFiles.includes(rel) ? 'exercise' : 'solution';
}

/**
 * Why a preprocessed translation unit is refused (empty when it is not). `reserved` names what the
 * solution may not `#define` or `#undef` in the test file's unit (Catch's macros and every name Catch and
 * the tests use); in the solution's own units it is empty, since there its macros reach nothing else.
 */
export function checkPreprocessed(
  text: string,
  layout: SourceLayout,
  reserved: ReadonlySet<string> = new Set(),
): string[] {
  const refused = new Set<string>();
  const lines = text.split('\n');
  const main = MARKER.exec(lines[0] ?? '')?.[2];
  if (main === undefined) return ['the preprocessed source has no line markers'];
  const mainFile = markerName(main);
  const stack: { name: string; owner: Owner }[] = [];
  let solutionText: string[] = [];
  const solutionChunks: string[] = [];
  const flush = () => {
    if (solutionText.length > 0) solutionChunks.push(solutionText.join('\n'));
    solutionText = [];
  };
  for (const line of lines) {
    const marker = MARKER.exec(line);
    if (stack.length === 0) {
      // GCC's own prologue (built-in and command-line macros) ends where the main file's first line begins.
      if (marker !== null && marker[1] === '1' && markerName(marker[2] ?? '') === mainFile && !marker[3])
        stack.push({ name: mainFile, owner: ownerOf(mainFile, layout) });
      continue;
    }
    const top = stack.at(-1)!;
    if (marker !== null) {
      flush();
      const name = markerName(marker[2] ?? '');
      const flags = (marker[3] ?? '').trim().split(' ');
      if (flags.includes('1')) {
        const owner = ownerOf(name, layout);
        if (top.owner === 'solution' && owner === 'exercise')
          refused.add(`includes ${path.posix.relative(layout.root, path.posix.normalize(name))}`);
        else if (top.owner === 'solution' && owner === 'solution' && !isUnder(name, layout.root))
          refused.add(`includes ${name}, outside the exercise`);
        stack.push({ name, owner });
      } else if (flags.includes('2')) {
        stack.pop();
        if (stack.at(-1)?.name !== name) refused.add('its line markers do not match its includes (#line)');
        if (stack.length === 0) break;
      } else if (name !== top.name) {
        refused.add(`renames its lines as ${JSON.stringify(name)}'s (#line)`);
        stack[stack.length - 1] = { name, owner: 'solution' };
      }
      continue;
    }
    if (top.owner !== 'solution') continue;
    if (line.startsWith('#')) {
      const [, directive = '', name = ''] = DIRECTIVE.exec(line) ?? [];
      if (directive === 'define' || directive === 'undef') {
        if (reserved.has(name)) refused.add(`#${directive}s ${name}, which Catch or the tests use`);
      } else if (directive !== 'pragma' || !/^#pragma GCC diagnostic\b/.test(line)) {
        refused.add(`uses ${line.slice(0, 60).trim()}`);
      }
      continue;
    }
    solutionText.push(line);
  }
  flush();
  for (const chunk of solutionChunks) for (const why of checkTokens(tokens(chunk))) refused.add(why);
  return [...refused];
}

function isUnder(file: string, root: string): boolean {
  return path.posix.normalize(file).startsWith(`${root}/`);
}

/** Why the solution's own tokens are refused. */
function checkTokens(toks: readonly string[]): string[] {
  const refused: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i]!;
    const next = toks[i + 1];
    const why = Object.hasOwn(REFUSED_NAMES, tok) ? REFUSED_NAMES[tok] : undefined;
    if (why !== undefined && (tok !== 'main' || next === '(')) refused.push(why);
    if ((tok === '__attribute__' || tok === '__attribute') && next === '(') {
      const end = closing(toks, i + 1, '(', ')');
      refused.push(...attributes(toks.slice(i + 2, end)));
      i = end;
    } else if (tok === '[' && next === '[') {
      const end = closing(toks, i, '[', ']');
      refused.push(...attributes(toks.slice(i + 2, end)));
    } else if (tok === 'namespace' && next === 'std' && toks[i - 1] !== 'using' && toks[i + 2] !== '=') {
      refused.push('adds to namespace std (which decides how the tests compare values)');
    } else if (tok === 'template' && next === '<' && toks[i + 2] === '>') {
      const declaration = toks.slice(i + 3, i + 3 + declarationLength(toks, i + 3));
      if (declaration.some((t, at) => t === 'std' && declaration[at + 1] === '::'))
        refused.push('specialises a template of namespace std (which decides how the tests compare values)');
    }
  }
  return refused;
}

function attributes(inside: readonly string[]): string[] {
  return inside
    .map((t) => t.replace(/^__(.*)__$/, '$1'))
    .filter((t) => REFUSED_ATTRIBUTES.has(t))
    .map((t) => `uses the attribute ${t}`);
}

/** The index of the bracket that closes the one at `open` (or the last token). */
function closing(toks: readonly string[], open: number, left: string, right: string): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    if (toks[i] === left) depth++;
    else if (toks[i] === right && --depth === 0) return i;
  }
  return toks.length - 1;
}

/** Tokens up to the first `{`, `;` or `=` from `start`: an explicit specialisation's declarator. */
function declarationLength(toks: readonly string[], start: number): number {
  let n = 0;
  while (start + n < toks.length && !['{', ';', '='].includes(toks[start + n]!)) n++;
  return n;
}

const TOKEN =
  /(\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|(?:u8|[uUL])?R"([^()\\\s]{0,16})\([\s\S]*?\)\2"|(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*"|(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*'|\.?\d(?:[eEpP][+-]|['\w.])*)|([A-Za-z_$][\w$]*)|(::|\S)/gy;

/** C++ tokens of preprocessed text: identifiers, `::` and single punctuators (literals and spaces dropped). */
export function tokens(text: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null && m[0] !== ''; m = TOKEN.exec(text)) {
    const kept = m[3] ?? m[4];
    if (kept !== undefined) out.push(kept);
  }
  return out;
}

/** Identifiers of C++ source (comments and literals left out): the names a text uses. */
export function identifiers(text: string): Set<string> {
  return new Set(tokens(text).filter((t) => /^[A-Za-z_$]/.test(t)));
}
