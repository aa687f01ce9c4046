import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

const VERSION = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

describe('the hyperagents command', () => {
  it('lists the domains, as text and as JSON', async () => {
    const text = await runCli('hyperagents', ['domains']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^arithmetic\s+Generated multi-step word problems/m);
    const json = await runCli('hyperagents', ['domains', '--json']);
    expect(JSON.parse(json.stdout)).toContainEqual(
      expect.objectContaining({ name: 'arithmetic', splits: ['train', 'val', 'test'], stagedSamples: 10 }),
    );
  });

  it('answers an unknown command with exit code 2 and the commands it knows', async () => {
    const result = await runCli('hyperagents', ['domians']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown command "domians" \(did you mean domains\?\)/);
  });

  it('passes generate-loop through, help included', async () => {
    const help = await runCli('hyperagents', ['generate-loop', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--domains');
    expect(help.stdout).toContain('--parent-selection');
    const bad = await runCli('hyperagents', ['generate-loop', '--domains', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Known domains: arithmetic/);
  });
});

describe('--version', () => {
  it.each<['hyperagents' | 'generate-loop', string[]]>([
    ['hyperagents', ['--version']],
    ['generate-loop', ['--version']],
    ['hyperagents', ['generate-loop', '--version']],
  ])('%s %j prints the package version and nothing else', async (bin, args) => {
    const result = await runCli(bin, args);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${VERSION}\n`);
    expect(result.stderr).toBe('');
  });

  it('is listed in the help of both commands', async () => {
    for (const bin of ['hyperagents', 'generate-loop'] as const) {
      expect((await runCli(bin, ['--help'])).stdout).toMatch(/^\s+--version\s+.*version/m);
    }
  });
});

/** Every command and subcommand that has its own help. */
const HELPS: ['hyperagents' | 'generate-loop', string[]][] = [
  ['hyperagents', ['--help']],
  ['generate-loop', ['--help']],
  ...[
    'generate-loop',
    'chat',
    'eval',
    'domains',
    'domains test',
    'models',
    'archive',
    'archive list',
    'serve',
    'report',
    'experiment',
    'experiment report',
    'worker',
    'queue',
    'queue status',
  ].map((command): ['hyperagents', string[]] => ['hyperagents', [...command.split(' '), '--help']]),
];

describe('help text', () => {
  it.each(HELPS)('%s %j wraps at 80 columns', async (bin, args) => {
    // Read through a pipe, as a script or a pager reads it; a terminal gets the same, or its own width if narrower.
    const result = await runCli(bin, args);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
  });
});

/** The README's code blocks (not the TypeScript ones), with the lines of each. */
function readmeBlocks(): { lang: string; lines: string[] }[] {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)]
    .filter((m) => m[1] === '' || m[1] === 'bash')
    .map((m) => ({ lang: m[1]!, lines: m[2]!.split('\n') }));
}

describe('the README', () => {
  const COMMANDS = [
    'generate-loop',
    'chat',
    'eval',
    'domains',
    'models',
    'archive',
    'serve',
    'report',
  ].concat('experiment', 'worker', 'queue');

  it('starts every command with npx, which finds it in a clone, and names only commands that exist', () => {
    const lines = readmeBlocks().flatMap((b) => b.lines);
    expect(lines.filter((line) => /^(hyperagents|generate-loop)\b/.test(line))).toEqual([]);
    const run = lines.filter((line) => line.startsWith('npx '));
    expect(run.length).toBeGreaterThan(20);
    for (const line of run) {
      const [, bin, sub] = line.split(/\s+/);
      expect(['hyperagents', 'generate-loop'], line).toContain(bin);
      if (bin === 'hyperagents') expect([...COMMANDS, '--version'], line).toContain(sub);
    }
  });

  it('gives, in its shell examples, only options the command takes', async () => {
    // A command with its continuation lines, without the comment at its end.
    const commands = readmeBlocks()
      .filter((b) => b.lang === 'bash')
      .flatMap((b) =>
        b.lines
          .join('\n')
          .replace(/\\\n\s*/g, ' ')
          .split('\n'),
      )
      .map((line) => line.replace(/\s+#.*$/, ''))
      .filter((line) => line.startsWith('npx '));
    const helps = new Map<string, Promise<string>>();
    for (const command of commands) {
      const [, bin, sub] = command.split(/\s+/) as [string, 'hyperagents' | 'generate-loop', string];
      const key = bin === 'hyperagents' ? `${bin} ${sub}` : bin;
      if (!helps.has(key)) {
        const args = bin === 'hyperagents' ? [sub, '--help'] : ['--help'];
        helps.set(
          key,
          runCli(bin, args).then((r) => r.stdout),
        );
      }
      const help = await helps.get(key)!;
      for (const option of command.match(/(?<=\s)--[a-z][a-z-]*/g) ?? []) {
        expect(help, `${command}: ${option}`).toMatch(new RegExp(`(^|[\\s,])${option}\\b`, 'm'));
      }
    }
    expect(helps.size).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('works in a fresh clone: npx finds both commands with nothing installed globally', async () => {
    const clone = mkdtempSync(path.join(tmpdir(), 'hyperagents-clone-'));
    try {
      execFileSync('git', ['clone', '--quiet', PROJECT_ROOT, clone]);
      // What `npm run setup` installs, without fetching it again.
      symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(clone, 'node_modules'));
      // npx's own cache in the temp folder, offline: nothing is fetched, and the user's cache is untouched.
      const env = { ...process.env, npm_config_cache: path.join(clone, '.npm'), npm_config_offline: 'true' };
      for (const bin of ['hyperagents', 'generate-loop']) {
        const out = execFileSync('npx', [bin, '--version'], { cwd: clone, env, encoding: 'utf8' });
        expect(out).toBe(`${VERSION}\n`);
      }
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  }, 120_000);
});
