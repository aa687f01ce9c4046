import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type BashTool, createBashTool } from '../tools/bash.ts';
import { CUT_OFF_MESSAGE, chatWithAgent } from './loop.ts';
import type { Message } from './messages.ts';
import { createScriptedModel } from './scripted-model.ts';
import type { Tool } from './tool.ts';

const call = (name: string, input: unknown) =>
  `<json>${JSON.stringify({ tool_name: name, tool_input: input })}</json>`;

/** The tool_output of a text-protocol result message. */
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
  it('runs a tool sequence with a real shell and ends on a reply without a call', async () => {
    const model = createScriptedModel([
      `I'll write the file.\n${call('bash', { command: 'echo hi > out.txt' })}`,
      call('bash', { command: 'cat out.txt' }),
      'All done: <json>{"response": "hi"}</json>',
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 'You are helpful.',
      user: 'Write hi.',
      tools: [bash, echo],
      root: dir,
    });
    expect(outcome.status).toBe('done');
    expect(outcome.toolCalls).toBe(2);
    expect(outcome.turns).toBe(3);
    expect(outcome.finalText).toContain('All done');
    expect(await readFile(join(dir, 'out.txt'), 'utf8')).toBe('hi\n');
    expect(resultOf(outcome.messages[5])).toBe('hi');
    const system = model.requests[0]?.messages[0]?.content ?? '';
    expect(system).toContain('You are helpful.');
    expect(system).toContain('### bash');
    expect(model.requests[0]?.tools).toBeUndefined();
    const later = model.requests[2]?.messages ?? [];
    expect(later.filter((m) => m.content.includes('### bash'))).toHaveLength(1);
    expect(outcome.usage.input).toBe(30);
  });

  it('tells the model about an unknown tool and which tools exist', async () => {
    const model = createScriptedModel([call('nope', {}), 'ok']);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    const output = resultOf(outcome.messages[3]);
    expect(output).toContain('no tool named "nope"');
    expect(output).toContain('Available tools: echo');
    expect(outcome.status).toBe('done');
  });

  it('lists invalid arguments field by field', async () => {
    const model = createScriptedModel([call('echo', { text: 5 }), 'ok']);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    const output = resultOf(outcome.messages[3]);
    expect(output).toContain('invalid input for tool "echo"');
    expect(output).toMatch(/- text: .*expected string/);
  });

  it('turns a tool exception into an error message', async () => {
    const model = createScriptedModel([call('explode', {}), 'ok']);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [failing] });
    expect(resultOf(outcome.messages[3])).toContain('tool "explode" failed: boom');
    expect(outcome.status).toBe('done');
  });

  it('blocks a denied command without running it', async () => {
    const model = createScriptedModel([call('bash', { command: 'curl http://example.com > got.txt' }), 'ok']);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [bash], root: dir });
    expect(resultOf(outcome.messages[3])).toContain('blocked by the safety policy: network tool (curl)');
    await expect(readFile(join(dir, 'got.txt'))).rejects.toThrow();
  });

  it('asks once for a cut-off call to be sent again', async () => {
    const model = createScriptedModel([
      '<json>{"tool_name": "echo", "tool_input": {"text": "a very long',
      call('echo', { text: 'short' }),
      'done',
    ]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    expect(outcome.messages[3]).toEqual({ role: 'user', content: CUT_OFF_MESSAGE });
    expect(resultOf(outcome.messages[5])).toBe('echo: short');
    expect(outcome.status).toBe('done');
  });

  it('treats stop reason "length" with an opened call as cut off, but retries only once', async () => {
    const model = createScriptedModel([
      { content: 'Calling <json>{"tool_name": "echo"}', stopReason: 'length' },
      { content: '<json>{"tool_name": "ec', stopReason: 'length' },
    ]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    expect(outcome.messages.filter((m) => m.content === CUT_OFF_MESSAGE)).toHaveLength(1);
    expect(outcome.status).toBe('done');
    expect(outcome.turns).toBe(2);
  });

  it('stops at the tool-call limit', async () => {
    const model = createScriptedModel(Array.from({ length: 10 }, () => call('echo', { text: 'again' })));
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo], maxToolCalls: 3 });
    expect(outcome.status).toBe('max_tool_calls');
    expect(outcome.toolCalls).toBe(3);
  });

  it('stops at the turn limit', async () => {
    const model = createScriptedModel(Array.from({ length: 10 }, () => call('echo', { text: 'again' })));
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo], maxTurns: 2 });
    expect(outcome.status).toBe('max_turns');
    expect(outcome.turns).toBe(2);
  });

  it('stops at the cost limit', async () => {
    const model = createScriptedModel(
      Array.from({ length: 10 }, () => ({ content: call('echo', { text: 'x' }), costUsd: 0.5 })),
    );
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo], maxCostUsd: 1 });
    expect(outcome.status).toBe('max_cost');
    expect(outcome.costUsd).toBe(1);
  });

  it('stops at the wall-time limit before calling the model again', async () => {
    const model = createScriptedModel([call('echo', { text: 'x' })]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo], wallTimeMs: 0 });
    expect(outcome.status).toBe('max_wall_time');
    expect(model.requests).toHaveLength(0);
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

  it('ends with an error outcome when the model fails', async () => {
    const model = createScriptedModel([
      { error: { type: 'rate_limit', message: 'slow down', retryable: true } },
    ]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo] });
    expect(outcome.status).toBe('error');
    expect(outcome.error).toEqual({ type: 'rate_limit', message: 'slow down', retryable: true });
    expect(outcome.finalText).toBe('');
  });

  it('does not parse tool calls when there are no tools', async () => {
    const model = createScriptedModel([call('bash', { command: 'ls' })]);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u' });
    expect(outcome.status).toBe('done');
    expect(outcome.toolCalls).toBe(0);
  });
});

describe('chatWithAgent, native protocol', () => {
  it('passes tool schemas and sends results as tool messages', async () => {
    const model = createScriptedModel([
      { content: 'Running.', toolCalls: [{ name: 'bash', input: { command: 'echo native' } }] },
      'finished',
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'u',
      tools: [bash],
      protocol: 'native',
      root: dir,
    });
    expect(outcome.status).toBe('done');
    const spec = model.requests[0]?.tools?.find((t) => t.name === 'bash');
    expect(spec?.inputSchema).toMatchObject({ type: 'object', properties: { command: { type: 'string' } } });
    expect(model.requests[0]?.messages[0]?.content).toBe('s');
    expect(outcome.messages[2]).toMatchObject({
      role: 'assistant',
      toolCalls: [{ id: 'call_1_0', name: 'bash' }],
    });
    expect(outcome.messages[3]).toEqual({
      role: 'tool',
      toolCallId: 'call_1_0',
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
    expect(outcome.toolCalls).toBe(1);
    expect(outcome.messages.slice(3, 5).map((m) => m.content)).toEqual([
      'echo: a',
      expect.stringContaining('Not run: only one tool call per reply'),
    ]);
  });

  it('retries once when the reply was cut off by the length limit', async () => {
    const model = createScriptedModel([{ content: 'I will call', stopReason: 'length' }, 'done']);
    const outcome = await chatWithAgent({ model, system: 's', user: 'u', tools: [echo], protocol: 'native' });
    expect(outcome.messages[3]?.content).toBe(CUT_OFF_MESSAGE);
    expect(outcome.status).toBe('done');
  });
});

describe('chatWithAgent context trimming', () => {
  it('keeps requests within the model context window', async () => {
    const model = createScriptedModel([
      ...Array.from({ length: 8 }, () => call('bash', { command: 'seq 1 3000' })),
      'done',
    ]);
    const outcome = await chatWithAgent({
      model,
      system: 's',
      user: 'task',
      tools: [bash],
      root: dir,
      modelInfo: { contextWindow: 8000, maxOutput: 1000 },
    });
    expect(outcome.status).toBe('done');
    const last = model.requests.at(-1)?.messages ?? [];
    const chars = last.reduce((sum, m) => sum + m.content.length, 0);
    expect(chars).toBeLessThanOrEqual(Math.floor(7000 * 4 * 0.9));
    expect(last[1]?.content.startsWith('task')).toBe(true);
    expect(outcome.messages).toHaveLength(2 + 8 * 2 + 1);
  });
});
