import { describe, expect, it } from 'vitest';
import { contextBudgetChars, fitContext } from './context.ts';
import type { Message } from './messages.ts';
import { formatToolResult } from './tool-protocol.ts';

const big = 'x'.repeat(2000);

function nativeConversation(turns: number): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'system prompt' },
    { role: 'user', content: 'the task' },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      content: `step ${i}`,
      toolCalls: [{ id: `c${i}`, name: 'bash', input: { command: 'ls' } }],
    });
    messages.push({ role: 'tool', toolCallId: `c${i}`, name: 'bash', content: big });
  }
  return messages;
}

describe('fitContext', () => {
  it('returns the conversation unchanged when it fits', () => {
    const messages = nativeConversation(2);
    expect(fitContext(messages, { maxChars: 100_000 })).toBe(messages);
  });

  it('shortens old tool outputs first and keeps the recent ones whole', () => {
    const messages = nativeConversation(6);
    const fitted = fitContext(messages, { maxChars: 9000 });
    expect(fitted).toHaveLength(messages.length);
    expect(fitted[3]?.content.length).toBeLessThan(600);
    expect(fitted.at(-1)?.content).toBe(big);
    expect(messages[3]?.content).toBe(big);
  });

  it('drops the oldest whole turns, keeping system, task and the latest turn, and notes it', () => {
    const messages = nativeConversation(20);
    const fitted = fitContext(messages, { maxChars: 5000 });
    expect(fitted[0]).toEqual(messages[0]);
    expect(fitted[1]?.content).toMatch(/^the task\n\n\[\d+ earlier messages/);
    expect(fitted.at(-2)).toEqual(messages.at(-2));
    for (const [i, message] of fitted.entries()) {
      if (message.role === 'tool')
        expect(fitted[i - 1]).toMatchObject({ role: 'assistant', toolCalls: [{ id: message.toolCallId }] });
    }
    expect(fitted.reduce((n, m) => n + m.content.length, 0)).toBeLessThanOrEqual(5000);
  });

  it('keeps text-protocol results valid JSON when shortening them', () => {
    const messages: Message[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 't' },
    ];
    for (let i = 0; i < 6; i++) {
      messages.push(
        { role: 'assistant', content: 'call' },
        { role: 'user', content: formatToolResult('bash', big) },
      );
    }
    const fitted = fitContext(messages, { maxChars: 8000 });
    const first = fitted[3]?.content ?? '';
    expect(first.length).toBeLessThan(700);
    expect(JSON.parse(first.slice('Tool result:\n'.length))).toMatchObject({ tool_name: 'bash' });
  });
});

describe('contextBudgetChars', () => {
  it('leaves room for the answer and estimates 4 characters a token', () => {
    expect(contextBudgetChars(8000, 1000)).toBe(Math.floor(7000 * 4 * 0.9));
  });
});
