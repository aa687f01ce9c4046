import { access, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BashTool, createBashTool } from '../tools/bash.ts';
import { createEditorTool } from '../tools/editor.ts';
import { CUT_OFF_MESSAGE, chatWithAgent } from './loop.ts';
import type { Message, ModelFn } from './messages.ts';
import { createSafetyPolicy, defaultSafetyPolicy } from './safety.ts';
import { createScriptedModel } from './scripted-model.ts';
import type { Tool } from './tool.ts';

const call = (name: string, input: unknown) =>
  `<json>${JSON.stringify({ tool_name: name, tool_input: input })}</json>`;

/** The tool_output of a text-protocol result message (which must be valid JSON after its prefix). */
function resultOf(message: Message | undefined): string {
  expect(message?.role).toBe('user');
  const content = message?.content ?? '';
  expect(content.startsWith('Tool result:\n')).toBe(true);
  return (JSON.parse(content.slice('Tool result:\n'.length)) as { tool_output: string }).tool_output;
}

const echo: Tool<{ text: string }> = {
  name: 'echo',
  description: 'Repeats text.',
  inputSchema: z.object({ text: z.string() }),
  run: async ({ text }) => `echo: ${text}`,
};
const failing: Tool<Record<string, never>> = {
  name: 'explode',
  description: 'Always fails.',
  inputSchema: z.object({}),
  run: async () => {
    throw new Error('boom');
  },
};
const sleepy: Tool<{ ms: number }> = {
  name: 'sleep',
  description: 'Waits.',
  inputSchema: z.object({ ms: z.number() }),
  run: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve('slept'), ms)),
};

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

let dir: string;
let bash: BashTool;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'loop-')));
  bash = createBashTool({ cwd: dir, timeoutMs: 5000 });
});
afterEach(async () => {
  await bash.close();
  await rm(dir, { recursive: true, force: true });
});

describe('chatWithAgent, text protocol', () => {
  it('runs a tool sequence with real tools, describing them once in the system prompt', async () => {
    const editor = createEditorTool({ root: dir });
    const model = createScriptedModel([
      `I'll write the file.\n${call('editor', { command: 'create', path: 'note.txt', file_text: 'hi "there"\n</json>\n' })}`,
      call('bash', { command: 'cat note.txt' }),
      'All done: <json>{"response": "hi"}</json>',
    ]);
    const seen: Message[] = [];
    const outcome = await chatWithAgent({
      model,
      system: 'You are helpful.',
      user: 'Write hi.',
      tools: [bash, editor],
      root: dir,
      onMessage: (m) => seen.push(m),
    });
    expect(outcome.status).toBe('done');
    expect(outcome).toMatchObject({ toolCalls: 2, turns: 3 });
    expect(outcome.finalText).toContain('All done');
    expect(await readFile(join(dir, 'note.txt'), 'utf8')).toBe('hi "there"\n</json>\n');
    expect(resultOf(outcome.messages[3])).toContain('Created note.txt');
    expect(resultOf(outcome.messages[5])).toBe('hi "there"\n</json>');
    expect(seen).toEqual(outcome.messages);

    const system = model.requests[0]?.messages[0]?.content ?? '';
    expect(system.startsWith('You are helpful.')).toBe(true);
    expect(system).toContain('### bash');
    expect(system).toContain('### editor');
    expect(model.requests[0]?.tools).toBeUndefined();
    const last = model.requests[2]?.messages ?? [];
    expect(last.filter((m) => m.content.includes('### bash'))).toHaveLength(1);
    expect(last.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(outcome.usage.input).toBe(30);
  });

  it('is forced by `protocol` even for a model with native tools', async () => {
    const model = createScriptedModel([call('echo', { text: 'x' }), 'ok']);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [echo],
      protocol: 'text',
      modelInfo: { nativeTools: true },
    });
    expect(model.requests[0]?.tools).toBeUndefined();
    expect(resultOf(outcome.messages[3])).toBe('echo: x');
  });

  it('tells the model about an unknown tool and which tools exist', async () => {
    const model = createScriptedModel([call('nope', {}), 'ok']);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    const output = resultOf(outcome.messages[3]);
    expect(output).toContain('no tool named "nope"');
    expect(output).toContain('Available tools: echo');
    expect(outcome.status).toBe('done');
  });

  it('lists invalid arguments path by path and does not run the tool', async () => {
    const editor = createEditorTool({ root: dir });
    const model = createScriptedModel([
      call('editor', { command: 'make', path: 5, view_range: [1, 'x'] }),
      'ok',
    ]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [editor], root: dir });
    const output = resultOf(outcome.messages[3]);
    expect(output).toContain('invalid input for tool "editor"');
    expect(output).toMatch(/^- input\.command: .*"view"/m);
    expect(output).toMatch(/^- input\.path: expected string, received number$/m);
    expect(output).toMatch(/^- input\.view_range\[1\]: expected number/m);
  });

  it('turns a tool exception into an error message and goes on', async () => {
    const model = createScriptedModel([call('explode', {}), 'ok']);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [failing] });
    expect(resultOf(outcome.messages[3])).toContain('tool "explode" failed: boom');
    expect(outcome.status).toBe('done');
  });

  it('asks once for a cut-off call to be sent again', async () => {
    const model = createScriptedModel([
      '<json>{"tool_name": "echo", "tool_input": {"text": "a very long',
      call('echo', { text: 'short' }),
      'done',
    ]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: CUT_OFF_MESSAGE });
    expect(resultOf(outcome.messages[5])).toBe('echo: short');
    expect(outcome.status).toBe('done');
  });

  it('ends with an error when the retried call is cut off again', async () => {
    const model = createScriptedModel([
      { content: 'Calling <json>{"tool_name": "echo"}', stopReason: 'length' },
      { content: '<json>{"tool_name": "ec', stopReason: 'length' },
      'never asked',
    ]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    expect(model.requests).toHaveLength(2);
    expect(outcome.messages.filter((m) => m.content === CUT_OFF_MESSAGE)).toHaveLength(1);
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toContain('cut off twice');
    expect(outcome.error?.message).toContain('maxTokens');
  });

  it('does not take a long answer cut at the length limit for a cut-off call', async () => {
    const model = createScriptedModel([
      {
        content: `The answer is <json>{"response": 42}</json> and because ${'x'.repeat(50)}`,
        stopReason: 'length',
      },
    ]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    expect(outcome.status).toBe('done');
    expect(model.requests).toHaveLength(1);
  });

  it('runs a complete call and tells the model the call after it was cut off', async () => {
    const model = createScriptedModel([
      `${call('echo', { text: 'one' })}\n<json>{"tool_name": "echo", "tool_input": {"te`,
      'ok',
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [echo],
      multipleToolCalls: true,
    });
    const output = resultOf(outcome.messages[3]);
    expect(output.startsWith('echo: one')).toBe(true);
    expect(output).toContain('cut off after this call');
  });

  it('runs only the first call by default, all in order with multipleToolCalls', async () => {
    const reply = `${call('echo', { text: 'one' })} ${call('echo', { text: 'two' })}`;
    const single = await chatWithAgent({
      model: createScriptedModel([reply, 'ok']),
      system: 's',
      user: 'u',
      tools: [echo],
    });
    expect(single.toolCalls).toBe(1);
    expect(resultOf(single.messages[3])).toContain('Only the first of your 2 tool calls was run');
    expect(single.messages[4]?.role).toBe('assistant');
    const multiple = await chatWithAgent({
      model: createScriptedModel([reply, 'ok']),
      system: 's',
      user: 'u',
      tools: [echo],
      multipleToolCalls: true,
    });
    expect(multiple.toolCalls).toBe(2);
    expect([resultOf(multiple.messages[3]), resultOf(multiple.messages[4])]).toEqual([
      'echo: one',
      'echo: two',
    ]);
    expect(multiple.messages[0]?.content).toContain('several such blocks');
  });

  it('cuts long tool output in the middle with a note', async () => {
    const model = createScriptedModel([call('bash', { command: 'seq 1 5000' }), 'ok']);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [bash],
      root: dir,
      maxToolOutputChars: 200,
    });
    const output = resultOf(outcome.messages[3]);
    expect(output).toMatch(/^1\n2\n/);
    expect(output).toMatch(/5000$/);
    expect(output).toContain('characters omitted');
  });

  it('does not parse tool calls when there are no tools', async () => {
    const model = createScriptedModel([call('bash', { command: 'ls' })]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u' });
    expect(outcome.status).toBe('done');
    expect(outcome.toolCalls).toBe(0);
    expect(model.requests[0]?.messages[0]?.content).toBe('s');
  });
});

describe('chatWithAgent, native protocol', () => {
  it('passes tool schemas, runs real tools and sends results as tool messages', async () => {
    const editor = createEditorTool({ root: dir });
    const model = createScriptedModel([
      {
        content: 'Creating.',
        toolCalls: [{ name: 'editor', input: { command: 'create', path: 'a.txt', file_text: 'native\n' } }],
      },
      { content: 'Checking.', toolCalls: [{ name: 'bash', input: { command: 'cat a.txt' } }] },
      'finished',
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [bash, editor],
      protocol: 'native',
      root: dir,
    });
    expect(outcome.status).toBe('done');
    const spec = model.requests[0]?.tools?.find((t) => t.name === 'bash');
    expect(spec?.inputSchema).toMatchObject({ type: 'object', properties: { command: { type: 'string' } } });
    expect(model.requests[0]?.messages[0]?.content).toBe('s');
    expect(outcome.messages[2]).toMatchObject({
      role: 'assistant',
      toolCalls: [{ id: 'call_1_0', name: 'editor' }],
    });
    expect(outcome.messages[3]).toMatchObject({ role: 'tool', toolCallId: 'call_1_0', name: 'editor' });
    expect(outcome.messages[5]).toEqual({
      role: 'tool',
      toolCallId: 'call_2_0',
      name: 'bash',
      content: 'native',
    });
  });

  it('is chosen from the model capability and answers every call of a reply', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'echo', input: { text: 'a' } },
          { name: 'echo', input: { text: 'b' } },
        ],
      },
      'ok',
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [echo],
      modelInfo: { nativeTools: true },
    });
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(['echo']);
    expect(outcome.toolCalls).toBe(1);
    expect(outcome.messages.slice(3, 5).map((m) => m.content)).toEqual([
      'echo: a',
      expect.stringContaining('Not run: only one tool call per reply'),
    ]);
  });

  it('runs every call in order with multipleToolCalls', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'echo', input: { text: 'a' } },
          { name: 'nope', input: {} },
          { name: 'echo', input: { text: 'c' } },
        ],
      },
      'ok',
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [echo],
      protocol: 'native',
      multipleToolCalls: true,
    });
    expect(outcome.toolCalls).toBe(3);
    expect(outcome.messages.slice(3, 6).map((m) => [m.role, m.content.slice(0, 26)])).toEqual([
      ['tool', 'echo: a'],
      ['tool', 'Error: there is no tool na'],
      ['tool', 'echo: c'],
    ]);
  });

  it('retries once when the reply was cut off by the length limit', async () => {
    const model = createScriptedModel([{ content: 'I will call', stopReason: 'length' }, 'done']);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo], protocol: 'native' });
    expect(outcome.messages[3]?.content).toBe(CUT_OFF_MESSAGE);
    expect(outcome.status).toBe('done');
  });
});

describe('chatWithAgent limits', () => {
  const forever = (n: number) => Array.from({ length: n }, () => call('echo', { text: 'again' }));

  it('stops at the tool-call limit (default 40)', async () => {
    const outcome = await chatWithAgent({
      model: createScriptedModel(forever(100)),
      system: 's',
      user: 'u',
      tools: [echo],
    });
    expect(outcome).toMatchObject({ status: 'max_tool_calls', toolCalls: 40, turns: 40 });
    const limited = await chatWithAgent({
      model: createScriptedModel(forever(10)),
      system: 's',
      user: 'u',
      tools: [echo],
      maxToolCalls: 3,
    });
    expect(limited).toMatchObject({ status: 'max_tool_calls', toolCalls: 3 });
    expect(limited.messages.at(-1)?.content).toContain('echo: again');
  });

  it('does not run calls of a reply past the tool-call limit', async () => {
    const model = createScriptedModel([
      { toolCalls: [1, 2, 3].map((n) => ({ name: 'echo', input: { text: String(n) } })) },
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [echo],
      protocol: 'native',
      multipleToolCalls: true,
      maxToolCalls: 2,
    });
    expect(outcome.status).toBe('max_tool_calls');
    expect(outcome.messages.slice(3).map((m) => m.content)).toEqual([
      'echo: 1',
      'echo: 2',
      expect.stringContaining('tool-call limit'),
    ]);
  });

  it('stops at the turn limit (default 60)', async () => {
    const outcome = await chatWithAgent({
      model: createScriptedModel(forever(100)),
      system: 's',
      user: 'u',
      tools: [echo],
      maxToolCalls: 1000,
    });
    expect(outcome).toMatchObject({ status: 'max_turns', turns: 60 });
    const limited = await chatWithAgent({
      model: createScriptedModel(forever(10)),
      system: 's',
      user: 'u',
      tools: [echo],
      maxTurns: 2,
    });
    expect(limited).toMatchObject({ status: 'max_turns', turns: 2 });
  });

  it('stops at the cost limit before the next model call', async () => {
    const model = createScriptedModel(
      Array.from({ length: 10 }, () => ({ content: call('echo', { text: 'x' }), costUsd: 0.5 })),
    );
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo], maxCostUsd: 1 });
    expect(outcome).toMatchObject({ status: 'max_cost', costUsd: 1, turns: 2 });
    expect(model.requests).toHaveLength(2);
  });

  it('stops at the wall-time limit before calling the model again', async () => {
    const model = createScriptedModel([call('echo', { text: 'x' })]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo], wallTimeMs: 0 });
    expect(outcome.status).toBe('max_wall_time');
    expect(model.requests).toHaveLength(0);
  });

  it('stops at the wall-time limit after a slow tool', async () => {
    const model = createScriptedModel([call('sleep', { ms: 60 }), 'never asked']);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [sleepy], wallTimeMs: 20 });
    expect(outcome.status).toBe('max_wall_time');
    expect(resultOf(outcome.messages.at(-1))).toBe('slept');
    expect(model.requests).toHaveLength(1);
  });

  it('aborts a model call that runs past the wall-time limit', async () => {
    const model = createScriptedModel([{ hangs: true }]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', wallTimeMs: 30 });
    expect(outcome.status).toBe('max_wall_time');
    expect(model.aborted).toBe(1);
    expect(outcome.turns).toBe(1);
  });
});

describe('chatWithAgent model failures', () => {
  it('ends with an error outcome when the model reports an error', async () => {
    const model = createScriptedModel([
      { error: { type: 'rate_limit', message: 'slow down', retryable: true } },
    ]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    expect(outcome.status).toBe('error');
    expect(outcome.error).toEqual({ type: 'rate_limit', message: 'slow down', retryable: true });
    expect(outcome.finalText).toBe('');
  });

  it('turns a model function that rejects into an error outcome, keeping the transcript so far', async () => {
    const model = createScriptedModel([call('echo', { text: 'x' }), { throws: 'socket hang up' }]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    expect(outcome.status).toBe('error');
    expect(outcome.error?.type).toBe('internal');
    expect(outcome.error?.message).toContain('socket hang up');
    expect(outcome.toolCalls).toBe(1);
    expect(outcome.messages).toHaveLength(4);
  });

  it('turns a model function that throws synchronously or returns garbage into an error outcome', async () => {
    const throwing: ModelFn = () => {
      throw new TypeError('not ready');
    };
    const thrown = await chatWithAgent({ model: throwing, system: 's', user: 'u' });
    expect(thrown.status).toBe('error');
    expect(thrown.error?.message).toContain('not ready');
    const garbage = (async () => undefined) as unknown as ModelFn;
    const malformed = await chatWithAgent({ model: garbage, system: 's', user: 'u' });
    expect(malformed.status).toBe('error');
    expect(malformed.error?.message).toContain('instead of a ModelResult');
    const noUsage = (async () => ({ ok: true, reply: { message: { content: 'hi' } } })) as unknown as ModelFn;
    const partial = await chatWithAgent({ model: noUsage, system: 's', user: 'u' });
    expect(partial.status).toBe('error');
    expect(partial.error?.message).toContain('malformed reply');
  });

  it('passes request options through to the model', async () => {
    const model = createScriptedModel(['ok']);
    await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      temperature: 0.2,
      maxTokens: 500,
      reasoning: 'low',
      modelInfo: { id: 'openai/o3' },
    });
    expect(model.requests[0]).toMatchObject({
      model: 'openai/o3',
      temperature: 0.2,
      maxTokens: 500,
      reasoning: 'low',
    });
  });
});

describe('chatWithAgent safety gate', () => {
  it('does not run a denied command and tells the model why', async () => {
    const model = createScriptedModel([
      call('bash', { command: 'touch ran.txt && curl -s http://127.0.0.1:9/ > got.txt' }),
      call('bash', { command: 'touch allowed.txt' }),
      'ok',
    ]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [bash], root: dir });
    const output = resultOf(outcome.messages[3]);
    expect(output).toContain('was not run');
    expect(output).toContain('network tool (curl)');
    expect(await exists(join(dir, 'ran.txt'))).toBe(false);
    expect(await exists(join(dir, 'allowed.txt'))).toBe(true);
    expect(outcome.status).toBe('done');
  });

  it('keeps the editor inside the working root', async () => {
    const editor = createEditorTool({ root: dir });
    const model = createScriptedModel([
      {
        toolCalls: [{ name: 'editor', input: { command: 'create', path: '../escape.txt', file_text: 'x' } }],
      },
      'ok',
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [editor],
      protocol: 'native',
      root: dir,
    });
    expect(outcome.messages[3]?.content).toContain('outside the working root');
    expect(await exists(join(dir, '..', 'escape.txt'))).toBe(false);
  });

  it('uses a custom policy that wraps the default one', async () => {
    const seen: string[] = [];
    const model = createScriptedModel([
      call('bash', { command: 'touch docker.txt' }),
      call('bash', { command: 'rm -rf ~' }),
      'ok',
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [bash],
      root: dir,
      beforeToolCall: (request, ctx) => {
        seen.push(JSON.stringify(request.input));
        if (JSON.stringify(request.input).includes('docker'))
          return { allow: false, reason: 'no docker here' };
        return defaultSafetyPolicy(request, ctx);
      },
    });
    expect(seen).toHaveLength(2);
    expect(resultOf(outcome.messages[3])).toContain('no docker here');
    expect(resultOf(outcome.messages[5])).toContain('recursive rm');
    expect(await exists(join(dir, 'docker.txt'))).toBe(false);
  });

  it('applies extra deny patterns of a configured policy', async () => {
    const model = createScriptedModel([call('bash', { command: 'echo hi > marker.txt' }), 'ok']);
    const policy = createSafetyPolicy({
      denyPatterns: [{ pattern: /marker/, reason: 'no markers', tool: 'bash' }],
    });
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [bash],
      root: dir,
      beforeToolCall: policy,
    });
    expect(resultOf(outcome.messages[3])).toContain('no markers');
    expect(await exists(join(dir, 'marker.txt'))).toBe(false);
  });

  it('denies the call when the policy itself throws', async () => {
    const model = createScriptedModel([call('bash', { command: 'touch thrown.txt' }), 'ok']);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [bash],
      root: dir,
      beforeToolCall: () => {
        throw new Error('policy bug');
      },
    });
    expect(resultOf(outcome.messages[3])).toContain('policy bug');
    expect(await exists(join(dir, 'thrown.txt'))).toBe(false);
    expect(outcome.status).toBe('done');
  });
});
