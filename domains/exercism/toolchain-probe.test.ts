import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  gradesLine,
  LANGUAGE_NEEDS,
  type LanguageNeeds,
  probeLanguage,
  probeToolchains,
} from './toolchain-probe.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'toolchain-probe-'));
  mkdirSync(path.join(root, 'usr', 'bin'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A fake toolchain command: a shell script in the root's usr/bin. */
function tool(name: string, body: string): void {
  const file = path.join(root, 'usr', 'bin', name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
}

const needs = (language: string): LanguageNeeds => LANGUAGE_NEEDS.find((n) => n.language === language)!;
const probe = (language: string) => probeLanguage(needs(language), { root });

const PYTHON = (version: string, pytest: string) =>
  `case "$1" in --version) echo "Python ${version}";; -c) ${pytest};; esac`;

describe('probeLanguage on fake toolchains', () => {
  it('reads each command version as the grader runs it', async () => {
    tool('python3', PYTHON('3.11.2', 'echo 7.2.1'));
    tool('go', 'echo "go version go1.22.3 linux/amd64"');
    tool('cargo', 'echo "cargo 1.75.0 (1d8b05cdd 2023-11-20)"');
    tool('rustc', 'echo "rustc 1.75.0 (82e1608df 2023-12-21)"');
    expect(await probe('python')).toEqual({
      language: 'python',
      ok: true,
      versions: ['Python 3.11.2', 'pytest 7.2.1'],
    });
    expect(await probe('go')).toEqual({ language: 'go', ok: true, versions: ['go1.22.3'] });
    expect(await probe('rust')).toEqual({
      language: 'rust',
      ok: true,
      versions: ['cargo 1.75.0', 'rustc 1.75.0'],
    });
  });

  it.each([
    ['a missing command', () => undefined, 'go not found'],
    [
      'a command that exits 1',
      () => tool('go', 'echo "go: broken install" >&2; exit 1'),
      '`go version` fails (exit 1: go: broken install)',
    ],
    [
      'a command that prints no version',
      () => tool('go', 'echo hello'),
      '`go version` printed no version it could read: hello',
    ],
  ])('refuses go for %s, with what to install', async (_, make, problem) => {
    make();
    expect(await probe('go')).toEqual({
      language: 'go',
      ok: false,
      problem,
      install: 'apt-get install golang-go, or npm run setup -- --polyglot',
    });
  });

  it('refuses a Python without pytest, and one older than the runner needs', async () => {
    tool('python3', PYTHON('3.11.2', `echo "ModuleNotFoundError: No module named 'pytest'" >&2; exit 1`));
    expect(await probe('python')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(
        /^`python3 -c "import pytest; print\(pytest.__version__\)"` fails \(exit 1: ModuleNotFoundError/,
      ),
    });
    tool('python3', PYTHON('3.9.18', 'echo 7.2.1'));
    expect(await probe('python')).toMatchObject({
      ok: false,
      problem: 'python3 is Python 3.9.18; 3.11 or later is needed (the grader runs it with -P)',
    });
  });

  it('reads the JUnit and AssertJ versions from the jars Debian links, and names a missing jar', async () => {
    tool('javac', 'echo "javac 21.0.2"');
    tool('java', 'echo \'openjdk version "21.0.2" 2024-01-16\' >&2');
    const java = path.join(root, 'usr', 'share', 'java');
    mkdirSync(java, { recursive: true });
    writeFileSync(path.join(java, 'junit-platform-console-standalone.jar'), '');
    symlinkSync(
      'junit-platform-console-standalone.jar',
      path.join(java, 'junit-platform-console-standalone-1.10.1.jar'),
    );
    expect(await probe('java')).toMatchObject({
      ok: false,
      problem: 'AssertJ (/usr/share/java/assertj-core.jar) not found',
      install: expect.stringContaining('libassertj-core-java'),
    });
    writeFileSync(path.join(java, 'assertj-core.jar'), '');
    expect(await probe('java')).toEqual({
      language: 'java',
      ok: true,
      versions: ['javac 21.0.2', 'java 21.0.2', 'JUnit console 1.10.1', 'AssertJ'],
    });
  });
});

describe('probeToolchains', () => {
  it('probes every language at once and says what it grades and what not in one line', async () => {
    tool('go', 'echo "go version go1.19.8 linux/amd64"');
    const started = performance.now();
    const all = await probeToolchains({ root });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(all.map((t) => [t.language, t.ok])).toEqual([
      ['python', false],
      ['go', true],
      ['rust', false],
      ['cpp', false],
      ['java', false],
      ['javascript', true],
      ['typescript', true],
    ]);
    const line = gradesLine(all);
    expect(line).toMatch(
      /^grades: go \(go1\.19\.8\), javascript \(node v[\d.]+\), typescript \(node v[\d.]+\); cannot grade: python \(python3 not found: apt-get install python3 python3-pytest, or npm run setup -- --polyglot\), rust \(cargo not found: /,
    );
    expect(line).toContain(
      'java (javac not found: apt-get install default-jdk-headless junit5 libassertj-core-java',
    );
  });
});
