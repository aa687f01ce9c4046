import { isPlainObject, parseLenientJson, scanJson } from './json-extract.ts';
import type { ToolSpec } from './messages.ts';

/**
 * The text tool-call protocol: the model writes
 * `<json>{"tool_name": "bash", "tool_input": {"command": "ls"}}</json>`
 * and gets each result back as a user message `Tool result:\n{"tool_name": ..., "tool_output": ...}`.
 */

export type ParsedToolCall = { name: string; input: unknown };
export type ParsedToolCalls = { calls: ParsedToolCall[]; truncated: boolean };

export const TOOL_RESULT_PREFIX = 'Tool result:\n';

/**
 * Every tool call in `text` (`<json>` blocks, ```json fences, bare objects with `tool_name`), in order.
 * Blocks that are not calls are skipped. `truncated` is true when a `<json>` block was opened and never
 * closed, or an object mentioning "tool_name" never closes. Never throws.
 */
export function parseToolCalls(text: string): ParsedToolCalls {
  try {
    const scan = scanJson(text);
    const calls = scan.candidates
      .flatMap((c) => c.values)
      .flatMap((value) => (Array.isArray(value) ? value : [value]))
      .flatMap((value) => {
        if (!isPlainObject(value) || typeof value.tool_name !== 'string') return [];
        return [{ name: value.tool_name, input: readInput(value.tool_input) }];
      });
    const cutOffObject =
      scan.unbalancedAt !== undefined && text.slice(scan.unbalancedAt).includes('tool_name');
    return { calls, truncated: scan.unclosedTagAt !== undefined || cutOffObject };
  } catch {
    return { calls: [], truncated: false };
  }
}

/** Missing input reads as `{}`; input sent as a JSON string (a common slip) is parsed. */
function readInput(input: unknown): unknown {
  if (input === undefined) return {};
  if (typeof input !== 'string') return input;
  const parsed = parseLenientJson(input);
  return parsed.ok && isPlainObject(parsed.value) ? parsed.value : input;
}

/** The user message that carries a tool's result back to the model (always valid JSON after the prefix). */
export function formatToolResult(toolName: string, output: string): string {
  return TOOL_RESULT_PREFIX + JSON.stringify({ tool_name: toolName, tool_output: output });
}

/** The tool list and call format, written once into the system prompt. */
export function renderToolList(tools: ToolSpec[], options: { multipleToolCalls?: boolean } = {}): string {
  const perReply = options.multipleToolCalls
    ? 'You may put several such blocks in one reply; they run in order.'
    : 'Use one tool per reply; only the first call in a reply is run.';
  const sections = tools.map(
    (tool) =>
      `### ${tool.name}\n\n${tool.description.trim()}\n\nInput schema:\n\`\`\`json\n${JSON.stringify(tool.inputSchema, null, 2)}\n\`\`\``,
  );
  return [
    '## Tools',
    'To use a tool, reply with a block of exactly this form (valid JSON inside the tags):',
    '<json>{"tool_name": "<tool name>", "tool_input": {<input matching the schema>}}</json>',
    `${perReply} The result comes back in the next user message as \`Tool result:\` followed by JSON. When you are finished, reply without a tool call.`,
    ...sections,
  ].join('\n\n');
}
