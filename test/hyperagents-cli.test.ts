import { readFileSync } from 'node:fs';
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
    'control',
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
