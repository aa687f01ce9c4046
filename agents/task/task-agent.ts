import { z } from 'zod';
import { chatWithAgent, type ToolProtocol } from '../core/loop.ts';
import type { ModelFn, ModelInfo } from '../core/messages.ts';
import { renderTemplate } from '../core/prompt.ts';
import type { Tool } from '../core/tool.ts';
import { runWorkspaceTask, settingsSchema, workspaceSchema } from './workspace-task.ts';

/**
 * One request line of the TaskAgent's JSON-lines protocol (stdin). With `workspace`, the task is worked
 * on in that folder with tools and the folder is the answer; without it, the answer is JSON in the reply.
 */
export const taskRequestSchema = z.object({
  id: z.string(),
  domain: z.string(),
  input: z.unknown(),
  formatHint: z.string().optional(),
  workspace: workspaceSchema.optional(),
  settings: settingsSchema.optional(),
});
export type TaskRequest = z.infer<typeof taskRequestSchema>;

/** One response line (stdout): exactly one per request. */
export type TaskResponse = { id: string; output: string; error?: string };

export type TaskAgentConfig = {
  model: ModelFn;
  /** The model for one task's calls, naming the task to the gateway (so its cost is counted); default `model`. */
  modelFor?: (task: { id: string; domain: string }) => ModelFn;
  /** The system prompt template (agents/task/prompt.md); may use {{domain}}. */
  prompt: string;
  modelInfo?: Partial<ModelInfo>;
  /** The system prompt template of workspace tasks (agents/task/workspace-prompt.md). */
  workspacePrompt?: string;
  /** The tools of one workspace task, confined to `root`. */
  tools?: (root: string) => Promise<Tool[]>;
  /** The tool protocol of workspace tasks (asked once, when the first one comes); default from modelInfo. */
  protocol?: ToolProtocol | (() => Promise<ToolProtocol>);
};

export function buildTaskMessages(prompt: string, request: TaskRequest): { system: string; user: string } {
  return { system: renderTemplate(prompt, { domain: request.domain }), user: buildTaskUser(request) };
}

/** The user message of a task, JSON or workspace: the domain, the input as JSON, the format hint. */
export function buildTaskUser(request: Pick<TaskRequest, 'domain' | 'input' | 'formatHint'>): string {
  const input = JSON.stringify(request.input ?? null, null, 2);
  const hint = request.formatHint ? `\n\n${request.formatHint}` : '';
  return `Domain: ${request.domain}\n\nTask input:\n\`\`\`json\n${input}\n\`\`\`${hint}`;
}

export async function runTask(request: TaskRequest, given: TaskAgentConfig): Promise<TaskResponse> {
  const config = given.modelFor
    ? { ...given, model: given.modelFor({ id: request.id, domain: request.domain }) }
    : given;
  if (request.workspace) {
    const { workspace } = request;
    if (!config.workspacePrompt || !config.tools) {
      return { id: request.id, output: '', error: 'this TaskAgent is not set up for workspace tasks' };
    }
    const protocol =
      typeof config.protocol === 'function'
        ? await config.protocol()
        : (config.protocol ?? (config.modelInfo?.nativeTools ? 'native' : 'text'));
    const outcome = await runWorkspaceTask(
      { ...request, workspace },
      {
        model: config.model,
        prompt: config.workspacePrompt,
        user: buildTaskUser(request),
        tools: config.tools,
        protocol,
        ...(config.modelInfo ? { modelInfo: config.modelInfo } : {}),
      },
    );
    return outcome.ok
      ? { id: request.id, output: outcome.output }
      : { id: request.id, output: '', error: outcome.error };
  }
  const outcome = await chatWithAgent({
    model: config.model,
    ...buildTaskMessages(config.prompt, request),
    ...(config.modelInfo ? { modelInfo: config.modelInfo } : {}),
  });
  if (outcome.status === 'error') {
    const message = outcome.error ? `${outcome.error.type}: ${outcome.error.message}` : 'model call failed';
    return { id: request.id, output: '', error: message };
  }
  return { id: request.id, output: outcome.finalText };
}

/** HYPERAGENTS_TOOL_PROTOCOL forces a protocol; otherwise the assigned model's capability decides. */
export function chooseProtocol(forced: string | undefined, models: ModelInfo[]): ToolProtocol {
  if (forced === 'native' || forced === 'text') return forced;
  return models[0]?.nativeTools ? 'native' : 'text';
}

/** Handles one stdin line. Never throws: a malformed line gets an error response (id recovered if possible). */
export async function handleRequestLine(line: string, config: TaskAgentConfig): Promise<TaskResponse> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return { id: recoverId(line), output: '', error: 'malformed request: not valid JSON' };
  }
  const parsed = taskRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`)
      .join('; ');
    return { id: recoverId(raw), output: '', error: `malformed request: ${problems}` };
  }
  try {
    return await runTask(parsed.data, config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { id: parsed.data.id, output: '', error: `task agent failed: ${message}` };
  }
}

function recoverId(raw: unknown): string {
  if (typeof raw === 'object' && raw !== null && 'id' in raw) {
    const id = (raw as { id: unknown }).id;
    if (typeof id === 'string') return id;
    if (typeof id === 'number') return String(id);
  }
  if (typeof raw === 'string') return /"id"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(raw)?.[1] ?? '';
  return '';
}
