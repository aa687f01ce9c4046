import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModulesEntry } from './agent-build.ts';
import { precompileAgent } from './agent-modules.ts';
import { packageImports, packageName } from './agent-packages.ts';

describe('packageImports', () => {
  const imports = (code: string, file = 'agents/a.ts') => packageImports({ [file]: { code } });
  it.each([
    ['import { z } from "zod";', ['zod']],
    ['import * as z from "zod/v4";\nexport { a } from "@scope/pkg";', ['@scope/pkg', 'zod/v4']],
    ['import "side-effect";', ['side-effect']],
    ['const m = await import("late-pkg");', ['late-pkg']],
    ['import { a } from "./a.ts";\nimport b from "../b.js";\nimport c from "/abs/c.js";', []],
    ['import fs from "node:fs";\nimport path from "path";\nimport x from "file:///x.js";', []],
    ['const m = await import(name);', []],
  ])('%j imports %j', (code, expected) => {
    expect(imports(code)).toEqual(expected);
  });

  it.each([
    ['zod', 'zod'],
    ['zod/v4/core', 'zod'],
    ['@scope/pkg', '@scope/pkg'],
    ['@scope/pkg/sub/path', '@scope/pkg'],
  ])('%s is of package %s', (specifier, name) => {
    expect(packageName(specifier)).toBe(name);
  });

  it('leaves test files out, and names a package once', () => {
    expect(
      packageImports({
        'agents/a.ts': { code: 'import { z } from "zod";' },
        'agents/b.ts': { code: 'import { z } from "zod";' },
        'agents/a.test.ts': { code: 'import { it } from "vitest";' },
      }),
    ).toEqual(['zod']);
  });
});

let dir: string;
let worktree: string;
let nodeModules: string;

/** Packages as npm installs them: an ES module package of several files, one in CommonJS, one that reads beside itself. */
const PACKAGES: Record<string, string> = {
  'counter/package.json': JSON.stringify({ name: 'counter', type: 'module', exports: './index.js' }),
  'counter/index.js':
    "export { bump, count } from './lib/count.js';\nexport { where, label } from './lib/where.js';\n",
  'counter/lib/count.js': 'let n = 0;\nexport const bump = () => ++n;\nexport const count = () => n;\n',
  'counter/lib/where.js':
    "export const where = () => new Error().stack.split('\\n')[1];\nexport const label = 'first';\n",
  'common/package.json': JSON.stringify({ name: 'common', main: './index.js' }),
  'common/index.js': "exports.named = 'from commonjs';\n",
  'beside/package.json': JSON.stringify({ name: 'beside', type: 'module', exports: './index.js' }),
  'beside/index.js': [
    "import { readFileSync } from 'node:fs';",
    "export { count as countSeen } from 'counter';",
    "export const text = readFileSync(new URL('./data.txt', import.meta.url), 'utf8');",
  ].join('\n'),
  'beside/data.txt': 'read beside the package',
  'host/package.json': JSON.stringify({ name: 'host', type: 'module', exports: './index.js' }),
  'host/index.js': "export { bump as hostBump } from 'counter';\n",
};

/**
 * Two modules import the same package, a third imports it when it runs; two other packages import it too
 * (`host`, bundled, and `beside`, which cannot be).
 */
const AGENT: Record<string, string> = {
  'agents/task/main.ts': [
    "import { bump } from '../core/one.ts';",
    "import { count, counter } from '../core/two.ts';",
    "import { named } from 'common';",
    "import { text, countSeen } from 'beside';",
    "import { hostBump } from 'host';",
    'bump();',
    'hostBump();',
    "const late = await import('counter');",
    'const counts = [count(), countSeen(), late.count()];',
    'console.log(JSON.stringify({ counts, same: late === counter, where: late.where(), label: late.label, named, text }));',
  ].join('\n'),
  'agents/core/one.ts': "export { bump } from 'counter';\n",
  'agents/core/two.ts':
    "import * as counter from 'counter';\nexport const count = (): number => counter.count();\nexport { counter };\n",
  'agents/core/one.test.ts': "import 'not-installed';\n",
};

function writeFiles(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

const modules = async (out: string): Promise<ModulesEntry> => {
  const entry = await precompileAgent({
    worktree,
    entry: 'agents/task/main.ts',
    outDir: path.join(dir, out),
    nodeModules,
    cacheDir: path.join(dir, 'cache'),
  });
  if (entry.kind !== 'modules') throw new Error(entry.reason);
  return entry;
};

const run = (entry: ModulesEntry): Record<string, unknown> =>
  JSON.parse(
    execFileSync(process.execPath, ['--import', entry.loader, entry.entry], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    }),
  );

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'agent-packages-'));
  worktree = path.join(dir, 'worktree');
  nodeModules = path.join(dir, 'node_modules');
  writeFiles(nodeModules, PACKAGES);
  writeFiles(worktree, AGENT);
  // As in a variant's worktree: its packages are the project's.
  symlinkSync(nodeModules, path.join(worktree, 'node_modules'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('packages bundled for an agent', () => {
  it('serves an ES module package from one bundle, one instance for every importer', async () => {
    const entry = await modules('out');
    expect(run(entry)).toEqual({
      counts: [2, 2, 2],
      same: true,
      where: expect.stringContaining(pathToFileURL(path.join(dir, 'out', 'packages')).href),
      label: 'first',
      named: 'from commonjs',
      text: 'read beside the package',
    });
  });

  it('leaves a package out of the bundle of another that imports it, so it stays one instance', async () => {
    // The agent imports `counter` only through `host` (bundled) and `beside` (not).
    rmSync(path.join(worktree, 'agents/core'), { recursive: true });
    writeFiles(worktree, {
      'agents/task/main.ts': [
        "import { hostBump } from 'host';",
        "import { countSeen } from 'beside';",
        'hostBump();',
        'console.log(JSON.stringify({ seen: countSeen() }));',
      ].join('\n'),
    });
    expect(run(await modules('out'))).toEqual({ seen: 1 });
  });

  it('bundles a package again when its files changed, though the agent code did not', async () => {
    expect(run(await modules('out'))).toMatchObject({ label: 'first' });
    writeFiles(nodeModules, {
      'counter/lib/where.js': PACKAGES['counter/lib/where.js']!.replace('first', 'second'),
    });
    const again = await modules('out-2');
    expect(again.cached).toBe(true);
    expect(run(again)).toMatchObject({ label: 'second', where: expect.stringContaining('out-2') });
  });
});
