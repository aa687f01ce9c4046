import type { Message } from './messages.ts';
import { TOOL_RESULT_PREFIX } from './tool-protocol.ts';
import { truncateMiddle } from './truncate.ts';

/**
 * Fitting a conversation into a small context window. Sizes are counted in characters and converted
 * from tokens with `CHARS_PER_TOKEN`. What is always kept: the system prompt, the task (the first user
 * message) and the newest turn. What goes first: the middle of old tool outputs, then the oldest whole
 * turns. A turn is an assistant message with everything that follows it up to the next assistant message
 * (its tool results, a cut-off notice), so a tool call is never separated from its result.
 */

export type ContextBudget = {
  /** Characters the request's messages may take in all (see `contextBudgetChars`). */
  maxChars: number;
  /** Tool outputs in this many newest messages (and in the newest turn) are shortened last. Default 4. */
  keepRecentMessages?: number;
  /** What an old tool output is shortened to, in characters. Default 400. */
  shortToolOutputChars?: number;
};

/**
 * Characters per token, the factor k in `chars ~ tokens * k`. English prose averages about 4 characters
 * a token with the GPT, Claude and Gemini tokenizers, code and JSON about 3 to 3.5; the lower end is taken
 * so that a trimmed request does not overflow the window.
 */
export const CHARS_PER_TOKEN = 3.5;

/** Share of the character budget actually used; the rest covers message framing and estimation error. */
const SAFETY_MARGIN = 0.9;

/** Output tokens the gateway reserves when a request names no `maxTokens` (its default output cap). */
export const DEFAULT_ANSWER_TOKENS = 8192;

/**
 * Character budget for the input of a request to a model with `contextWindow` tokens, after reserving
 * `answerTokens` for the reply (default: `DEFAULT_ANSWER_TOKENS`; never more than half the window).
 */
export function contextBudgetChars(contextWindow: number, answerTokens = DEFAULT_ANSWER_TOKENS): number {
  const reserved = Math.min(answerTokens, Math.floor(contextWindow / 2));
  return Math.floor((contextWindow - reserved) * CHARS_PER_TOKEN * SAFETY_MARGIN);
}

export function messageChars(message: Message): number {
  const calls =
    message.role === 'assistant' && message.toolCalls ? JSON.stringify(message.toolCalls).length : 0;
  return message.content.length + calls;
}

export function totalChars(messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + messageChars(m), 0);
}

export type TrimmedContext = {
  messages: Message[];
  /** Size of `messages` in characters. */
  chars: number;
  /** False when even the minimum (system, task, newest turn with shortened outputs) is over budget. */
  fits: boolean;
  /** Messages of old turns left out. */
  dropped: number;
};

/** `trimContext` without the report: the messages to send (possibly still over budget). */
export function fitContext(messages: Message[], budget: ContextBudget): Message[] {
  return trimContext(messages, budget).messages;
}

/** Trims `messages` to `budget.maxChars`: a new list, or the input itself when it fits; never mutates. */
export function trimContext(messages: Message[], budget: ContextBudget): TrimmedContext {
  const fullSize = totalChars(messages);
  if (fullSize <= budget.maxChars) return { messages, chars: fullSize, fits: true, dropped: 0 };
  const shortChars = budget.shortToolOutputChars ?? 400;
  const pinnedCount = pinnedPrefixLength(messages);
  const pinned = messages.slice(0, pinnedCount);
  const turns = groupTurns(messages.slice(pinnedCount));
  let dropped = 0;
  const assemble = () => [...withOmissionNote(pinned, dropped), ...turns.flat()];
  const excess = () => totalChars(assemble()) - budget.maxChars;

  // 1. The middle of old tool outputs, oldest first.
  const recentFrom = Math.min(
    turns.flat().length - (budget.keepRecentMessages ?? 4),
    turns.slice(0, -1).flat().length,
  );
  let index = 0;
  for (const turn of turns) {
    for (let i = 0; i < turn.length && index < recentFrom && excess() > 0; i++, index++) {
      turn[i] = shortenToolOutput(turn[i]!, shortChars);
    }
  }
  // 2. The oldest whole turns; the newest one stays.
  while (turns.length > 1 && excess() > 0) dropped += turns.shift()!.length;
  // 3. What is left: cut the remaining tool outputs just enough (at least down to `shortChars`).
  for (const turn of turns) {
    for (let i = 0; i < turn.length && excess() > 0; i++) {
      const content = toolOutputOf(turn[i]!);
      if (content === undefined) continue;
      const target = Math.max(shortChars, content.length - excess() - 100);
      turn[i] = shortenToolOutput(turn[i]!, target);
    }
  }
  const trimmed = assemble();
  const chars = totalChars(trimmed);
  return { messages: trimmed, chars, fits: chars <= budget.maxChars, dropped };
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

/** The tool output a message carries (a native tool message, or a text-protocol result), if any. */
function toolOutputOf(message: Message): string | undefined {
  if (message.role === 'tool') return message.content;
  return message.role === 'user' ? parseTextResult(message.content)?.tool_output : undefined;
}

function parseTextResult(content: string): { tool_name?: unknown; tool_output: string } | undefined {
  if (!content.startsWith(TOOL_RESULT_PREFIX)) return undefined;
  try {
    const result = JSON.parse(content.slice(TOOL_RESULT_PREFIX.length)) as Record<string, unknown>;
    return typeof result.tool_output === 'string'
      ? { ...result, tool_output: result.tool_output }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Replaces the middle of a tool output with a note; a text-protocol result stays valid JSON. */
function shortenToolOutput(message: Message, maxChars: number): Message {
  if (message.role === 'tool') return { ...message, content: truncateMiddle(message.content, maxChars) };
  if (message.role !== 'user') return message;
  const result = parseTextResult(message.content);
  if (result === undefined || result.tool_output.length <= maxChars) return message;
  const shortened = { ...result, tool_output: truncateMiddle(result.tool_output, maxChars) };
  return { ...message, content: TOOL_RESULT_PREFIX + JSON.stringify(shortened) };
}

function withOmissionNote(pinned: Message[], dropped: number): Message[] {
  const last = pinned.at(-1);
  if (dropped === 0 || last?.role !== 'user') return pinned;
  const note = `\n\n[${dropped} earlier messages of this conversation were left out to fit the context window.]`;
  return [...pinned.slice(0, -1), { ...last, content: last.content + note }];
}
