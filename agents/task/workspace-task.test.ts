import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../core/messages.ts';
import { createScriptedModel, type ScriptedStep } from '../core/scripted-model.ts';
import { type FakeChatAnswer, type FakeGateway, startFakeGateway } from '../testing/fake-gateway.ts';
import { runNode } from '../testing/run-node.ts';
import { createBashTool } from '../tools/bash.ts';
import { createEditorTool } from '../tools/editor.ts';
import { runTask, type TaskAgentConfig, type TaskRequest } from './task-agent.ts';

const main = 'agents/task/main.ts';
const STUB = 'def greet(name):\n    pass\n';
const SOLVED = 'def greet(name):\n    return f"Hello, {name}!"\n';
const TEST_FILE =
  'from greet import greet\nassert greet("Ada") == "Hello, Ada!", greet("Ada")\nprint("1 passed")\n';
const TEST_COMMAND = 'python3 greet_test.py';

let dir: string;
let workspace: string;
let outside: string;
let gateway: FakeGateway | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'task-ws-'));
  workspace = join(dir, 'workspace');
  outside = join(dir, 'outside');
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(join(workspace, 'greet.py'), STUB);
  await writeFile(join(workspace, 'greet_test.py'), TEST_FILE);
});

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await rm(dir, { recursive: true, force: true });
});

function request(extra: Partial<TaskRequest> = {}): TaskRequest {
  return {
    id: 'python/greet',
    domain: 'exercism',
    input: { exercise: 'greet', language: 'python', instructions: 'Greet by name.', files: ['greet.py'] },
    workspace: {
      path: workspace,
      files: ['greet.py', 'greet_test.py'],
      language: 'python',
      testCommand: TEST_COMMAND,
    },
    ...extra,
  };
}

/** The session a capable model has: list, view, replace the stub, run the tests, answer. */
const SESSION: { name: string; input: Record<string, unknown> }[] = [
  { name: 'bash', input: { command: 'ls' } },
  { name: 'editor', input: { command: 'view', path: 'greet.py' } },
  {
    name: 'editor',
    input: {
      command: 'str_replace',
      path: 'greet.py',
      old_str: '    pass',
      new_str: '    return f"Hello, {name}!"',
    },
  },
  { name: 'bash', input: { command: TEST_COMMAND } },
];
const FINAL = 'The tests pass. <json>{"response": "done"}</json>';

/** Tool results in order, for either protocol. */
function resultsOf(request: ModelRequest): string[] {
  return request.messages.flatMap((m) => {
    if (m.role === 'tool') return [m.content];
    if (m.role === 'user' && m.content.startsWith('Tool result:')) {
      return [
        String((JSON.parse(m.content.slice('Tool result:'.length)) as { tool_output: unknown }).tool_output),
      ];
    }
    return [];
  });
}

describe('TaskAgent on a workspace task (worker process)', () => {
  for (const protocol of ['native', 'text'] as const) {
    it(`lists, views, edits and runs the tests in the workspace (${protocol} protocol)`, async () => {
      gateway = await startFakeGateway({
        models: [
          {
            id: 'm',
            nativeTools: protocol === 'native',
            contextWindow: 128_000,
            maxOutput: 4096,
            simulated: false,
          },
        ],
        answer: (_request, index): FakeChatAnswer => {
          const call = SESSION[index];
          if (!call) return { content: FINAL };
          if (protocol === 'native') return { content: '', toolCalls: [{ id: `c${index}`, ...call }] };
          return {
            content: `<json>${JSON.stringify({ tool_name: call.name, tool_input: call.input })}</json>`,
          };
        },
      });
      const run = await runNode(main, [], { env: gateway.env, stdin: `${JSON.stringify(request())}\n` });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ id: 'python/greet', output: FINAL });
      expect(await readFile(join(workspace, 'greet.py'), 'utf8')).toBe(SOLVED);

      const first = gateway.requests[0]!;
      const system = first.messages[0]?.content ?? '';
      expect(system).toContain(workspace);
      expect(system).toContain('python');
      expect(system).toContain('- greet.py\n- greet_test.py');
      expect(system).toContain(TEST_COMMAND);
      expect(first.messages[1]?.content).toContain('"exercise": "greet"');
      if (protocol === 'native') expect(first.tools?.map((t) => t.name).sort()).toEqual(['bash', 'editor']);
      else expect(first.tools).toBeUndefined();

      const results = resultsOf(gateway.requests.at(-1)!);
      expect(results[0]).toContain('greet_test.py');
      expect(results[1]).toMatch(/1\tdef greet\(name\):/);
      expect(results[3]).toContain('1 passed');
    });
  }

  it('answers a JSON task exactly as before, with no tools offered', async () => {
    gateway = await startFakeGateway({ answer: () => ({ content: '<json>{"response": 4}</json>' }) });
    const line = JSON.stringify({ id: 'a1', domain: 'arithmetic', input: { q: '2+2' } });
    const run = await runNode(main, [], { env: gateway.env, stdin: `${line}\n` });
    expect(JSON.parse(run.stdout)).toEqual({ id: 'a1', output: '<json>{"response": 4}</json>' });
    expect(gateway.requests).toHaveLength(1);
    expect(gateway.requests[0]?.tools).toBeUndefined();
  });

  it('answers with an error that names the problem when the workspace folder is missing', async () => {
    gateway = await startFakeGateway({ answer: () => ({ content: FINAL }) });
    const line = JSON.stringify(request({ workspace: { path: join(dir, 'nowhere'), files: [] } }));
    const run = await runNode(main, [], { env: gateway.env, stdin: `${line}\n` });
    expect(JSON.parse(run.stdout)).toMatchObject({
      id: 'python/greet',
      output: '',
      error: expect.stringContaining('is not an existing folder'),
    });
    expect(gateway.requests).toHaveLength(0);
  });
});

/** runTask in-process with the real tools and a scripted model (native protocol). */
async function runScripted(steps: ScriptedStep[], extra: Partial<TaskRequest> = {}) {
  const model = createScriptedModel(steps);
  const config: TaskAgentConfig = {
    model,
    prompt: 'unused for workspace tasks',
    workspacePrompt: await readFile(new URL('./workspace-prompt.md', import.meta.url), 'utf8'),
    tools: async (root) => [createBashTool({ cwd: root }), createEditorTool({ root })],
    protocol: 'native',
  };
  const response = await runTask(request(extra), config);
  return { response, results: model.requests.length > 0 ? resultsOf(model.requests.at(-1)!) : [], model };
}

const call = (name: string, input: Record<string, unknown>): ScriptedStep => ({
  toolCalls: [{ name, input }],
});

describe('workspace confinement', () => {
  it('starts bash in the workspace', async () => {
    const { results } = await runScripted([call('bash', { command: 'pwd' }), 'done']);
    expect(results[0]?.trim()).toBe(workspace);
  });

  it('refuses editor paths outside the workspace: ../x, an absolute path elsewhere, a link pointing out', async () => {
    await symlink(outside, join(workspace, 'link'));
    const { results } = await runScripted([
      call('editor', { command: 'create', path: '../x.txt', file_text: 'escaped' }),
      call('editor', { command: 'create', path: join(outside, 'y.txt'), file_text: 'escaped' }),
      call('editor', { command: 'create', path: 'link/z.txt', file_text: 'escaped' }),
      call('editor', { command: 'view', path: 'link' }),
      call('editor', { command: 'create', path: 'inside.txt', file_text: 'fine' }),
      'done',
    ]);
    expect(existsSync(join(dir, 'x.txt'))).toBe(false);
    expect(existsSync(join(outside, 'y.txt'))).toBe(false);
    expect(existsSync(join(outside, 'z.txt'))).toBe(false);
    for (const result of results.slice(0, 4)) expect(result).toMatch(/outside the working root|not run/);
    expect(await readFile(join(workspace, 'inside.txt'), 'utf8')).toBe('fine');
  });

  it('refuses bash writes outside the workspace: ../x, an absolute path elsewhere, links pointing out', async () => {
    await symlink(outside, join(workspace, 'link'));
    await symlink(join(outside, 'missing.txt'), join(workspace, 'dangling'));
    const { results } = await runScripted([
      call('bash', { command: 'echo escaped > ../x.txt' }),
      call('bash', { command: `echo escaped > ${join(outside, 'y.txt')}` }),
      call('bash', { command: 'echo escaped > link/z.txt' }),
      call('bash', { command: 'echo escaped | tee dangling' }),
      call('bash', { command: 'cp greet.py ../copy.py' }),
      call('bash', { command: 'echo fine > inside.txt && cat inside.txt' }),
      'done',
    ]);
    expect(existsSync(join(dir, 'x.txt'))).toBe(false);
    expect(existsSync(join(outside, 'y.txt'))).toBe(false);
    expect(existsSync(join(outside, 'z.txt'))).toBe(false);
    expect(existsSync(join(outside, 'missing.txt'))).toBe(false);
    expect(existsSync(join(dir, 'copy.py'))).toBe(false);
    for (const result of results.slice(0, 5)) expect(result).toContain('the safety policy denies it');
    expect(results[2]).toContain('symbolic link');
    expect(results[5]?.trim()).toBe('fine');
  });

  it('stops after settings.maxToolCalls tool calls', async () => {
    const { response, model } = await runScripted(
      [
        call('bash', { command: 'echo 1 >> count.txt' }),
        call('bash', { command: 'echo 2 >> count.txt' }),
        call('bash', { command: 'echo 3 >> count.txt' }),
        'done',
      ],
      { settings: { maxToolCalls: 2 } },
    );
    expect(await readFile(join(workspace, 'count.txt'), 'utf8')).toBe('1\n2\n');
    expect(model.requests).toHaveLength(2);
    expect(response.error).toBeUndefined();
  });

  it('stops after settings.maxTurns model calls', async () => {
    const { model } = await runScripted(
      [
        call('bash', { command: 'echo 1 >> count.txt' }),
        call('bash', { command: 'echo 2 >> count.txt' }),
        call('bash', { command: 'echo 3 >> count.txt' }),
        'done',
      ],
      { settings: { maxToolCalls: 40, maxTurns: 2 } },
    );
    expect(await readFile(join(workspace, 'count.txt'), 'utf8')).toBe('1\n2\n');
    expect(model.requests).toHaveLength(2);
  });
});

describe('workspace prompt', () => {
  it('asks for the final answer and names no strategy phrase', async () => {
    const prompt = (await readFile(new URL('./workspace-prompt.md', import.meta.url), 'utf8')).toLowerCase();
    expect(prompt).toContain('<json>{"response": "done"}</json>');
    for (const phrase of ['think step by step', 'list the edge cases', 're-read the question'])
      expect(prompt).not.toContain(phrase);
  });
});
