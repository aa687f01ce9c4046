import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loopCommandWords, shellWord } from './self-command.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'self-command-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A project with its bin scripts, and a PATH folder that links to them as a global install does. */
const project = path.join(dir, 'project', 'bin');
const globalBin = path.join(dir, 'global-bin');
mkdirSync(project, { recursive: true });
mkdirSync(globalBin);
for (const name of ['generate-loop', 'hyperagents']) {
  writeFileSync(path.join(project, `${name}.mjs`), '');
  chmodSync(path.join(project, `${name}.mjs`), 0o755);
}
symlinkSync(path.join(project, 'generate-loop.mjs'), path.join(globalBin, 'generate-loop'));
symlinkSync(path.join(project, 'hyperagents.mjs'), path.join(globalBin, 'hyperagents'));
const script = (name: string) => path.join(project, `${name}.mjs`);

describe('loopCommandWords: generate-loop started again the way it was started', () => {
  it.each<[string, NodeJS.ProcessEnv, string, string[]]>([
    ['npx', { npm_command: 'exec', PATH: '/usr/bin' }, script('generate-loop'), ['npx', 'generate-loop']],
    ['an npm script', { npm_command: 'run-script' }, script('hyperagents'), ['npx', 'generate-loop']],
    [
      'a command the PATH finds',
      { PATH: `/usr/bin:${globalBin}` },
      path.join(globalBin, 'generate-loop'),
      ['generate-loop'],
    ],
    [
      'hyperagents on the PATH',
      { PATH: globalBin },
      path.join(globalBin, 'hyperagents'),
      ['hyperagents', 'generate-loop'],
    ],
    [
      'node and the script, when the PATH finds no such command',
      { PATH: '/usr/bin' },
      script('generate-loop'),
      ['node', script('generate-loop')],
    ],
    [
      'node, hyperagents and generate-loop, when the PATH has no hyperagents',
      { PATH: '/usr/bin' },
      script('hyperagents'),
      ['node', script('hyperagents'), 'generate-loop'],
    ],
  ])('%s', (_how, env, started, words) => {
    expect(loopCommandWords(env, started)).toEqual(words);
  });
});

describe('shellWord', () => {
  it.each([
    ['/tmp/runs/r1', '/tmp/runs/r1'],
    ['redis://127.0.0.1:6379/0', 'redis://127.0.0.1:6379/0'],
    ['/tmp/my runs/r1', "'/tmp/my runs/r1'"],
    ["it's", "'it'\\''s'"],
  ])('%s → %s', (word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
  });
});
