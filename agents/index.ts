export {
  CHARS_PER_TOKEN,
  type ContextBudget,
  contextBudgetChars,
  DEFAULT_ANSWER_TOKENS,
  fitContext,
  type TrimmedContext,
  totalChars,
  trimContext,
} from './core/context.ts';
export {
  createGatewayModel,
  type GatewayConfig,
  gatewayFromEnv,
  listModels,
  type ModelList,
} from './core/gateway-client.ts';
export { extractJsons, parseLenientJson } from './core/json-extract.ts';
export { DEFAULT_MAX_TOOL_CALLS, DEFAULT_MAX_TURNS } from './core/limits.ts';
export {
  type ChatOptions,
  type ChatOutcome,
  type ChatStatus,
  CUT_OFF_MESSAGE,
  chatWithAgent,
  type ToolProtocol,
} from './core/loop.ts';
export {
  type Message,
  type ModelCallOptions,
  type ModelError,
  type ModelErrorType,
  type ModelFn,
  type ModelInfo,
  type ModelReply,
  type ModelRequest,
  type ModelResult,
  modelErrorTypeSchema,
  type ReasoningEffort,
  type StopReason,
  type ToolCall,
  type ToolSpec,
  type Usage,
} from './core/messages.ts';
export { isInside, isStrictlyInside } from './core/paths.ts';
export { renderTemplate } from './core/prompt.ts';
export {
  type BeforeToolCall,
  createSafetyPolicy,
  type DenyPattern,
  defaultSafetyPolicy,
  type SafetyContext,
  type SafetyDecision,
  type SafetyPolicyOptions,
  type ToolCallRequest,
} from './core/safety.ts';
export { createScriptedModel, type ScriptedModel, type ScriptedStep } from './core/scripted-model.ts';
export {
  isTool,
  loadTools,
  type Tool,
  type ToolContext,
  type ToolFactory,
  toToolSpec,
  validateToolInput,
} from './core/tool.ts';
export {
  formatToolResult,
  type ParsedToolCall,
  type ParsedToolCalls,
  parseToolCalls,
  renderToolList,
} from './core/tool-protocol.ts';
export { buildTaskMessages, runTask, type TaskRequest } from './task/task-agent.ts';
export { type BashTool, type BashToolOptions, createBashTool } from './tools/bash.ts';
export { createEditorTool, type EditorTool, type EditorToolOptions } from './tools/editor.ts';
