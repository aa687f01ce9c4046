import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './run-cli.ts';

/**
 * Concerns the project owns in one place each (see system/README.md), checked on the text of every tracked
 * source file that is not a test: git runs only through the one hardened client, a file is read without
 * following a link only by the one reader, and only the programs' entry points write to the terminal.
 */

interface Source {
  file: string;
  text: string;
}

/** The one file that starts git. */
const GIT_CLIENT = 'system/git.ts';
const STARTS_GIT = /\b(?:spawn|exec)\w*\(\s*['"`]git\b/;
const LOADS_SIMPLE_GIT = /from\s+['"]simple-git['"]|import\(\s*['"]simple-git['"]\s*\)/;

/** The one reader that refuses links. */
const LINK_REFUSING_READER = 'system/read-no-follow.ts';
const READS_NO_FOLLOW = /O_RDONLY[^;]*O_NOFOLLOW|O_NOFOLLOW[^;]*O_RDONLY/;

/**
 * What may write to stdout or stderr: the commands (`cli/`, `bin/`, `bench/`, `scripts/`) and the entry
 * points of the agents' own processes, whose stdout is their protocol. Everything else is given a sink.
 */
const PRINTERS = [
  'cli/',
  'bin/',
  'bench/',
  'scripts/',
  'agents/task/main.ts',
  'agents/meta/main.ts',
  'agents/select-parent.ts',
  // The spec runner is a process of its own in the grading sandbox: its output is its report to the grader.
  'domains/spec-runner/',
];
const PRINTS = /\bprocess\.(?:stdout|stderr)\b|\bconsole\.\w+\s*[(=]/;

const isTest = (file: string): boolean => /\.test\.ts$/.test(file) || file.startsWith('test/');

/** One line per file that runs git past the client. */
function gitPastTheClient(sources: Source[]): string[] {
  return sources
    .filter(({ file, text }) => file !== GIT_CLIENT && (STARTS_GIT.test(text) || LOADS_SIMPLE_GIT.test(text)))
    .map(({ file }) => `${file} runs git itself: use git() or gitBytes() of ${GIT_CLIENT}`);
}

/** One line per file that opens a file for reading without following links, past the one reader. */
function readersPastTheOne(sources: Source[]): string[] {
  return sources
    .filter(({ file, text }) => file !== LINK_REFUSING_READER && READS_NO_FOLLOW.test(text))
    .map(
      ({ file }) =>
        `${file} reads without following links itself: use readNoFollow() of ${LINK_REFUSING_READER}`,
    );
}

/** One line per file below the entry points that writes to the terminal or patches `console`. */
function printersBelowTheEntryPoints(sources: Source[]): string[] {
  return sources
    .filter(({ file, text }) => !PRINTERS.some((p) => file.startsWith(p)) && PRINTS.test(text))
    .map(
      ({ file }) => `${file} writes to the terminal: take a warning or event sink from the caller instead`,
    );
}

const tracked = (): Source[] =>
  execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.mts', '*.mjs', '*.js'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && !isTest(file))
    .map((file) => ({ file, text: readFileSync(path.join(PROJECT_ROOT, file), 'utf8') }));

describe('concerns owned once', () => {
  const sources = tracked();

  it('reads every tracked source file that is not a test', () => {
    expect(sources.length).toBeGreaterThan(200);
    expect(sources.map((s) => s.file)).toContain(GIT_CLIENT);
  });

  it('runs every git command through the one hardened client', () => {
    expect(gitPastTheClient(sources)).toEqual([]);
  });

  it('reads files an agent could have replaced through the one link-refusing reader', () => {
    expect(readersPastTheOne(sources)).toEqual([]);
  });

  it('writes to the terminal only from the entry points: code below them is given a sink', () => {
    expect(printersBelowTheEntryPoints(sources)).toEqual([]);
  });
});

describe('each rule, on a made-up file', () => {
  it.each([
    ["execFileSync('git', ['--version'])"],
    ['await execFileAsync("git", args)'],
    ["spawn(`git`, ['archive'])"],
    ["import { simpleGit } from 'simple-git';"],
  ])('finds git started past the client: %s', (text) => {
    expect(gitPastTheClient([{ file: 'queue/x.ts', text }])).toEqual([
      'queue/x.ts runs git itself: use git() or gitBytes() of system/git.ts',
    ]);
  });

  it('finds a second link-refusing reader', () => {
    const text = 'openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);';
    expect(readersPastTheOne([{ file: 'archive/x.ts', text }])).toEqual([
      'archive/x.ts reads without following links itself: use readNoFollow() of system/read-no-follow.ts',
    ]);
    const writes = 'constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW;';
    expect(readersPastTheOne([{ file: 'archive/x.ts', text: writes }])).toEqual([]);
  });

  it.each([
    ["process.stderr.write('gateway: ' + message);"],
    ['console.warn = () => {};'],
    ["console.log('done');"],
  ])('finds code below the entry points that prints: %s', (text) => {
    expect(printersBelowTheEntryPoints([{ file: 'llm/x.ts', text }])).toEqual([
      'llm/x.ts writes to the terminal: take a warning or event sink from the caller instead',
    ]);
  });

  it('allows the entry points to print, and a comment to name console.warn', () => {
    const prints = "process.stderr.write('x');";
    expect(printersBelowTheEntryPoints([{ file: 'cli/x.ts', text: prints }])).toEqual([]);
    expect(printersBelowTheEntryPoints([{ file: 'agents/task/main.ts', text: prints }])).toEqual([]);
    expect(
      printersBelowTheEntryPoints([{ file: 'llm/x.ts', text: '// the SDK calls `console.warn` itself' }]),
    ).toEqual([]);
  });

  it('allows the client itself, and the word git elsewhere', () => {
    expect(
      gitPastTheClient([
        { file: GIT_CLIENT, text: "import { simpleGit } from 'simple-git';" },
        { file: 'agents/core/x.ts', text: "if (program === 'git') return 'git push needs the network';" },
      ]),
    ).toEqual([]);
  });
});
