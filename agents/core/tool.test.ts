import { cp, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEditorTool } from '../tools/editor.ts';
import { loadTools, type Tool, toToolSpec, validateToolInput } from './tool.ts';

const agentsDir = fileURLToPath(new URL('../', import.meta.url));
const nodeModules = fileURLToPath(new URL('../../node_modules', import.meta.url));

let dir: string;
const loaded: Tool[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'load-tools-'));
  await symlink(nodeModules, join(dir, 'node_modules'));
});
afterEach(async () => {
  await Promise.all(loaded.splice(0).map((t) => t.close?.()));
  await rm(dir, { recursive: true, force: true });
});

async function load(toolsDir: string, root = dir) {
  const warnings: string[] = [];
  const tools = await loadTools(toolsDir, { root }, { onWarning: (w) => warnings.push(w) });
  loaded.push(...tools);
  return { tools, names: tools.map((t) => t.name), warnings };
}

const schema = "import { z } from 'zod';\nconst inputSchema = z.object({ n: z.number() });\n";
const toolSource = (name: string, run = 'async ({ n }: { n: number }) => String(n * 2)') =>
  `{ name: '${name}', description: 'A test tool.', inputSchema, run: ${run} }`;

describe('loadTools', () => {
  it('finds the bash and editor tools of agents/tools, without warnings', async () => {
    const { names, warnings } = await load(join(agentsDir, 'tools'));
    expect(names).toEqual(['bash', 'editor']);
    expect(warnings).toEqual([]);
  });

  it('picks up a new file in a copy of the agent code as a new tool, working next to the others', async () => {
    await cp(agentsDir, join(dir, 'agents'), { recursive: true });
    await writeFile(
      join(dir, 'agents/tools/word-count.ts'),
      "import { z } from 'zod';\n" +
        'export default {\n' +
        "  name: 'word_count',\n" +
        "  description: 'Counts the words of a text.',\n" +
        '  inputSchema: z.object({ text: z.string() }),\n' +
        '  run: async ({ text }: { text: string }) => String(text.split(/\\s+/).filter(Boolean).length),\n' +
        '};\n',
    );
    const { tools, names, warnings } = await load(join(dir, 'agents/tools'));
    expect(warnings).toEqual([]);
    expect(names).toEqual(['bash', 'editor', 'word_count']);
    expect(await tools[2]?.run({ text: 'one two  three' })).toBe('3');
    expect(await tools[0]?.run({ command: 'echo $((6 * 7))' })).toBe('42');
  });

  it('takes default tool objects, factories called with the context, and named tool objects', async () => {
    await writeFile(join(dir, 'a-object.ts'), `${schema}export default ${toolSource('double')};\n`);
    await writeFile(
      join(dir, 'b-factory.ts'),
      `${schema}export default (ctx: { root: string }) => (${toolSource('where', 'async () => ctx.root')});\n`,
    );
    await writeFile(
      join(dir, 'c-named.ts'),
      `${schema}export const triple = ${toolSource('triple', 'async ({ n }: { n: number }) => String(n * 3)')};\n` +
        `export const half = ${toolSource('half', 'async ({ n }: { n: number }) => String(n / 2)')};\n` +
        'export const notATool = { name: "x" };\nexport function helper() { return 1; }\n',
    );
    await writeFile(
      join(dir, 'd-both.ts'),
      `${schema}export const same = ${toolSource('same')};\nexport default same;\n`,
    );
    const { tools, names, warnings } = await load(dir, '/the/root');
    expect(warnings).toEqual([]);
    expect(names).toEqual(['double', 'where', 'half', 'triple', 'same']);
    expect(await tools[0]?.run({ n: 4 })).toBe('8');
    expect(await tools[1]?.run({ n: 1 })).toBe('/the/root');
    expect(await tools[3]?.run({ n: 4 })).toBe('12');
  });

  it('skips broken files with a warning that names each one, and keeps the good ones', async () => {
    await writeFile(join(dir, 'good.ts'), `${schema}export default ${toolSource('good')};\n`);
    await writeFile(join(dir, 'syntax.ts'), 'export default {{{;\n');
    await writeFile(join(dir, 'throws.ts'), "throw new Error('cannot start');\n");
    await writeFile(
      join(dir, 'missing-import.ts'),
      "import { nothing } from './nowhere.ts';\nexport default nothing;\n",
    );
    await writeFile(
      join(dir, 'factory-throws.ts'),
      "export default () => { throw new Error('no config'); };\n",
    );
    await writeFile(join(dir, 'number.ts'), 'export default 42;\n');
    await writeFile(join(dir, 'skip.test.ts'), "throw new Error('tests are not tools');\n");
    const { names, warnings } = await load(dir);
    expect(names).toEqual(['good']);
    expect(warnings).toHaveLength(5);
    const about = (file: string) => warnings.find((w) => w.includes(join(dir, file))) ?? '';
    expect(about('syntax.ts')).toMatch(/failed to load/);
    expect(about('throws.ts')).toMatch(/failed to load: cannot start/);
    expect(about('missing-import.ts')).toMatch(/failed to load/);
    expect(about('factory-throws.ts')).toMatch(/failed to load: no config/);
    expect(about('number.ts')).toMatch(/exports no tool/);
    expect(warnings.join('\n')).not.toContain('skip.test.ts');
  });

  it('skips tools the model APIs could not take: a bad name, a repeated name, a non-object input', async () => {
    await writeFile(join(dir, 'a.ts'), `${schema}export default ${toolSource('first')};\n`);
    await writeFile(join(dir, 'b.ts'), `${schema}export default ${toolSource('first')};\n`);
    await writeFile(join(dir, 'c.ts'), `${schema}export default ${toolSource('has space')};\n`);
    await writeFile(
      join(dir, 'd.ts'),
      "import { z } from 'zod';\nexport default { name: 'text', description: 'd', inputSchema: z.string(), run: async () => '' };\n",
    );
    const { names, warnings } = await load(dir);
    expect(names).toEqual(['first']);
    expect(warnings).toEqual([
      expect.stringMatching(/skipped tool "first" of .*b\.ts: a tool of that name was already loaded/),
      expect.stringMatching(/skipped tool "has space" of .*c\.ts: its name must be/),
      expect.stringMatching(/skipped tool "text" of .*d\.ts: its inputSchema must be a z\.object/),
    ]);
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
      expect(checked.problems).toEqual([
        expect.stringMatching(/^input\.command: .*"view"\|"create"/),
        'input.path: expected string, received undefined',
      ]);
    }
  });

  it('names nested fields by their full path, and says when the input is not an object', () => {
    const editor = createEditorTool({ root: dir });
    const checked = validateToolInput(editor, { command: 'view', path: 'a', view_range: [1, 'end'] });
    expect(checked).toEqual({
      ok: false,
      problems: ['input.view_range[1]: expected number, received string'],
    });
    expect(validateToolInput(editor, 'view a')).toEqual({
      ok: false,
      problems: ['input: expected object, received string'],
    });
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
