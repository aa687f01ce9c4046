import { realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { chatWithAgent, type ToolProtocol } from '../core/loop.ts';
import type { ModelFn, ModelInfo } from '../core/messages.ts';
import { renderTemplate } from '../core/prompt.ts';
import type { Tool } from '../core/tool.ts';
import { workspacePolicy } from './workspace-policy.ts';

/** The folder a workspace task is worked on in: the TaskAgent's own writable copy of the starting files. */
export const workspaceSchema = z.object({
  path: z.string().min(1),
  files: z.array(z.string()),
  language: z.string().optional(),
  testCommand: z.string().optional(),
});
export type Workspace = z.infer<typeof workspaceSchema>;

/**
 * What the task runs under, as the harness sends it with every task (its TaskSettings: limits, time,
 * sandbox... every setting that changes a task's result). This agent reads the caps on tool calls and model
 * calls; the rest is kept for code that wants it.
 */
export const settingsSchema = z.looseObject({
  maxToolCalls: z.number().int().positive(),
  maxTurns: z.number().int().positive().optional(),
});
export type TaskSettings = z.infer<typeof settingsSchema>;

export type WorkspaceRequest = {
  id: string;
  domain: string;
  input: unknown;
  formatHint?: string;
  workspace: Workspace;
  settings?: TaskSettings;
};

export type WorkspaceRunOptions = {
  model: ModelFn;
  /** The system prompt template (agents/task/workspace-prompt.md). */
  prompt: string;
  /** The user message, as for a JSON task (domain, input, format hint). */
  user: string;
  /** The tools of one task, confined to `root` (a fresh bash per task); closed when the task ends. */
  tools: (root: string) => Promise<Tool[]>;
  protocol: ToolProtocol;
  modelInfo?: Partial<ModelInfo>;
};

export type WorkspaceOutcome = { ok: true; output: string } | { ok: false; error: string };

/**
 * Renders the workspace prompt: `{{domain}}`, `{{workspace}}` (the folder), `{{language}}`, `{{files}}`
 * (one `- path` line each) and `{{tests}}` (how to run the visible tests, or that none are given).
 */
export function renderWorkspacePrompt(prompt: string, request: WorkspaceRequest): string {
  const { workspace } = request;
  const files = workspace.files.length > 0 ? workspace.files.map((f) => `- ${f}`).join('\n') : '- (none)';
  const tests = workspace.testCommand
    ? `Run the tests with this command in the workspace: \`${workspace.testCommand}\``
    : 'No test command is given; check your work by reading it, or by running it if you can.';
  return renderTemplate(prompt, {
    domain: request.domain,
    workspace: workspace.path,
    language: workspace.language ?? 'the language of the files',
    files,
    tests,
  });
}

/** Why the workspace folder cannot be worked in, or undefined when it can (an existing absolute folder). */
async function workspaceProblem(path: string): Promise<string | undefined> {
  if (!isAbsolute(path)) return `workspace.path must be an absolute path, got ${path}`;
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) return `workspace.path ${path} is not an existing folder`;
  return undefined;
}

/**
 * Works on a workspace task: the agent loop with the tools confined to the folder (bash starts there,
 * the editor and the safety policy refuse paths outside it), at most `settings.maxToolCalls` tool calls
 * (without settings, the agent loop's default).
 * The files as left are the answer; the output is the last reply. Never throws for model or tool failures.
 */
export async function runWorkspaceTask(
  request: WorkspaceRequest,
  options: WorkspaceRunOptions,
): Promise<WorkspaceOutcome> {
  const problem = await workspaceProblem(request.workspace.path);
  if (problem) return { ok: false, error: problem };
  const root = await realpath(request.workspace.path);
  const tools = await options.tools(root);
  try {
    const outcome = await chatWithAgent({
      model: options.model,
      system: renderWorkspacePrompt(options.prompt, request),
      user: options.user,
      tools,
      protocol: options.protocol,
      ...(options.modelInfo ? { modelInfo: options.modelInfo } : {}),
      ...(request.settings === undefined ? {} : { maxToolCalls: request.settings.maxToolCalls }),
      ...(request.settings?.maxTurns === undefined ? {} : { maxTurns: request.settings.maxTurns }),
      beforeToolCall: workspacePolicy(),
      root,
    });
    if (outcome.status === 'error') {
      const message = outcome.error ? `${outcome.error.type}: ${outcome.error.message}` : 'model call failed';
      return { ok: false, error: message };
    }
    return { ok: true, output: outcome.finalText };
  } finally {
    await Promise.all(tools.map((t) => t.close?.().catch(() => undefined)));
  }
}
