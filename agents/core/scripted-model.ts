import {
  type ModelCallOptions,
  type ModelError,
  type ModelFn,
  type ModelRequest,
  type ModelResult,
  type StopReason,
  zeroUsage,
} from './messages.ts';

/**
 * A deterministic model that replays a script, for tests and offline runs. A step is one of:
 * - reply text, or a reply with native tool calls, a stop reason and a cost;
 * - `{ error }`: the call fails with that typed error (as the gateway reports failures);
 * - `{ throws }`: the model function throws (a broken ModelFn; the loop must survive it);
 * - `{ hangs: true }`: the call never answers until its `signal` aborts, then fails with a timeout.
 * Past the end of the script it answers "done".
 */
export type ScriptedStep =
  | string
  | {
      content?: string;
      toolCalls?: { name: string; input: unknown }[];
      stopReason?: StopReason;
      costUsd?: number;
    }
  | { error: ModelError }
  | { throws: string }
  | { hangs: true };

/** `requests` holds a copy of every request in order; `aborted` counts calls whose signal fired. */
export type ScriptedModel = ModelFn & { requests: ModelRequest[]; aborted: number };

export function createScriptedModel(steps: ScriptedStep[]): ScriptedModel {
  const requests: ModelRequest[] = [];
  const state = { aborted: 0 };
  const model = async (req: ModelRequest, options?: ModelCallOptions): Promise<ModelResult> => {
    requests.push(structuredClone(req));
    const step = steps[requests.length - 1] ?? 'done';
    if (typeof step === 'object' && 'error' in step) return { ok: false, error: step.error };
    if (typeof step === 'object' && 'throws' in step) throw new Error(step.throws);
    if (typeof step === 'object' && 'hangs' in step) return hang(options?.signal, state);
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
  return Object.defineProperties(model, {
    requests: { value: requests, enumerable: true },
    aborted: { get: () => state.aborted, enumerable: true },
  }) as ScriptedModel;
}

function hang(signal: AbortSignal | undefined, state: { aborted: number }): Promise<ModelResult> {
  return new Promise((resolve) => {
    const abort = () => {
      state.aborted++;
      resolve({ ok: false, error: { type: 'timeout', message: 'aborted by the caller', retryable: true } });
    };
    if (signal?.aborted) abort();
    else signal?.addEventListener('abort', abort, { once: true });
  });
}
