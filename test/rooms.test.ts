import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './run-cli.ts';

/**
 * Which way imports run between the rooms (docs/architecture.md, 'Which way imports run'), read from the
 * source text of every tracked file:
 * - a file outside a harness room imports it only through its face, `harness/<room>/index.ts`;
 * - `agents/` imports nothing outside `agents/` (its code is copied into every variant);
 * - `llm/`, `archive/` and `domains/` import nothing above them but `system/` (their tests may run them
 *   against the harness, through its faces);
 * - `system/`, the machine's git and files used one hardened way, imports nothing of the project;
 * - the harness rooms' faces load each other without a cycle (`import type` loads nothing), so each room's
 *   modules are initialized before another room's use them.
 */

interface Source {
  file: string;
  text: string;
}

interface Import {
  /** The specifier as written. */
  spec: string;
  /** The file it names, relative to the project root; null for a package or builtin. */
  target: string | null;
  /** `import type` / `export type`: erased, so it loads nothing. */
  typeOnly: boolean;
}

/** The rooms at the bottom, and what they may import: each other, `system/` and `agents/`, which sits beside them. */
const LOWER_ROOMS = ['llm', 'archive', 'domains'];
const NOT_ABOVE = ['agents', 'system', ...LOWER_ROOMS];

const parsed = new WeakMap<Source, Import[]>();

/** Every import of a file: static, `export … from`, dynamic `import('…')` and `import('…')` types. */
function importsOf(source: Source): Import[] {
  const known = parsed.get(source);
  if (known) return known;
  const { file, text } = source;
  const found: Import[] = [];
  const add = (spec: string, typeOnly: boolean): void => {
    const target = spec.startsWith('.')
      ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec))
      : null;
    found.push({ spec, target, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.importClause?.isTypeOnly ?? false);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false));
  parsed.set(source, found);
  return found;
}

const topFolder = (file: string): string | null => (file.includes('/') ? file.split('/')[0]! : null);

/** `harness/<room>` for a file in a harness room, else null. */
const harnessRoom = (file: string): string | null => {
  const parts = file.split('/');
  return parts[0] === 'harness' && parts.length > 2 ? `${parts[0]}/${parts[1]}` : null;
};

/** One line per import that runs the wrong way, naming the file and the import. */
function wrongImports(sources: Source[]): string[] {
  const problems: string[] = [];
  for (const source of sources) {
    const { file } = source;
    const room = topFolder(file);
    const isTest = /\.test\.ts$/.test(file);
    for (const { spec, target } of importsOf(source)) {
      if (target === null) continue;
      const at = `${file} imports '${spec}'`;
      const targetRoom = topFolder(target);
      if (targetRoom === 'harness') {
        const inner = harnessRoom(target);
        if (inner === null)
          problems.push(`${at}: harness/ is entered through a room's face, harness/<room>/index.ts`);
        else if (harnessRoom(file) !== inner && target !== `${inner}/index.ts`)
          problems.push(`${at}, past the face of ${inner}/: import '${inner}/index.ts' instead`);
      }
      if (room === 'system' && targetRoom !== 'system')
        problems.push(`${at}: system/ imports nothing of the project (every room may use it)`);
      else if (room === 'agents' && targetRoom !== 'agents')
        problems.push(
          `${at}: agents/ imports nothing outside agents/ (its code is copied into every variant)`,
        );
      else if (
        room !== null &&
        LOWER_ROOMS.includes(room) &&
        !isTest &&
        !NOT_ABOVE.includes(targetRoom ?? '')
      )
        problems.push(`${at}: ${room}/ imports nothing above it (${targetRoom ?? 'the project root'})`);
    }
  }
  return problems;
}

/** A cycle of harness rooms whose non-test files load each other (type-only imports left out), or null. */
function roomCycle(sources: Source[]): string[] | null {
  const edges = new Map<string, Set<string>>();
  for (const source of sources) {
    const from = harnessRoom(source.file);
    if (from === null || /\.test\.ts$/.test(source.file)) continue;
    for (const { target, typeOnly } of importsOf(source)) {
      const to = target === null ? null : harnessRoom(target);
      if (to === null || to === from || typeOnly) continue;
      edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const done = new Set<string>();
  const walk = (room: string, trail: string[]): string[] | null => {
    if (trail.includes(room)) return [...trail.slice(trail.indexOf(room)), room];
    if (done.has(room)) return null;
    for (const next of edges.get(room) ?? []) {
      const cycle = walk(next, [...trail, room]);
      if (cycle) return cycle;
    }
    done.add(room);
    return null;
  };
  for (const room of edges.keys()) {
    const cycle = walk(room, []);
    if (cycle) return cycle;
  }
  return null;
}

const tracked = (): Source[] =>
  execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.mts', '*.mjs', '*.js'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '')
    .map((file) => ({ file, text: readFileSync(path.join(PROJECT_ROOT, file), 'utf8') }));

describe('the rooms of the project', () => {
  const sources = tracked();

  it('reads the imports of every tracked source file', () => {
    const all = sources.flatMap(importsOf);
    expect(sources.length).toBeGreaterThan(300);
    // Through a face, across rooms, and the bins' dynamic imports are all seen.
    expect(all.map((i) => i.target)).toEqual(
      expect.arrayContaining(['harness/run/index.ts', 'archive/archive.ts', 'cli/hyperagents.ts']),
    );
  });

  it('has no import that runs the wrong way', () => {
    expect(wrongImports(sources)).toEqual([]);
  });

  it("has no cycle between the harness rooms' faces", () => {
    expect(roomCycle(sources), 'harness rooms that load each other, in a cycle').toBeNull();
  });
});

describe('each rule, on a made-up tree', () => {
  const file = (name: string, text: string): Source => ({ file: name, text });

  it.each([
    [
      'a room outside the harness reaching past a face',
      file('cli/x.ts', "import { a } from '../harness/run/run.ts';"),
      "cli/x.ts imports '../harness/run/run.ts', past the face of harness/run/: import 'harness/run/index.ts' instead",
    ],
    [
      'another harness room reaching past a face',
      file('harness/generation/x.ts', "export { a } from '../process/sandbox.ts';"),
      "harness/generation/x.ts imports '../process/sandbox.ts', past the face of harness/process/",
    ],
    [
      'a dynamic import past a face',
      file('queue/x.ts', "const m = await import('../harness/evaluation/grading.ts');"),
      "queue/x.ts imports '../harness/evaluation/grading.ts', past the face of harness/evaluation/",
    ],
    [
      'a type-only import past a face',
      file('test/x.ts', "import type { T } from '../harness/run/run-config.ts';"),
      "test/x.ts imports '../harness/run/run-config.ts', past the face of harness/run/",
    ],
    [
      'a file at the top of harness/',
      file('web/x.ts', "import { a } from '../harness/run.ts';"),
      "web/x.ts imports '../harness/run.ts': harness/ is entered through a room's face",
    ],
    [
      'the agents importing outside agents/',
      file('agents/core/x.ts', "import { a } from '../../llm/registry.ts';"),
      "agents/core/x.ts imports '../../llm/registry.ts': agents/ imports nothing outside agents/",
    ],
    [
      'a lower room importing from above it',
      file('archive/x.ts', "import { a } from '../harness/run/index.ts';"),
      "archive/x.ts imports '../harness/run/index.ts': archive/ imports nothing above it (harness)",
    ],
    [
      'system/ importing a room',
      file('system/x.ts', "import { a } from '../archive/redact.ts';"),
      "system/x.ts imports '../archive/redact.ts': system/ imports nothing of the project",
    ],
    [
      'a lower room importing a root file',
      file('llm/x.ts', "import { a } from '../index.ts';"),
      "llm/x.ts imports '../index.ts': llm/ imports nothing above it (the project root)",
    ],
  ])('%s', (_name, source, message) => {
    expect(wrongImports([source])).toEqual([expect.stringContaining(message)]);
  });

  it.each([
    ['a face, from another room', file('cli/x.ts', "import { a } from '../harness/run/index.ts';")],
    ['a file of its own room', file('harness/run/x.ts', "import { a } from './run-config.ts';")],
    ['a face, from a harness room', file('harness/run/x.ts', "import { a } from '../process/index.ts';")],
    ['a package', file('agents/x.ts', "import { z } from 'zod';")],
    ['system/, from a lower room', file('archive/x.ts', "import { git } from '../system/git.ts';")],
    [
      'the harness, from a test of a lower room',
      file('domains/x.test.ts', "import { a } from '../harness/process/index.ts';"),
    ],
    [
      'an import written inside a string',
      file('harness/x.test.ts', 'const s = "import { a } from \'../cli/x.ts\';";'),
    ],
  ])('allows %s', (_name, source) => {
    expect(wrongImports([source])).toEqual([]);
  });

  it('finds a cycle of rooms that load each other, and leaves out type-only imports and tests', () => {
    const a = file('harness/a/x.ts', "import { b } from '../b/index.ts';");
    const b = file('harness/b/y.ts', "import { c } from '../c/index.ts';");
    expect(roomCycle([a, b, file('harness/c/z.ts', "import { a } from '../a/index.ts';")])).toEqual([
      'harness/a',
      'harness/b',
      'harness/c',
      'harness/a',
    ]);
    expect(roomCycle([a, b, file('harness/c/z.ts', "import type { A } from '../a/index.ts';")])).toBeNull();
    expect(roomCycle([a, b, file('harness/c/z.test.ts', "import { a } from '../a/index.ts';")])).toBeNull();
  });
});
