import type { BeforeToolCall, SafetyDecision, ToolCallRequest } from './safety.ts';
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
 * a denied call or an exception becomes an error text that says what to do next. The safety policy sees
 * the validated input, and a denied call is not run.
 */
export async function runToolCall(call: ToolCallRequest, options: ToolRunOptions): Promise<string> {
  const tool = options.tools.find((t) => t.name === call.name);
  if (!tool) {
    const names = options.tools.map((t) => t.name).join(', ') || '(none)';
    return `Error: there is no tool named "${call.name}". Available tools: ${names}. Call one of them by its exact name.`;
  }
  const parsed = validateToolInput(tool, call.input);
  if (!parsed.ok) {
    const problems = parsed.problems.map((p) => `- ${p}`);
    return [
      `Error: invalid input for tool "${tool.name}":`,
      ...problems,
      "Fix these fields to match the tool's input schema and call it again.",
    ].join('\n');
  }
  const decision = checkSafety(
    options.beforeToolCall,
    { name: tool.name, input: parsed.value },
    options.root,
  );
  if (!decision.allow) {
    return `Error: this ${tool.name} call was not run: the safety policy denies it (${decision.reason}). Do not repeat it; find another way to reach your goal.`;
  }
  try {
    return truncateMiddle(await tool.run(parsed.value), options.maxOutputChars);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `Error: tool "${tool.name}" failed: ${message}\nCheck the input and try again, or try a different approach.`;
  }
}

/** A policy that throws denies the call (fail closed) and says so. */
function checkSafety(policy: BeforeToolCall, call: ToolCallRequest, root: string): SafetyDecision {
  try {
    return policy(call, { root });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { allow: false, reason: `the safety policy itself failed (${message}), so the call is denied` };
  }
}
