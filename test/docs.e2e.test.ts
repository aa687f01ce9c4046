import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  anchorsOf,
  codeBlocks,
  commandName,
  commandsOf,
  docPages,
  helpFor,
  optionsOf,
  readPage,
  relativeLinks,
  section,
} from './doc-pages.ts';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

/** What the README and the pages under docs/ show a user: every command, option and link is one that works. */

const VERSION = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

const COMMANDS = [
  'generate-loop',
  'chat',
  'eval',
  'domains',
  'models',
  'archive',
  'serve',
  'report',
  'experiment',
  'worker',
  'queue',
];

const pages = docPages();
const blocks = pages.flatMap((page) => codeBlocks(page)).filter((b) => b.lang === '' || b.lang === 'bash');
const commands = blocks.flatMap((block) =>
  commandsOf(block).map((command) => ({ page: block.page, command })),
);

describe('the README and the docs pages', () => {
  it('start every command with npx, which finds it in a clone, and name only commands that exist', () => {
    const lines = blocks.flatMap((b) => b.lines.map((line) => ({ page: b.page, line })));
    expect(lines.filter(({ line }) => /^(hyperagents|generate-loop)\b/.test(line))).toEqual([]);
    const run = lines.filter(({ line }) => line.startsWith('npx '));
    expect(run.length).toBeGreaterThan(30);
    for (const { page, line } of run) {
      const [, bin, sub] = line.split(/\s+/);
      expect(['hyperagents', 'generate-loop'], `${page}: ${line}`).toContain(bin);
      if (bin === 'hyperagents') expect([...COMMANDS, '--version'], `${page}: ${line}`).toContain(sub);
    }
  });

  it('give, in their examples and synopses, only options the command takes', async () => {
    const helps = new Map<string, Promise<string>>();
    const help = (bin: 'hyperagents' | 'generate-loop', args: string[]): Promise<string> => {
      const key = `${bin} ${args.join(' ')}`;
      if (!helps.has(key))
        helps.set(
          key,
          runCli(bin, args).then((r) => r.stdout),
        );
      return helps.get(key)!;
    };
    const listed = (option: string) => new RegExp(`(^|[\\s,\\[|])${option}\\b`, 'm');
    for (const { page, command } of commands) {
      const { own, passed } = optionsOf(command);
      const text = await help(...helpFor(command));
      for (const option of own) expect(text, `${page}: ${command}: ${option}`).toMatch(listed(option));
      const loopHelp = await help('generate-loop', ['--help']);
      for (const option of passed) expect(loopHelp, `${page}: ${command}: ${option}`).toMatch(listed(option));
    }
    // generate-loop, the top level, and the subcommands of the synopsis and the examples.
    expect(helps.size).toBeGreaterThanOrEqual(12);
  }, 180_000);

  it('show the commands moved out of the README in the pages that now hold them', () => {
    const on = (page: string) => commands.filter((c) => c.page === page).map((c) => commandName(c.command));
    expect(new Set(on('docs/commands.md'))).toEqual(new Set([...COMMANDS, '--version']));
    expect(on('docs/archive.md')).toEqual(expect.arrayContaining(['archive', 'serve', 'report']));
    expect(on('docs/scale-out.md')).toEqual(expect.arrayContaining(['worker', 'queue', 'generate-loop']));
    expect(on('docs/experiments.md')).toEqual([
      'experiment',
      'experiment',
      'experiment',
      'experiment',
      'experiment',
    ]);
    expect(on('docs/configuration.md')).toEqual(expect.arrayContaining(['chat', 'models']));
  });

  it('link only to files and headings that exist', () => {
    const links = pages.flatMap((page) => relativeLinks(page));
    expect(links.length).toBeGreaterThan(40);
    const tracked = new Set(
      execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n'),
    );
    for (const link of links) {
      const where = `${link.page}: [${link.text}](${link.file}${link.anchor ? `#${link.anchor}` : ''})`;
      expect(link.file.startsWith('..'), `${where} leaves the project`).toBe(false);
      const target = path.join(PROJECT_ROOT, link.file);
      expect(existsSync(target), `${where}: no such file`).toBe(true);
      // On a fresh clone (and on the project's page) only what git tracks is there.
      if (!pages.includes(link.file) && statSync(target).isFile()) {
        expect(tracked.has(link.file), `${where}: not tracked by git`).toBe(true);
      }
      if (link.anchor !== null) {
        expect(anchorsOf(readPage(link.file)).has(link.anchor), `${where}: no such heading`).toBe(true);
      }
    }
  });

  it('are all reachable from the README, which stays short', () => {
    const readme = readPage('README.md');
    const linked = new Set(relativeLinks('README.md').map((l) => l.file));
    expect(pages.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
    expect(readme.split('\n').length).toBeLessThanOrEqual(180);
  });
});

describe("the README's quick start", () => {
  const quickStart = codeBlocks('README.md', section(readPage('README.md'), '## Quick start'))
    .filter((b) => b.lang === 'bash')
    .flatMap((b) => b.lines.map((line) => line.replace(/\s+#.*$/, '')).filter((line) => line !== ''));

  it('sets up, runs on the simulated model, and browses that run', () => {
    expect(quickStart[0]).toBe('npm run setup');
    const runs = quickStart.filter((line) => line.startsWith('npx generate-loop'));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/--model sim\b/);
    expect(
      quickStart.filter((line) => /^npx hyperagents (archive|serve)\b/.test(line)).length,
    ).toBeGreaterThan(1);
  });

  it('works as written in a fresh clone: npx finds both commands, the run and the archive readers work', () => {
    const clone = mkdtempSync(path.join(tmpdir(), 'hyperagents-clone-'));
    try {
      execFileSync('git', ['clone', '--quiet', PROJECT_ROOT, clone]);
      // What `npm run setup` installs, without fetching it again: a real folder (the sandbox mounts it),
      // hard-linked where the file system allows.
      const modules = path.join(PROJECT_ROOT, 'node_modules');
      const linked = spawnSync('cp', ['-al', modules, path.join(clone, 'node_modules')]);
      if (linked.status !== 0) execFileSync('cp', ['-a', modules, path.join(clone, 'node_modules')]);
      // npx's own cache in the temp folder, offline: nothing is fetched, and the user's cache is untouched.
      const env = { ...process.env, npm_config_cache: path.join(clone, '.npm'), npm_config_offline: 'true' };
      for (const bin of ['hyperagents', 'generate-loop']) {
        const out = execFileSync('npx', [bin, '--version'], { cwd: clone, env, encoding: 'utf8' });
        expect(out).toBe(`${VERSION}\n`);
      }
      // Every command after the setup as written, but the server, which runs until it is stopped (the
      // browser suite runs it).
      const steps = quickStart.filter(
        (line) => line.startsWith('npx ') && !/^npx hyperagents serve\b/.test(line),
      );
      expect(steps.length).toBeGreaterThanOrEqual(3);
      for (const step of steps) {
        expect(step, 'a quick-start command is split on spaces here').not.toMatch(/["'$]/);
        const [npx, ...args] = step.split(/\s+/);
        const result = spawnSync(npx!, args, { cwd: clone, env, encoding: 'utf8', timeout: 400_000 });
        expect(result.status, `${step}\n${result.stderr}`).toBe(0);
        expect(result.stdout, step).not.toBe('');
      }
      const runId = quickStart.join(' ').match(/--run-id (\S+)/)?.[1];
      expect(existsSync(path.join(clone, 'runs', runId!, 'archive.sqlite'))).toBe(true);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  }, 600_000);
});
