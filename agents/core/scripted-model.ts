import { type ModelFn, type ModelRequest, type ModelResult, type StopReason, zeroUsage } from './messages.ts';

/**
 * A deterministic model that replays a script, for tests and offline runs. A step is reply text, a reply
 * with native tool calls / a stop reason, or an error. Past the end of the script it answers "done".
 */
export type ScriptedStep =
  | string
  | {
      content?: string;
      toolCalls?: { name: string; input: unknown }[];
      stopReason?: StopReason;
      costUsd?: number;
    }
  | { error: Extract<ModelResult, { ok: false }>['error'] };

export type ScriptedModel = ModelFn & { requests: ModelRequest[] };

export function createScriptedModel(steps: ScriptedStep[]): ScriptedModel {
  const requests: ModelRequest[] = [];
  const model = async (req: ModelRequest): Promise<ModelResult> => {
    requests.push(structuredClone(req));
    const step = steps[requests.length - 1] ?? 'done';
    if (typeof step === 'object' && 'error' in step) return { ok: false, error: step.error };
    const reply = typeof step === 'string' ? { content: step } : step;
    const toolCalls = reply.toolCalls?.map((call, i) => ({ id: `call_${requests.length}_${i}`, ...call }));
    const content = reply.content ?? '';
    return {
      ok: true,
      reply: {
        message: toolCalls ? { content, toolCalls } : { content },
        stopReason: reply.stopReason ?? (toolCalls?.length ? 'tool_use' : 'end'),
        usage: { ...zeroUsage(), input: 10, output: Math.ceil(content.length / 4) },
        costUsd: reply.costUsd ?? 0,
        model: 'scripted',
        latencyMs: 0,
      },
    };
  };
  return Object.assign(model, { requests });
}
