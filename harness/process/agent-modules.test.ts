import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../run/index.ts';
import type { ModulesEntry } from './agent-build.ts';
import { precompileAgent } from './agent-modules.ts';

const NODE_MODULES = path.join(PROJECT_ROOT, 'node_modules');
let dir: string;
let worktree: string;

/** An agent that, like the MetaAgent, imports every module of a folder it lists at run time. */
const AGENT: Record<string, string> = {
  'agents/task/main.ts': [
    "import { readdirSync } from 'node:fs';",
    "import { fileURLToPath } from 'node:url';",
    "import { shout } from '../core/words';",
    "import { twice } from '../core/twice.js';",
    "const dir = fileURLToPath(new URL('../tools/', import.meta.url));",
    'const tools: string[] = [];',
    'for (const file of readdirSync(dir).sort()) {',
    "  const mod = (await import(new URL('../tools/' + file, import.meta.url).href)) as { name: string };",
    '  tools.push(mod.name);',
    '}',
    'const edit = process.argv[2];',
    "if (edit) (await import('node:fs')).writeFileSync(new URL('../tools/b.ts', import.meta.url), edit);",
    "const late = edit ? ((await import(new URL('../tools/b.ts?again', import.meta.url).href)) as { name: string }).name : null;",
    'console.log(JSON.stringify({ tools, late, word: shout(twice("hi")), me: import.meta.filename }));',
  ].join('\n'),
  'agents/core/words.ts': "export const shout = (text: string): string => text.toUpperCase() + '!';\n",
  'agents/core/twice.ts': 'export const twice = (text: string): string => text + text;\n',
  'agents/tools/a.ts': "interface Named { name: string }\nexport const name: Named['name'] = 'tool-a';\n",
  'agents/tools/b.ts': "export const name: string = 'tool-b';\n",
};

function writeAgent(tree: string): void {
  for (const [file, text] of Object.entries(AGENT)) {
    mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    writeFileSync(path.join(tree, file), text);
  }
}

const compile = (tree: string, out = 'out') =>
  precompileAgent({
    worktree: tree,
    entry: 'agents/task/main.ts',
    outDir: path.join(dir, out),
    nodeModules: NODE_MODULES,
    cacheDir: path.join(dir, 'cache'),
  });

/** Runs the entry point as the sandbox would, with the loader and no tsx. */
const run = (entry: ModulesEntry, args: string[] = []): unknown =>
  JSON.parse(
    execFileSync(process.execPath, ['--import', entry.loader, entry.entry, ...args], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    }),
  );

const modules = async (tree: string, out?: string): Promise<ModulesEntry> => {
  const entry = await compile(tree, out);
  if (entry.kind !== 'modules') throw new Error(entry.reason);
  return entry;
};

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'agent-modules-'));
  worktree = path.join(dir, 'worktree');
  writeAgent(worktree);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('precompileAgent', () => {
  it('runs the source without tsx: modules found at run time load, and resolve as under tsx', async () => {
    const entry = await modules(worktree);
    expect(entry.cached).toBe(false);
    expect(run(entry)).toEqual({
      tools: ['tool-a', 'tool-b'],
      late: null,
      word: 'HIHI!',
      me: path.join(worktree, 'agents/task/main.ts'),
    });
  });

  it('compiles a module the agent changed while it runs, when it is loaded', async () => {
    const entry = await modules(worktree);
    const edited = "export const name: string = 'tool-b, edited';\n";
    expect(run(entry, [edited])).toMatchObject({ tools: ['tool-a', 'tool-b'], late: 'tool-b, edited' });
  });

  it('compiles equal code once, and serves it at another worktree', async () => {
    await modules(worktree);
    const other = path.join(dir, 'other worktree');
    cpSync(path.join(worktree, 'agents'), path.join(other, 'agents'), { recursive: true });
    const second = await modules(other, 'out-2');
    expect(second.cached).toBe(true);
    expect(run(second)).toMatchObject({ me: path.join(other, 'agents/task/main.ts') });
    writeFileSync(path.join(other, 'agents/tools/c.ts'), "export const name = 'tool-c';\n");
    const third = await modules(other, 'out-3');
    expect(third.cached).toBe(false);
    expect(run(third)).toMatchObject({ tools: ['tool-a', 'tool-b', 'tool-c'] });
  });

  it('falls back to the source, with the reason, when a module does not compile', async () => {
    writeFileSync(path.join(worktree, 'agents/tools/broken.ts'), 'export const = ;\n');
    const entry = await compile(worktree);
    expect(entry).toMatchObject({ kind: 'source', entry: 'agents/task/main.ts' });
    if (entry.kind === 'source') expect(entry.reason).toMatch(/Expected/);
  });

  it('loads the shipped MetaAgent, tools included', async () => {
    const shipped = path.join(dir, 'shipped');
    cpSync(path.join(PROJECT_ROOT, 'agents'), path.join(shipped, 'agents'), { recursive: true });
    // As in a variant's worktree: its packages are the project's.
    symlinkSync(NODE_MODULES, path.join(shipped, 'node_modules'));
    const entry = await precompileAgent({
      worktree: shipped,
      entry: 'agents/meta/main.ts',
      outDir: path.join(dir, 'meta'),
      nodeModules: NODE_MODULES,
    });
    if (entry.kind !== 'modules') throw new Error(entry.reason);
    execFileSync(process.execPath, ['--import', entry.loader, entry.entry, '--check'], { cwd: shipped });
    const listed = execFileSync(
      process.execPath,
      [
        '--import',
        entry.loader,
        '--input-type=module',
        '-e',
        `const { loadTools } = await import(${JSON.stringify(path.join(shipped, 'agents/core/tool.ts'))});
         const tools = await loadTools(${JSON.stringify(path.join(shipped, 'agents/tools'))}, { root: ${JSON.stringify(shipped)} }, { onWarning: console.error });
         console.log(tools.map((t) => t.name).join(','));
         await Promise.all(tools.map((t) => t.close?.()));
         const { z } = await import('zod');
         let frame;
         z.string().refine(() => { frame = new Error().stack.split('\\n').find((line) => line.includes('zod')); return true; }).parse('x');
         console.log(frame);`,
      ],
      { cwd: shipped, encoding: 'utf8' },
    );
    const [names, zodFrame] = listed.trim().split('\n');
    expect(names).toBe('bash,editor');
    // zod is one module, its bundle, not the hundred files of its package.
    expect(zodFrame).toContain(pathToFileURL(path.join(dir, 'meta', 'packages')).href);
  });
});
