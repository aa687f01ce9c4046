import type { BeforeToolCall, ToolCallRequest } from './safety.ts';
import { type Tool, validateToolInput } from './tool.ts';
import { truncateMiddle } from './truncate.ts';

export type ToolRunOptions = {
  tools: Tool[];
  beforeToolCall: BeforeToolCall;
  root: string;
  maxOutputChars: number;
};

/**
 * Runs one tool call and returns the text for the model. Never throws: an unknown tool, invalid input,
 * a denied call or an exception becomes an error text that says what to do next.
 */
export async function runToolCall(call: ToolCallRequest, options: ToolRunOptions): Promise<string> {
  const tool = options.tools.find((t) => t.name === call.name);
  if (!tool) {
    const names = options.tools.map((t) => t.name).join(', ') || '(none)';
    return `Error: there is no tool named "${call.name}". Available tools: ${names}. Call one of them by its exact name.`;
  }
  const checked = validateToolInput(tool, call.input);
  if (!checked.ok) {
    const problems = checked.problems.map((p) => `- ${p}`).join('\n');
    return `Error: invalid input for tool "${tool.name}":\n${problems}\nFix these fields to match the tool's input schema and call it again.`;
  }
  const decision = options.beforeToolCall({ name: tool.name, input: checked.value }, { root: options.root });
  if (!decision.allow) {
    return `Error: this ${tool.name} call was blocked by the safety policy: ${decision.reason}. Do not repeat it; find another way that stays inside ${options.root} and needs no network.`;
  }
  try {
    return truncateMiddle(await tool.run(checked.value), options.maxOutputChars);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `Error: tool "${tool.name}" failed: ${message}\nCheck the input and try again, or try a different approach.`;
  }
}
