import type { Message } from './messages.ts';
import { TOOL_RESULT_PREFIX } from './tool-protocol.ts';
import { truncateMiddle } from './truncate.ts';

/**
 * Fits a conversation into a small context window. Keeps the system prompt and the first user message
 * (the task); shortens old tool outputs first (oldest first); then drops the oldest whole turns (an
 * assistant message with the results that follow it, so a call is never separated from its result) and
 * says so in the task message. The newest turn is always kept. Returns a new list; never mutates.
 */

export type ContextBudget = { maxChars: number; keepRecentMessages?: number; shortToolOutputChars?: number };

/** Character budget for a context window in tokens (about 4 characters a token), leaving room to answer. */
export function contextBudgetChars(
  contextWindow: number,
  maxOutputTokens = Math.floor(contextWindow / 4),
): number {
  const inputTokens = Math.max(256, contextWindow - maxOutputTokens);
  return Math.floor(inputTokens * 4 * 0.9);
}

export function messageChars(message: Message): number {
  const calls =
    message.role === 'assistant' && message.toolCalls ? JSON.stringify(message.toolCalls).length : 0;
  return message.content.length + calls;
}

function totalChars(messages: Message[]): number {
  return messages.reduce((sum, m) => sum + messageChars(m), 0);
}

export function fitContext(messages: Message[], budget: ContextBudget): Message[] {
  if (totalChars(messages) <= budget.maxChars) return messages;
  const pinnedCount = pinnedPrefixLength(messages);
  const pinned = messages.slice(0, pinnedCount);
  const rest = messages.slice(pinnedCount).map((m) => ({ ...m }));
  const keepRecent = budget.keepRecentMessages ?? 4;
  const shortChars = budget.shortToolOutputChars ?? 400;

  for (let i = 0; i < rest.length - keepRecent && totalChars([...pinned, ...rest]) > budget.maxChars; i++) {
    rest[i] = shortenToolOutput(rest[i]!, shortChars);
  }

  const turns = groupTurns(rest);
  let dropped = 0;
  while (turns.length > 1 && totalChars([...pinned, ...turns.flat()]) > budget.maxChars) {
    dropped += turns.shift()!.length;
  }
  const kept = turns.flat();
  if (totalChars([...pinned, ...kept]) > budget.maxChars) {
    for (let i = 0; i < kept.length; i++) kept[i] = shortenToolOutput(kept[i]!, shortChars);
  }
  return [...withOmissionNote(pinned, dropped), ...kept];
}

/** Leading system messages plus the first user message. */
function pinnedPrefixLength(messages: Message[]): number {
  const firstUser = messages.findIndex((m) => m.role === 'user');
  if (firstUser !== -1) return firstUser + 1;
  const firstOther = messages.findIndex((m) => m.role !== 'system');
  return firstOther === -1 ? messages.length : firstOther;
}

/** Splits into turns that each start at an assistant message (anything before the first is one turn). */
function groupTurns(messages: Message[]): Message[][] {
  const turns: Message[][] = [];
  for (const message of messages) {
    const last = turns.at(-1);
    if (last === undefined || message.role === 'assistant') turns.push([message]);
    else last.push(message);
  }
  return turns;
}

function shortenToolOutput(message: Message, maxChars: number): Message {
  if (message.role === 'tool') return { ...message, content: truncateMiddle(message.content, maxChars) };
  if (message.role === 'user' && message.content.startsWith(TOOL_RESULT_PREFIX)) {
    try {
      const result = JSON.parse(message.content.slice(TOOL_RESULT_PREFIX.length)) as Record<string, unknown>;
      if (typeof result.tool_output === 'string') {
        const shortened = { ...result, tool_output: truncateMiddle(result.tool_output, maxChars) };
        return { ...message, content: TOOL_RESULT_PREFIX + JSON.stringify(shortened) };
      }
    } catch {
      return { ...message, content: truncateMiddle(message.content, maxChars) };
    }
  }
  return message;
}

function withOmissionNote(pinned: Message[], dropped: number): Message[] {
  const last = pinned.at(-1);
  if (dropped === 0 || last?.role !== 'user') return pinned;
  const note = `\n\n[${dropped} earlier messages of this conversation were left out to fit the context window.]`;
  return [...pinned.slice(0, -1), { ...last, content: last.content + note }];
}
