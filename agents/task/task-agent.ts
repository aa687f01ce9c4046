import { z } from 'zod';
import { chatWithAgent } from '../core/loop.ts';
import type { ModelFn, ModelInfo } from '../core/messages.ts';
import { renderTemplate } from '../core/prompt.ts';

/** One request line of the TaskAgent's JSON-lines protocol (stdin). */
export const taskRequestSchema = z.object({
  id: z.string(),
  domain: z.string(),
  input: z.unknown(),
  formatHint: z.string().optional(),
});
export type TaskRequest = z.infer<typeof taskRequestSchema>;

/** One response line (stdout): exactly one per request. */
export type TaskResponse = { id: string; output: string; error?: string };

export type TaskAgentConfig = {
  model: ModelFn;
  /** The system prompt template (agents/task/prompt.md); may use {{domain}}. */
  prompt: string;
  modelInfo?: Partial<ModelInfo>;
};

export function buildTaskMessages(prompt: string, request: TaskRequest): { system: string; user: string } {
  const input = JSON.stringify(request.input ?? null, null, 2);
  const hint = request.formatHint ? `\n\n${request.formatHint}` : '';
  return {
    system: renderTemplate(prompt, { domain: request.domain }),
    user: `Domain: ${request.domain}\n\nTask input:\n\`\`\`json\n${input}\n\`\`\`${hint}`,
  };
}

export async function runTask(request: TaskRequest, config: TaskAgentConfig): Promise<TaskResponse> {
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
