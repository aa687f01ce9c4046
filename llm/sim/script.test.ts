import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message, ToolSpec } from '../types.ts';
import { loadSimScript } from './script.ts';
import { createSimModel } from './sim-model.ts';

const dir = mkdtempSync(join(tmpdir(), 'sim-script-'));
function scriptFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const TOOLS: ToolSpec[] = [{ name: 'bash', description: 'shell', inputSchema: { type: 'object' } }];
const START: Message[] = [
  { role: 'system', content: 'meta prompt' },
  { role: 'user', content: 'go' },
];
const meta = (variantId: number) => ({ runId: 'r', variantId, role: 'meta' as const });

describe('sim scripted mode', () => {
  const path = scriptFile(
    'ok.json',
    JSON.stringify({
      meta: [
        [{ content: 'listing', toolCalls: [{ name: 'bash', input: { command: 'ls' } }] }, 'all done'],
        ['gen 2 done'],
      ],
      task: ['<json>{"response": 1}</json>', { content: 'no idea' }],
    }),
  );

  it('replays meta replies per generation, indexed by the assistant messages so far', async () => {
    const sim = createSimModel({ seed: 1, domains: ['arithmetic'], script: loadSimScript(path) });
    const first = await sim.complete({ messages: START, tools: TOOLS }, meta(1));
    expect(first).toMatchObject({
      ok: true,
      response: {
        message: {
          content: 'listing',
          toolCalls: [{ id: expect.any(String), name: 'bash', input: { command: 'ls' } }],
        },
        stopReason: 'tool_use',
      },
    });
    const id = first.ok ? first.response.message.toolCalls![0]!.id : '';
    const next = await sim.complete(
      {
        messages: [
          ...START,
          {
            role: 'assistant',
            content: 'listing',
            toolCalls: [{ id, name: 'bash', input: { command: 'ls' } }],
          },
          { role: 'tool', toolCallId: id, name: 'bash', content: 'agents\n' },
        ],
        tools: TOOLS,
      },
      meta(1),
    );
    expect(next).toMatchObject({
      ok: true,
      response: { message: { content: 'all done' }, stopReason: 'end' },
    });
    expect(await sim.complete({ messages: START }, meta(2))).toMatchObject({
      ok: true,
      response: { message: { content: 'gen 2 done' } },
    });
  });

  it('writes scripted tool calls as <json> blocks for a text-protocol request', async () => {
    const sim = createSimModel({ seed: 1, domains: [], script: loadSimScript(path) });
    const result = await sim.complete({ messages: START }, meta(1));
    expect(result.ok && result.response.message).toEqual({
      content: 'listing\n<json>{"tool_name":"bash","tool_input":{"command":"ls"}}</json>',
    });
  });

  it('fails as data, naming the generation, when the script runs out', async () => {
    const sim = createSimModel({ seed: 1, domains: [], script: loadSimScript(path) });
    const missing = await sim.complete({ messages: START }, meta(5));
    expect(missing).toMatchObject({ ok: false, error: { type: 'provider_error', retryable: false } });
    expect(!missing.ok && missing.error.message).toMatch(/no meta replies for generation 5/);
    const exhausted = await sim.complete(
      {
        messages: [...START, { role: 'assistant', content: 'gen 2 done' }, { role: 'user', content: 'more' }],
      },
      meta(2),
    );
    expect(!exhausted.ok && exhausted.error.message).toMatch(/generation 2 has 1 meta replies/);
  });

  it('cycles task replies in call order', async () => {
    const sim = createSimModel({ seed: 1, domains: [], script: loadSimScript(path) });
    const task = { runId: 'r', variantId: 1, role: 'task' as const };
    const contents: string[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await sim.complete({ messages: [{ role: 'user', content: `task ${i}` }] }, task);
      contents.push(result.ok ? result.response.message.content : 'error');
    }
    expect(contents).toEqual(['<json>{"response": 1}</json>', 'no idea', '<json>{"response": 1}</json>']);
  });

  it('rejects a bad file with a message that says what is wrong and where', () => {
    expect(() => loadSimScript(join(dir, 'absent.json'))).toThrow(/cannot read sim script .*absent\.json/);
    expect(() => loadSimScript(scriptFile('bad.json', '{"meta": ['))).toThrow(/bad\.json is not valid JSON/);
    const wrong = scriptFile(
      'wrong.json',
      JSON.stringify({ meta: [[{ content: 'x', toolCalls: [{ input: {} }] }]], tsk: [] }),
    );
    expect(() => loadSimScript(wrong)).toThrow(/meta\.0\.0/);
    expect(() => loadSimScript(wrong)).toThrow(/tsk/);
    expect(() => loadSimScript(scriptFile('empty.json', '{}'))).toThrow(/scripts no role/);
  });
});
