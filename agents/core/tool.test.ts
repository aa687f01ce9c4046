import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadTools, type Tool, toToolSpec, validateToolInput } from './tool.ts';

const toolsDir = fileURLToPath(new URL('../tools/', import.meta.url));
const nodeModules = fileURLToPath(new URL('../../node_modules', import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'load-tools-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadTools', () => {
  it('finds the bash and editor tools of this folder', async () => {
    const tools = await loadTools(toolsDir, { root: dir });
    expect(tools.map((t) => t.name)).toEqual(['bash', 'editor']);
    await Promise.all(tools.map((t) => t.close?.()));
  });

  it('takes tool objects and factories, and skips everything else with a warning', async () => {
    await symlink(nodeModules, join(dir, 'node_modules'));
    const schema = "import { z } from 'zod';\nconst inputSchema = z.object({ n: z.number() });\n";
    await writeFile(
      join(dir, 'object.ts'),
      `${schema}export default { name: 'double', description: 'd', inputSchema, run: async ({ n }: { n: number }) => String(n * 2) };\n`,
    );
    await writeFile(
      join(dir, 'factory.ts'),
      `${schema}export default (ctx: { root: string }) => ({ name: 'where', description: 'w', inputSchema, run: async () => ctx.root });\n`,
    );
    await writeFile(join(dir, 'number.ts'), 'export default 42;\n');
    await writeFile(join(dir, 'broken.ts'), 'export default {{{;\n');
    await writeFile(join(dir, 'skip.test.ts'), 'throw new Error("tests are not tools");\n');
    const warnings: string[] = [];
    const tools = await loadTools(dir, { root: '/the/root' }, { onWarning: (w) => warnings.push(w) });
    expect(tools.map((t) => t.name)).toEqual(['where', 'double']);
    expect(await tools[0]?.run({ n: 1 })).toBe('/the/root');
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toContain('number.ts');
    expect(warnings.join('\n')).toContain('broken.ts');
  });
});

describe('validateToolInput', () => {
  const tool: Tool<{ command: 'view' | 'create'; path: string }> = {
    name: 'editor',
    description: 'e',
    inputSchema: z.object({ command: z.enum(['view', 'create']), path: z.string() }),
    run: async () => '',
  };

  it('lists every problem with its path', () => {
    const checked = validateToolInput(tool, { command: 'delete' });
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.problems[0]).toMatch(/^command: .*"view"\|"create"/);
      expect(checked.problems[1]).toMatch(/^path: /);
    }
  });

  it('passes valid input through', () => {
    expect(validateToolInput(tool, { command: 'view', path: 'a' })).toEqual({
      ok: true,
      value: { command: 'view', path: 'a' },
    });
  });

  it('describes the input as JSON Schema for the model', () => {
    expect(toToolSpec(tool as Tool).inputSchema).toMatchObject({
      type: 'object',
      properties: { command: { enum: ['view', 'create'] } },
      required: ['command', 'path'],
    });
  });
});
