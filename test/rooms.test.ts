import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type IForbiddenRuleType, type IViolation } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './run-cli.ts';

/**
 * Which way imports run between the rooms (docs/architecture.md) is .dependency-cruiser.cjs, which
 * `npm run check` runs on the whole project. Here each of its rules runs on a made-up tree of rooms and
 * fails on the one bad import, by the rule's name.
 */
const config = createRequire(import.meta.url)(path.join(PROJECT_ROOT, '.dependency-cruiser.cjs')) as {
  forbidden: IForbiddenRuleType[];
  options: Record<string, unknown>;
};

const trees: string[] = [];
afterAll(() => {
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (and an empty module for each file they import) to a folder; the rules' violations there. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rooms-'));
  trees.push(dir);
  const all = new Map(Object.entries(files));
  for (const [file, text] of Object.entries(files)) {
    for (const [, spec] of text.matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
      const target = path.posix.join(path.posix.dirname(file), spec!);
      if (!all.has(target)) all.set(target, 'export const a = 1;\nexport type T = number;\n');
    }
  }
  for (const [file, text] of all) {
    mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const { tsConfig: _, progress: __, ...options } = config.options;
  const result = await cruise(['.'], {
    ...options,
    baseDir: dir,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
  });
  if (typeof result.output === 'string') throw new Error(result.output);
  return result.output.summary.violations.map((v: IViolation) => `${v.rule.name}: ${v.from} → ${v.to}`);
}

describe('the rooms of the project', () => {
  it('are checked by `npm run check`', () => {
    const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
    expect(manifest.scripts.check).toMatch(/depcruise .*\.dependency-cruiser\.cjs/);
  });

  it.each([
    ['a room reaching past a face', { 'cli/x.ts': "import { a } from '../archive/archive.ts';" }, 'face'],
    [
      'a type-only import past a face',
      { 'cli/x.ts': "import type { T } from '../harness/run/run-config.ts';" },
      'face',
    ],
    [
      'a dynamic import past a face',
      { 'queue/x.ts': "export const m = () => import('../harness/evaluation/grading.ts');" },
      'face',
    ],
    [
      'a harness room past another’s face',
      { 'harness/run/x.ts': "import { a } from '../process/sandbox.ts';" },
      'face',
    ],
    [
      'a file inside a domain folder',
      { 'cli/x.ts': "import { a } from '../domains/arithmetic/tasks.ts';" },
      'face',
    ],
    [
      'a test past a face',
      { 'test/x.test.ts': "import { a } from '../llm/gateway.ts';" },
      'face-from-a-test',
    ],
    [
      'agents/ importing outside itself',
      { 'agents/core/x.ts': "import { a } from '../../llm/index.ts';" },
      'agents-alone',
    ],
    [
      'the archive importing a domain',
      { 'archive/x.ts': "import { a } from '../domains/index.ts';" },
      'archive-imports',
    ],
    ['llm/ importing domains/', { 'llm/x.ts': "import { a } from '../domains/index.ts';" }, 'llm-imports'],
    [
      'domains/ importing llm/',
      { 'domains/x.ts': "import { a } from '../llm/index.ts';" },
      'domains-imports',
    ],
    [
      'system/ importing a room',
      { 'system/x.ts': "import { a } from '../archive/index.ts';" },
      'system-imports',
    ],
    [
      'web/ importing beyond the archive',
      { 'web/x.ts': "import { a } from '../llm/index.ts';" },
      'web-imports',
    ],
    [
      'a harness room importing upward',
      { 'harness/process/x.ts': "import { a } from '../evaluation/index.ts';" },
      'harness-rooms-downward',
    ],
    [
      'a room importing a command',
      { 'queue/x.ts': "import { a } from '../cli/queue.ts';" },
      'commands-on-top',
    ],
    [
      'code importing a test helper',
      { 'archive/x.ts': "import { a } from './testing/run.ts';" },
      'testing-for-tests',
    ],
    [
      'cli/shared/ importing a command',
      { 'cli/shared/x.ts': "import { a } from '../loop/loop-args.ts';" },
      'cli-shared',
    ],
    [
      'a command importing the command table',
      { 'cli/loop/x.ts': "import { a } from '../commands.ts';" },
      'cli-table-on-top',
    ],
    [
      'a command importing another group',
      { 'cli/domains/x.ts': "import { a } from '../loop/eval.ts';" },
      'cli-groups',
    ],
    [
      'two modules that load each other, through types',
      {
        'cli/a.ts': "import type { T } from './b.ts';\nexport type U = T;",
        'cli/b.ts': "import type { U } from './a.ts';\nexport type T = U;",
      },
      'no-circular',
    ],
  ])('fails on %s', async (_name, files, rule) => {
    const found = await violations(files);
    expect(found).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${rule}: `))]));
  });

  it('allows faces, a room’s own files, a domain’s face and, in tests, testing/ helpers and providers', async () => {
    expect(
      await violations({
        'cli/loop/y.ts':
          "import { a } from '../shared/errors.ts';\nimport { b } from '../queue/queue-target.ts';",
        'cli/x.ts': [
          "import { a } from '../archive/index.ts';",
          "import { b } from '../harness/run/index.ts';",
          "import { c } from '../domains/arithmetic/index.ts';",
        ].join('\n'),
        'harness/run/x.ts': "import { a } from './run-config.ts';\nimport { b } from '../process/index.ts';",
        'test/x.test.ts': [
          "import { a } from '../archive/testing/synthetic-run.ts';",
          "import { b } from '../llm/providers/openai.ts';",
          "import { c } from '../queue/index.ts';",
        ].join('\n'),
        'archive/x.test.ts': "import { a } from '../domains/index.ts';",
      }),
    ).toEqual([]);
  });
});
