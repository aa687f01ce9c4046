import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './run-cli.ts';

/**
 * Concerns the project owns in one place each (see system/README.md), checked on the text of every tracked
 * source file that is not a test: git runs only through the one hardened client.
 */

interface Source {
  file: string;
  text: string;
}

/** The one file that starts git. */
const GIT_CLIENT = 'system/git.ts';
const STARTS_GIT = /\b(?:spawn|exec)\w*\(\s*['"`]git\b/;
const LOADS_SIMPLE_GIT = /from\s+['"]simple-git['"]|import\(\s*['"]simple-git['"]\s*\)/;

const isTest = (file: string): boolean => /\.test\.ts$/.test(file) || file.startsWith('test/');

/** One line per file that runs git past the client. */
function gitPastTheClient(sources: Source[]): string[] {
  return sources
    .filter(({ file, text }) => file !== GIT_CLIENT && (STARTS_GIT.test(text) || LOADS_SIMPLE_GIT.test(text)))
    .map(({ file }) => `${file} runs git itself: use git() or gitBytes() of ${GIT_CLIENT}`);
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

  it('allows the client itself, and the word git elsewhere', () => {
    expect(
      gitPastTheClient([
        { file: GIT_CLIENT, text: "import { simpleGit } from 'simple-git';" },
        { file: 'agents/core/x.ts', text: "if (program === 'git') return 'git push needs the network';" },
      ]),
    ).toEqual([]);
  });
});
