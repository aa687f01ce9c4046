import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { LanguageName } from './language.ts';

/**
 * Which languages this machine can grade, and with which versions: each language's toolchain run as its
 * grader runs it (the files under /usr/bin, with the grading sandbox's PATH and no home), every command at
 * once. A probe never throws: a toolchain that is missing, exits non-zero, hangs or is too old is a
 * language this machine cannot grade, with what to install.
 */

/** One command a grader runs, and how its version reads in what it prints. */
interface ProbeCommand {
  /** Under the root's usr/bin, e.g. `go`. */
  file: string;
  args: string[];
  /** How a message names it: `go`, `pytest for python3`. */
  what: string;
  /** The version as shown (`go1.19.8`, `pytest 7.2.1`), from stdout and stderr; null when unreadable. */
  version(output: string): string | null;
  /** The oldest version the grader works with, as [major, minor], and why. */
  minimum?: { version: [number, number]; why: string };
}

/** A file a grader reads (a jar), and its version from the versioned name beside it (Debian's links). */
interface ProbeFile {
  /** Under the root, e.g. `usr/share/java/assertj-core.jar`. */
  path: string;
  what: string;
  /** How the version is shown, e.g. `AssertJ`. */
  name: string;
}

export interface LanguageNeeds {
  language: LanguageName;
  commands: ProbeCommand[];
  files: ProbeFile[];
  /** The Debian packages that provide the whole toolchain. */
  packages: string[];
}

/** A language this machine grades (with its toolchain's versions), or cannot grade and why. */
export type LanguageToolchain =
  | { language: LanguageName; ok: true; versions: string[] }
  | { language: LanguageName; ok: false; problem: string; install: string };

const firstMatch = (re: RegExp, prefix = '') => {
  return (output: string): string | null => {
    const found = re.exec(output)?.[1];
    return found === undefined ? null : `${prefix}${found}`;
  };
};

/** `AssertJ 3.14.0` when a `assertj-core-3.14.0.jar` beside the jar is the same file; the name alone else. */
function jarVersion(full: string, name: string): string {
  const stem = path.basename(full, '.jar');
  const real = realpathSync(full);
  for (const entry of readdirSync(path.dirname(full))) {
    const found = /^(\d[\w.]*)\.jar$/.exec(entry.startsWith(`${stem}-`) ? entry.slice(stem.length + 1) : '');
    if (found !== null && realpathSync(path.join(path.dirname(full), entry)) === real)
      return `${name} ${found[1]}`;
  }
  return name;
}

/** What each language's grader (domains/exercism/<language>.ts) runs and reads. */
export const LANGUAGE_NEEDS: readonly LanguageNeeds[] = [
  {
    language: 'python',
    commands: [
      {
        file: 'python3',
        args: ['--version'],
        what: 'python3',
        version: firstMatch(/Python (\d+\.\d+\S*)/, 'Python '),
        // The runner starts Python with -P (not its own folder on sys.path), new in 3.11.
        minimum: { version: [3, 11], why: 'the grader runs it with -P' },
      },
      {
        file: 'python3',
        args: ['-c', 'import pytest; print(pytest.__version__)'],
        what: 'pytest for python3',
        version: firstMatch(/^(\d+\.\d+\S*)/m, 'pytest '),
      },
    ],
    files: [],
    packages: ['python3', 'python3-pytest'],
  },
  {
    language: 'go',
    commands: [{ file: 'go', args: ['version'], what: 'go', version: firstMatch(/go version (go\S+)/) }],
    files: [],
    packages: ['golang-go'],
  },
  {
    language: 'rust',
    commands: [
      { file: 'cargo', args: ['--version'], what: 'cargo', version: firstMatch(/^(cargo \S+)/m) },
      { file: 'rustc', args: ['--version'], what: 'rustc', version: firstMatch(/^(rustc \S+)/m) },
    ],
    files: [],
    packages: ['rustc', 'cargo'],
  },
  {
    language: 'cpp',
    commands: [
      {
        file: 'g++',
        args: ['--version'],
        what: 'g++',
        version: firstMatch(/^g\+\+ .* (\d+\.\d+\.\d+)$/m, 'g++ '),
      },
      {
        file: 'cmake',
        args: ['--version'],
        what: 'cmake',
        version: firstMatch(/^cmake version (\S+)/m, 'cmake '),
      },
      { file: 'make', args: ['--version'], what: 'make', version: firstMatch(/^GNU Make (\S+)/m, 'make ') },
    ],
    files: [],
    packages: ['g++', 'cmake', 'make'],
  },
  {
    language: 'java',
    commands: [
      { file: 'javac', args: ['-version'], what: 'javac', version: firstMatch(/^(javac \S+)/m) },
      { file: 'java', args: ['-version'], what: 'java', version: firstMatch(/version "([^"]+)"/, 'java ') },
    ],
    files: [
      {
        path: 'usr/share/java/junit-platform-console-standalone.jar',
        what: 'the JUnit console launcher',
        name: 'JUnit console',
      },
      {
        path: 'usr/share/java/assertj-core.jar',
        what: 'AssertJ',
        name: 'AssertJ',
      },
    ],
    packages: ['default-jdk-headless', 'junit5', 'libassertj-core-java'],
  },
];

/** Languages graded by Node itself (the spec runner in this project): every worker has them. */
const NODE_LANGUAGES: readonly LanguageName[] = ['javascript', 'typescript'];

/** How long one probe command may take before its language counts as unusable. */
const PROBE_TIMEOUT_MS = 15_000;

export interface ProbeOptions {
  /** Where /usr/bin and /usr/share are looked for; `/` but in tests (a folder of fake toolchains). */
  root?: string;
}

/** Every language's toolchain here, probed at once; in LANGUAGE_NEEDS order, Node's languages last. */
export async function probeToolchains(options: ProbeOptions = {}): Promise<LanguageToolchain[]> {
  const probed = await Promise.all(LANGUAGE_NEEDS.map((needs) => probeLanguage(needs, options)));
  const node = NODE_LANGUAGES.map((language) => ({
    language,
    ok: true as const,
    versions: [`node ${process.version}`],
  }));
  return [...probed, ...node];
}

/** One language's toolchain: its commands run at once, then its files; the first failure names it. */
export async function probeLanguage(
  needs: LanguageNeeds,
  options: ProbeOptions = {},
): Promise<LanguageToolchain> {
  const root = options.root ?? '/';
  const ran = await Promise.all(needs.commands.map((command) => probeCommand(command, root)));
  const versions: string[] = [];
  for (const result of ran) {
    if (!result.ok) return cannot(needs, result.problem);
    versions.push(result.version);
  }
  for (const file of needs.files) {
    const full = path.join(root, file.path);
    try {
      accessSync(full, constants.R_OK);
    } catch {
      return cannot(needs, `${file.what} (/${file.path}) not found`);
    }
    versions.push(jarVersion(full, file.name));
  }
  return { language: needs.language, ok: true, versions };
}

/** How to install a language's toolchain, as a message ends. */
export function installHint(needs: Pick<LanguageNeeds, 'packages'>): string {
  return `apt-get install ${needs.packages.join(' ')}, or npm run setup -- --polyglot`;
}

function cannot(needs: LanguageNeeds, problem: string): LanguageToolchain {
  return { language: needs.language, ok: false, problem, install: installHint(needs) };
}

type CommandProbe = { ok: true; version: string } | { ok: false; problem: string };

function probeCommand(command: ProbeCommand, root: string): Promise<CommandProbe> {
  const bin = path.join(root, 'usr', 'bin');
  const file = path.join(bin, command.file);
  const shown = [command.file, ...command.args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a))].join(' ');
  return new Promise((resolve) => {
    execFile(
      file,
      command.args,
      {
        // As the grading sandbox runs it: its PATH, no home, Go never fetching another toolchain.
        env: { PATH: `${bin}:${path.join(root, 'bin')}`, HOME: '/nonexistent', GOTOOLCHAIN: 'local' },
        timeout: PROBE_TIMEOUT_MS,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const output = `${stdout}\n${stderr}`;
        if (error !== null) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT' || code === 'EACCES')
            resolve({ ok: false, problem: `${command.what} not found` });
          else if (error.killed)
            resolve({ ok: false, problem: `\`${shown}\` did not answer in ${PROBE_TIMEOUT_MS / 1000} s` });
          else resolve({ ok: false, problem: `\`${shown}\` fails (${exitOf(error)}${firstLine(stderr)})` });
          return;
        }
        const version = command.version(output);
        if (version === null) {
          resolve({
            ok: false,
            problem: `\`${shown}\` printed no version it could read${firstLine(output)}`,
          });
          return;
        }
        resolve(tooOld(command, version) ?? { ok: true, version });
      },
    );
  });
}

function exitOf(error: Error & { code?: unknown; signal?: unknown }): string {
  if (typeof error.signal === 'string' && error.signal !== '') return `killed by ${error.signal}`;
  return `exit ${String(error.code)}`;
}

const firstLine = (text: string): string => {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  return line === undefined ? '' : `: ${line.slice(0, 160)}`;
};

function tooOld(command: ProbeCommand, version: string): CommandProbe | null {
  if (command.minimum === undefined) return null;
  const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  const [needMajor, needMinor] = command.minimum.version;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return {
    ok: false,
    problem: `${command.what} is ${version}; ${needMajor}.${needMinor} or later is needed (${command.minimum.why})`,
  };
}

/** The problem of a language a worker was told not to take (`--languages`): no install helps. */
export const LEFT_OUT = 'left out with --languages';

/**
 * One line of what a machine grades: `grades: python (Python 3.11.2, pytest 7.2.1), go (go1.19.8); cannot
 * grade: java (javac not found: apt-get install ...); left out with --languages: rust`.
 */
export function gradesLine(toolchains: readonly LanguageToolchain[]): string {
  const grades = toolchains.flatMap((t) => (t.ok ? [`${t.language} (${t.versions.join(', ')})`] : []));
  const cannot = toolchains.flatMap((t) =>
    !t.ok && t.problem !== LEFT_OUT ? [`${t.language} (${t.problem}: ${t.install})`] : [],
  );
  const leftOut = toolchains.flatMap((t) => (!t.ok && t.problem === LEFT_OUT ? [t.language] : []));
  return [
    `grades: ${grades.join(', ') || 'no language'}`,
    ...(cannot.length > 0 ? [`cannot grade: ${cannot.join(', ')}`] : []),
    ...(leftOut.length > 0 ? [`${LEFT_OUT}: ${leftOut.join(', ')}`] : []),
  ].join('; ');
}
