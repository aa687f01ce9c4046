import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../run/index.ts';
import { buildAgentEntry } from './agent-build.ts';

const NODE_MODULES = path.join(PROJECT_ROOT, 'node_modules');
let dir: string;
let worktree: string;
let outDir: string;

/** A small agent: a module beside it, a package from node_modules, and a prompt read beside itself. */
function writeAgent(files: Record<string, string>): void {
  const all: Record<string, string> = {
    'agents/task/main.ts': [
      "import { readFileSync } from 'node:fs';",
      "import { z } from 'zod';",
      "import { greeting } from '../core/greeting.ts';",
      "const prompt = readFileSync(new URL('./prompt.md', import.meta.url), 'utf8').trim();",
      'console.log(JSON.stringify({ greeting: greeting(), prompt, parsed: z.number().parse(3) }));',
    ].join('\n'),
    'agents/core/greeting.ts': "export const greeting = (): string => 'hello';\n",
    'agents/task/prompt.md': 'first prompt\n',
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(worktree, file)), { recursive: true });
    writeFileSync(path.join(worktree, file), text);
  }
}

const build = () =>
  buildAgentEntry({ worktree, entry: 'agents/task/main.ts', outDir, nodeModules: NODE_MODULES });

const run = (file: string): unknown =>
  JSON.parse(execFileSync(process.execPath, [file], { cwd: tmpdir(), encoding: 'utf8' }));

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'agent-build-'));
  worktree = path.join(dir, 'worktree');
  outDir = path.join(dir, 'build');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('buildAgentEntry', () => {
  it('builds one file that runs on node alone and reads its prompt from the worktree', async () => {
    writeAgent({});
    const built = await build();
    if (built.kind !== 'built') throw new Error(built.reason);
    expect(path.dirname(built.file)).toBe(outDir);
    expect(run(built.file)).toEqual({ greeting: 'hello', prompt: 'first prompt', parsed: 3 });
    writeFileSync(path.join(worktree, 'agents/task/prompt.md'), 'edited prompt\n');
    expect(run(built.file)).toMatchObject({ prompt: 'edited prompt' });
    expect(existsSync(path.join(outDir, 'src'))).toBe(false);
  });

  it('builds the shipped TaskAgent, which loads with --check', async () => {
    cpSync(path.join(PROJECT_ROOT, 'agents'), path.join(worktree, 'agents'), { recursive: true });
    const built = await build();
    if (built.kind !== 'built') throw new Error(built.reason);
    execFileSync(process.execPath, [built.file, '--check'], { cwd: worktree });
  });

  it('leaves a symbolic link out of agents/ behind, so what it points at is never bundled', async () => {
    const secret = path.join(dir, 'secret.ts');
    writeFileSync(secret, "export const greeting = (): string => 'TOP-SECRET';\n");
    writeAgent({});
    rmSync(path.join(worktree, 'agents/core/greeting.ts'));
    symlinkSync(secret, path.join(worktree, 'agents/core/greeting.ts'));
    const built = await build();
    expect(built).toMatchObject({ kind: 'source', entry: 'agents/task/main.ts' });
    expect(existsSync(path.join(outDir, 'main.mjs'))).toBe(false);
  });

  it.each([
    ['a file outside agents/', "import '../../outside.ts';\n", /outside agents\//],
    ['a computed import', `const name = "x"; await import(\`./$\{name}.ts\`);\n`, /computed at run time/],
    ['a syntax error', 'export const = ;\n', /agents\/core\/extra\.ts/],
  ])('falls back to the source for %s, with the reason', async (_what, extra, reason) => {
    writeFileSync(path.join(dir, 'outside.ts'), "console.log('outside');\n");
    writeAgent({ 'agents/core/extra.ts': extra });
    const main = path.join(worktree, 'agents/task/main.ts');
    writeFileSync(main, `import '../core/extra.ts';\n${readFileSync(main, 'utf8')}`);
    const built = await build();
    if (built.kind !== 'source') throw new Error('expected the build to fail');
    expect(built.reason).toMatch(reason);
    expect(built.reason).not.toMatch(/hyperagents-build-root/);
  });

  describe('with a cache folder', () => {
    const cached = (tree: string, out: string) =>
      buildAgentEntry({
        worktree: tree,
        entry: 'agents/task/main.ts',
        outDir: out,
        nodeModules: NODE_MODULES,
        cacheDir: path.join(dir, 'cache'),
      });
    /** Reads its prompt by all three import.meta paths, so each must point into its own worktree. */
    const selfAware = [
      "import { readFileSync } from 'node:fs';",
      "import path from 'node:path';",
      "const byUrl = readFileSync(new URL('./prompt.md', import.meta.url), 'utf8').trim();",
      "const byDir = readFileSync(path.join(import.meta.dirname, 'prompt.md'), 'utf8').trim();",
      "const byFile = readFileSync(path.join(path.dirname(import.meta.filename), 'prompt.md'), 'utf8').trim();",
      'console.log(JSON.stringify({ byUrl, byDir, byFile, version: 1 }));',
    ].join('\n');

    it('reuses the bundle for equal code in another worktree, which reads its own prompt', async () => {
      writeAgent({ 'agents/task/main.ts': selfAware });
      const first = await cached(worktree, outDir);
      if (first.kind !== 'built') throw new Error(first.reason);
      expect(first.cached).toBe(false);
      // Another variant: the same code, another prompt, at a path with characters a string literal quotes.
      const other = path.join(dir, "variant 2 'it\"s' $` dir");
      cpSync(path.join(worktree, 'agents'), path.join(other, 'agents'), { recursive: true });
      writeFileSync(path.join(other, 'agents/task/prompt.md'), 'second prompt\n');
      const second = await cached(other, path.join(dir, 'build-2'));
      if (second.kind !== 'built') throw new Error(second.reason);
      expect(second.cached).toBe(true);
      expect(run(second.file)).toEqual({
        byUrl: 'second prompt',
        byDir: 'second prompt',
        byFile: 'second prompt',
        version: 1,
      });
      expect(run(first.file)).toMatchObject({ byUrl: 'first prompt', byDir: 'first prompt' });
    });

    it('builds equal code once when several builds of it run at once, and each runs in its own worktree', async () => {
      writeAgent({ 'agents/task/main.ts': selfAware });
      const trees = [worktree, path.join(dir, 'w2'), path.join(dir, 'w3')];
      trees.slice(1).forEach((tree, i) => {
        cpSync(path.join(worktree, 'agents'), path.join(tree, 'agents'), { recursive: true });
        writeFileSync(path.join(tree, 'agents/task/prompt.md'), `prompt ${i + 2}\n`);
      });
      const built = await Promise.all(trees.map((tree, i) => cached(tree, path.join(dir, `out-${i}`))));
      // One made the bundle; the others waited for it instead of bundling the same code again.
      expect(built.map((b) => b.kind === 'built' && b.cached).sort()).toEqual([false, true, true]);
      expect(
        built.map((b) => (b.kind === 'built' ? (run(b.file) as { byUrl: string }).byUrl : b.reason)),
      ).toEqual(['first prompt', 'prompt 2', 'prompt 3']);
    });

    it('bundles again when a code file changes, and runs the new code', async () => {
      writeAgent({ 'agents/task/main.ts': selfAware });
      await cached(worktree, outDir);
      writeFileSync(
        path.join(worktree, 'agents/task/main.ts'),
        selfAware.replace('version: 1', 'version: 2'),
      );
      const again = await cached(worktree, outDir);
      if (again.kind !== 'built') throw new Error(again.reason);
      expect(again.cached).toBe(false);
      expect(run(again.file)).toMatchObject({ version: 2 });
      // A new file the entry does not import is code too: the key covers every code file.
      writeFileSync(path.join(worktree, 'agents/core/unused.ts'), 'export const x = 1;\n');
      expect(await cached(worktree, outDir)).toMatchObject({ kind: 'built', cached: false });
      expect(await cached(worktree, outDir)).toMatchObject({ kind: 'built', cached: true });
    });
  });
});
