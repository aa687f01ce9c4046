import { isPlainObject, type JsonCandidate, parseLenientJson, scanJson } from './json-extract.ts';
import type { ToolSpec } from './messages.ts';

/**
 * The text tool-call protocol: the model writes
 * `<json>{"tool_name": "bash", "tool_input": {"command": "ls"}}</json>`
 * and gets each result back as a user message `Tool result:\n{"tool_name": ..., "tool_output": ...}`.
 *
 * What counts as a call, besides that exact shape (models trained on other formats slip into them):
 * - `tool_name` with its input under `tool_input`, `arguments`, `parameters` or `input`; with none of
 *   these, the other keys are the input (`{"tool_name": "bash", "command": "ls"}`);
 * - `name` with `arguments` or `parameters` (the OpenAI, Hermes/Qwen and Llama shape), and `tool` with
 *   `input`, `tool_input`, `arguments` or `parameters`, when the object has no other keys than `id` and
 *   `type` (so a tool schema or a final answer that has a `name` field is not a call);
 * - an input sent as a JSON string is parsed; an array of calls is several calls;
 * - an object with `tool_output` is an echoed tool result, never a call;
 * - the `<think>...</think>` reasoning a local reasoning model writes at the start of its reply is not
 *   read: the drafts in it are not calls.
 */

export type ParsedToolCall = { name: string; input: unknown };
export type ParsedToolCalls = { calls: ParsedToolCall[]; truncated: boolean };

export const TOOL_RESULT_PREFIX = 'Tool result:\n';

const INPUT_KEYS = ['tool_input', 'arguments', 'parameters', 'input'];
const VARIANTS: { name: string; inputs: string[] }[] = [
  { name: 'name', inputs: ['arguments', 'parameters'] },
  { name: 'tool', inputs: ['input', 'tool_input', 'arguments', 'parameters'] },
];

/**
 * Every tool call in `text`, in order. `<json>` blocks win: only a reply without any (readable) `<json>`
 * block has its calls taken from ```json fences and bare objects, in order of appearance; in a reply
 * that uses the tags, those are examples or quotes.
 * Blocks that are not calls are skipped. `truncated` is true when a `<json>` block was opened and never
 * closed, or an object that began a call is cut off by the end of the text; the complete calls before
 * it are still returned. Never throws.
 */
export function parseToolCalls(text: string): ParsedToolCalls {
  try {
    const scan = scanJson(blankReasoning(text));
    const callsIn = (candidates: JsonCandidate[]) =>
      candidates.flatMap((c) => c.values).flatMap((value) => (Array.isArray(value) ? value : [value]));
    const tagged = scan.candidates.filter((c) => c.source === 'tag');
    const others = scan.candidates.filter((c) => c.source !== 'tag').sort((a, b) => a.start - b.start);
    const calls = callsIn(tagged.length > 0 ? tagged : others).flatMap(toCall);
    const truncated = scan.unclosedTagAt !== undefined || scan.cutOff.some((o) => beginsCall(o.keys));
    return { calls, truncated };
  } catch {
    return { calls: [], truncated: false };
  }
}

/**
 * The text with its leading `<think>...</think>` span (to the end if never closed) replaced by spaces, so
 * offsets stay the same. Only a reply that starts with `<think>` has one: reasoning models put it
 * first, and a `<think>` anywhere else (say, in a file being edited) is just text.
 */
function blankReasoning(text: string): string {
  const open = text.length - text.trimStart().length;
  if (!text.startsWith('<think>', open)) return text;
  const close = text.indexOf('</think>', open);
  const end = close === -1 ? text.length : close + '</think>'.length;
  return text.slice(0, open) + ' '.repeat(end - open) + text.slice(end);
}

function toCall(value: unknown): ParsedToolCall[] {
  if (!isPlainObject(value) || 'tool_output' in value) return [];
  const keys = Object.keys(value);
  if (typeof value.tool_name === 'string' && value.tool_name.trim() !== '') {
    const inputKey = INPUT_KEYS.find((key) => key in value);
    const rest = Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'tool_name'));
    return [{ name: value.tool_name.trim(), input: inputKey ? readInput(value[inputKey]) : rest }];
  }
  for (const variant of VARIANTS) {
    const name = value[variant.name];
    const inputKey = variant.inputs.find((key) => key in value);
    const allowed = [variant.name, ...variant.inputs, 'id', 'type'];
    if (typeof name !== 'string' || name.trim() === '' || !inputKey) continue;
    if (keys.every((key) => allowed.includes(key)))
      return [{ name: name.trim(), input: readInput(value[inputKey]) }];
  }
  return [];
}

/** Whether the keys of a cut-off object show it was a tool call. */
function beginsCall(keys: string[]): boolean {
  if (keys.includes('tool_name') || keys.includes('tool_input')) return true;
  return VARIANTS.some((v) => keys.includes(v.name) && v.inputs.some((key) => keys.includes(key)));
}

/** Missing input reads as `{}`; input sent as a JSON string (a common slip) is parsed. */
function readInput(input: unknown): unknown {
  if (input === undefined || input === null) return {};
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
