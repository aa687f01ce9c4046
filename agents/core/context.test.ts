import { describe, expect, it } from 'vitest';
import { CHARS_PER_TOKEN, contextBudgetChars, fitContext, totalChars, trimContext } from './context.ts';
import type { Message } from './messages.ts';
import { formatToolResult } from './tool-protocol.ts';

const big = 'x'.repeat(2000);

function nativeConversation(turns: number, callsPerTurn = 1): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'system prompt' },
    { role: 'user', content: 'the task' },
  ];
  for (let i = 0; i < turns; i++) {
    const ids = Array.from({ length: callsPerTurn }, (_, j) => `c${i}_${j}`);
    messages.push({
      role: 'assistant',
      content: `step ${i}`,
      toolCalls: ids.map((id) => ({ id, name: 'bash', input: { command: 'ls' } })),
    });
    for (const id of ids)
      messages.push({ role: 'tool', toolCallId: id, name: 'bash', content: `${i}${big}` });
  }
  return messages;
}

function textConversation(turns: number): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 's' },
    { role: 'user', content: 't' },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push(
      {
        role: 'assistant',
        content: `<json>{"tool_name": "bash", "tool_input": {"command": "cat ${i}"}}</json>`,
      },
      { role: 'user', content: formatToolResult('bash', `${i}"quoted"\n${big}`) },
    );
    if (i === 1) messages.push({ role: 'user', content: 'Your tool call was cut off.' });
  }
  return messages;
}

/** Each tool message sits in the turn of the assistant message that called it. */
function expectNativePairs(messages: Message[]): void {
  let calls: string[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') calls = (message.toolCalls ?? []).map((c) => c.id);
    if (message.role === 'tool') expect(calls).toContain(message.toolCallId);
  }
  const answered = new Set(messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  for (const message of messages)
    if (message.role === 'assistant')
      for (const c of message.toolCalls ?? []) expect(answered).toContain(c.id);
}

describe('trimContext', () => {
  it('returns the conversation itself when it fits', () => {
    const messages = nativeConversation(2);
    expect(fitContext(messages, { maxChars: 100_000 })).toBe(messages);
    expect(trimContext(messages, { maxChars: 100_000 })).toMatchObject({ fits: true, dropped: 0 });
  });

  it('shortens old tool outputs first, oldest first, and keeps the recent ones whole', () => {
    const messages = nativeConversation(6);
    const before = structuredClone(messages);
    const { messages: fitted, fits, dropped } = trimContext(messages, { maxChars: 9000 });
    expect({ fits, dropped }).toEqual({ fits: true, dropped: 0 });
    expect(fitted).toHaveLength(messages.length);
    expect(fitted[3]?.content).toMatch(/^0x+\n\[\.\.\. 1601 characters omitted; 2001 in all \.\.\.\]\nx+$/);
    expect(fitted.at(-1)?.content).toBe(`5${big}`);
    expect(fitted.at(-3)?.content).toBe(`4${big}`);
    expect(totalChars(fitted)).toBeLessThanOrEqual(9000);
    expect(messages).toEqual(before);
  });

  it('drops the oldest whole turns, keeping system, task and the latest turn, and notes it', () => {
    const messages = nativeConversation(20);
    const { messages: fitted, dropped } = trimContext(messages, { maxChars: 5000 });
    expect(fitted[0]).toEqual(messages[0]);
    expect(fitted[1]?.content).toBe(
      `the task\n\n[${dropped} earlier messages of this conversation were left out to fit the context window.]`,
    );
    expect(dropped % 2).toBe(0);
    expect(fitted.slice(-2)).toEqual(messages.slice(-2));
    expect(fitted[2]?.role).toBe('assistant');
    expectNativePairs(fitted);
    expect(totalChars(fitted)).toBeLessThanOrEqual(5000);
  });

  it('never separates a turn with several tool calls from its results', () => {
    const messages = nativeConversation(8, 3);
    const { messages: fitted, fits } = trimContext(messages, { maxChars: 9000 });
    expect(fits).toBe(true);
    expectNativePairs(fitted);
    expect(fitted.slice(-4).map((m) => m.content)).toEqual(messages.slice(-4).map((m) => m.content));
  });

  it('keeps text-protocol results valid JSON and a call with its result (and a notice) together', () => {
    const messages = textConversation(6);
    for (const maxChars of [8000, 5000]) {
      const { messages: fitted, fits } = trimContext(messages, { maxChars });
      expect(fits).toBe(true);
      expect(totalChars(fitted)).toBeLessThanOrEqual(maxChars);
      for (const [i, message] of fitted.entries()) {
        if (message.role === 'user' && message.content.startsWith('Tool result:\n')) {
          expect(fitted[i - 1]?.content).toContain('<json>');
          expect(JSON.parse(message.content.slice('Tool result:\n'.length))).toMatchObject({
            tool_name: 'bash',
          });
        }
        if (message.content.includes('<json>')) expect(fitted[i + 1]?.content).toMatch(/^Tool result:\n/);
        if (message.content === 'Your tool call was cut off.')
          expect(fitted[i - 1]?.content).toContain('Tool result');
      }
    }
    const { messages: fitted, dropped } = trimContext(messages, { maxChars: 8000 });
    expect(dropped).toBe(0);
    expect(fitted).toContainEqual({ role: 'user', content: 'Your tool call was cut off.' });
    const first = fitted.find((m) => m.content.startsWith('Tool result:\n'))?.content ?? '';
    const output = (JSON.parse(first.slice('Tool result:\n'.length)) as { tool_output: string }).tool_output;
    expect(output).toMatch(/^0"quoted"\nx+\n\[\.\.\. \d+ characters omitted; 2010 in all \.\.\.\]\nx+$/);
    expect(trimContext(messages, { maxChars: 5000 }).dropped).toBeGreaterThan(0);
  });

  it('cuts the newest output just enough when it alone is over budget', () => {
    const messages: Message[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 't' },
      { role: 'assistant', content: 'a', toolCalls: [{ id: 'c', name: 'bash', input: {} }] },
      { role: 'tool', toolCallId: 'c', name: 'bash', content: `head${'y'.repeat(10_000)}tail` },
    ];
    const { messages: fitted, fits, chars } = trimContext(messages, { maxChars: 3000 });
    expect(fits).toBe(true);
    expect(chars).toBeLessThanOrEqual(3000);
    expect(chars).toBeGreaterThan(2800);
    expect(fitted[3]?.content).toMatch(
      /^heady+\n\[\.\.\. \d+ characters omitted; 10008 in all \.\.\.\]\ny+tail$/,
    );
  });

  it('reports that even the minimum does not fit', () => {
    const messages: Message[] = [
      { role: 'system', content: 'p'.repeat(5000) },
      { role: 'user', content: 'the task' },
      { role: 'assistant', content: 'a', toolCalls: [{ id: 'c', name: 'bash', input: {} }] },
      { role: 'tool', toolCallId: 'c', name: 'bash', content: big },
    ];
    const trimmed = trimContext(messages, { maxChars: 3000 });
    expect(trimmed.fits).toBe(false);
    expect(trimmed.chars).toBeGreaterThan(3000);
    expect(trimmed.messages[0]?.content).toBe('p'.repeat(5000));
    expect(trimmed.messages[1]?.content).toBe('the task');
  });
});

describe('contextBudgetChars', () => {
  it('converts the tokens left after the reply at CHARS_PER_TOKEN, with a 10% margin', () => {
    expect(CHARS_PER_TOKEN).toBe(3.5);
    expect(contextBudgetChars(8000, 1000)).toBe(Math.floor(7000 * 3.5 * 0.9));
  });

  it('reserves the gateway default output when none is given, never more than half the window', () => {
    expect(contextBudgetChars(200_000)).toBe(Math.floor((200_000 - 8192) * 3.5 * 0.9));
    expect(contextBudgetChars(8000)).toBe(Math.floor(4000 * 3.5 * 0.9));
    expect(contextBudgetChars(4096, 4096)).toBe(Math.floor(2048 * 3.5 * 0.9));
  });
});
