import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contextBudgetChars, totalChars } from './context.ts';
import { chatWithAgent, type ToolProtocol } from './loop.ts';
import type { Message, ModelRequest } from './messages.ts';
import { createScriptedModel, type ScriptedStep } from './scripted-model.ts';
import type { Tool } from './tool.ts';

/** A tool whose output is long and says which call it came from at both ends. */
const read: Tool<{ n: number }> = {
  name: 'read',
  description: 'Reads page n.',
  inputSchema: z.object({ n: z.number() }),
  run: async ({ n }) => `start-${n}:${'x'.repeat(3000)}:end-${n}`,
};

const SYSTEM = 'You read pages.';
const TASK = 'Read every page, then summarize.';
const modelInfo = { contextWindow: 4000, maxOutput: 500 };
const budget = contextBudgetChars(4000, 500);

function script(protocol: ToolProtocol, calls: number): ScriptedStep[] {
  const steps: ScriptedStep[] = Array.from({ length: calls }, (_, i) =>
    protocol === 'native'
      ? { content: `page ${i + 1}`, toolCalls: [{ name: 'read', input: { n: i + 1 } }] }
      : `page ${i + 1} <json>${JSON.stringify({ tool_name: 'read', tool_input: { n: i + 1 } })}</json>`,
  );
  return [...steps, 'summary'];
}

/** The tool outputs a request carries, in order, whatever the protocol. */
function outputs(messages: Message[]): string[] {
  return messages.flatMap((m) => {
    if (m.role === 'tool') return [m.content];
    if (m.role === 'user' && m.content.startsWith('Tool result:\n'))
      return [(JSON.parse(m.content.slice('Tool result:\n'.length)) as { tool_output: string }).tool_output];
    return [];
  });
}

/** Every tool result directly follows the call it answers, and every call has its result. */
function expectPairsIntact(messages: Message[], protocol: ToolProtocol): void {
  for (const [i, message] of messages.entries()) {
    const next = messages[i + 1];
    const previous = messages[i - 1];
    if (protocol === 'native') {
      if (message.role === 'tool')
        expect(previous).toMatchObject({ toolCalls: [{ id: message.toolCallId }] });
      if (message.role === 'assistant' && message.toolCalls)
        expect(next).toMatchObject({ role: 'tool', toolCallId: message.toolCalls[0]?.id });
    } else {
      if (message.role === 'user' && message.content.startsWith('Tool result:'))
        expect(previous?.role === 'assistant' && previous.content.includes('<json>')).toBe(true);
      if (message.role === 'assistant' && message.content.includes('<json>'))
        expect(next?.content.startsWith('Tool result:')).toBe(true);
    }
  }
}

const requestChars = (request: ModelRequest) =>
  totalChars(request.messages) + (request.tools ? JSON.stringify(request.tools).length : 0);

describe.each(['native', 'text'] as const)('chatWithAgent context trimming, %s protocol', (protocol) => {
  it('shortens old outputs first, keeping system, task and the latest turns whole', async () => {
    const model = createScriptedModel(script(protocol, 6));
    const outcome = await chatWithAgent({
      model,
      system: SYSTEM,
      user: TASK,
      tools: [read],
      protocol,
      modelInfo,
    });
    expect(outcome.status).toBe('done');
    const last = model.requests.at(-1)!;
    expect(requestChars(last)).toBeLessThanOrEqual(budget);
    expect(last.messages[0]).toEqual(outcome.messages[0]);
    expect(last.messages[1]).toEqual({ role: 'user', content: TASK });
    expect(last.messages).toHaveLength(outcome.messages.length - 1);
    const sent = outputs(last.messages);
    expect(sent).toHaveLength(6);
    expect(sent[0]).toMatch(/^start-1:x+\n\[\.\.\. \d+ characters omitted; 3014 in all \.\.\.\]\nx+:end-1$/);
    expect(sent[0]!.length).toBeLessThan(500);
    expect(sent.at(-1)).toBe(await read.run({ n: 6 }));
    expectPairsIntact(last.messages, protocol);
    // The transcript the harness stores is never trimmed.
    expect(outputs(outcome.messages).every((o) => o.length === 3014)).toBe(true);
  });

  it('drops the oldest whole turns when shortening is not enough, and says so', async () => {
    const model = createScriptedModel(script(protocol, 24));
    const outcome = await chatWithAgent({
      model,
      system: SYSTEM,
      user: TASK,
      tools: [read],
      protocol,
      modelInfo,
    });
    expect(outcome.status).toBe('done');
    for (const request of model.requests) expect(requestChars(request)).toBeLessThanOrEqual(budget);
    const last = model.requests.at(-1)!;
    expect(last.messages[0]).toEqual(outcome.messages[0]);
    expect(last.messages[1]?.content).toMatch(
      new RegExp(`^${TASK}\\n\\n\\[\\d+ earlier messages of this conversation were left out`),
    );
    expect(last.messages[2]?.role).toBe('assistant');
    expect(last.messages.at(-2)?.content.startsWith('page 24')).toBe(true);
    const sent = outputs(last.messages);
    expect(sent.length).toBeLessThan(24);
    expect(sent.at(-1)).toBe(await read.run({ n: 24 }));
    expect(sent[0]).toContain('characters omitted');
    const firstKept = Number(/^start-(\d+)/.exec(sent[0] ?? '')?.[1]);
    expect(sent.map((o) => Number(/^start-(\d+)/.exec(o)?.[1]))).toEqual(
      Array.from({ length: sent.length }, (_, i) => firstKept + i),
    );
    expectPairsIntact(last.messages, protocol);
  });
});

describe('chatWithAgent when the context window is too small', () => {
  it('cuts the newest output just enough when it alone does not fit', async () => {
    const huge: Tool<Record<string, never>> = {
      name: 'dump',
      description: 'Dumps a lot.',
      inputSchema: z.object({}),
      run: async () => `head-of-dump ${'y'.repeat(40_000)} tail-of-dump`,
    };
    const model = createScriptedModel([{ toolCalls: [{ name: 'dump', input: {} }] }, 'ok']);
    const outcome = await chatWithAgent({
      model,
      system: SYSTEM,
      user: TASK,
      tools: [huge],
      protocol: 'native',
      modelInfo,
    });
    expect(outcome.status).toBe('done');
    const sent = outputs(model.requests[1]!.messages)[0] ?? '';
    expect(sent).toMatch(/^head-of-dump y+\n\[\.\.\. \d+ characters omitted/);
    expect(sent).toMatch(/tail-of-dump$/);
    expect(sent.length).toBeGreaterThan(budget / 2);
    expect(requestChars(model.requests[1]!)).toBeLessThanOrEqual(budget);
  });

  it('ends with an error outcome that says the context window is too small', async () => {
    const model = createScriptedModel(['never asked']);
    const outcome = await chatWithAgent({
      model,
      system: 'z'.repeat(budget + 1),
      user: TASK,
      modelInfo: { id: 'local/tiny', contextWindow: 4000, maxOutput: 500 },
    });
    expect(model.requests).toHaveLength(0);
    expect(outcome.status).toBe('error');
    expect(outcome.error?.type).toBe('context_overflow');
    expect(outcome.error?.message).toContain('does not fit the context window of local/tiny (4000 tokens');
    expect(outcome.error?.message).toContain('larger context window');
  });

  it('reserves maxTokens for the reply and counts native tool schemas against the budget', async () => {
    const model = createScriptedModel(script('native', 24));
    await chatWithAgent({
      model,
      system: SYSTEM,
      user: TASK,
      tools: [read],
      protocol: 'native',
      modelInfo: { contextWindow: 4000, maxOutput: 2000 },
      maxTokens: 1000,
    });
    const limit = contextBudgetChars(4000, 1000);
    for (const request of model.requests) expect(requestChars(request)).toBeLessThanOrEqual(limit);
    expect(requestChars(model.requests.at(-1)!)).toBeGreaterThan(limit - 3500);
  });
});
