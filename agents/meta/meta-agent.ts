import { parseArgs } from 'node:util';
import { type ChatOutcome, chatWithAgent, type ToolProtocol } from '../core/loop.ts';
import type { Message, ModelFn, ModelInfo } from '../core/messages.ts';
import { renderTemplate } from '../core/prompt.ts';
import { defaultSafetyPolicy } from '../core/safety.ts';
import type { Tool } from '../core/tool.ts';

export type MetaArgs = { repo: string; evals: string; iterationsLeft: number; check: boolean };
export type MetaArgsResult = { ok: true; args: MetaArgs } | { ok: false; message: string };

export const META_USAGE = 'usage: main.ts --repo <worktree> --evals <dir> --iterations-left <n> [--check]';

/** Parses the MetaAgent's command line. Pure; `--check` alone is valid. */
export function parseMetaArgs(argv: string[]): MetaArgsResult {
  let values: { repo?: string; evals?: string; 'iterations-left'?: string; check?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        repo: { type: 'string' },
        evals: { type: 'string' },
        'iterations-left': { type: 'string' },
        check: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { ok: false, message: `${error instanceof Error ? error.message : String(error)}\n${META_USAGE}` };
  }
  const check = values.check ?? false;
  const iterations = Number(values['iterations-left'] ?? (check ? '0' : Number.NaN));
  if (!check && (!values.repo || !values.evals))
    return { ok: false, message: `--repo and --evals are required\n${META_USAGE}` };
  if (!Number.isInteger(iterations) || iterations < 0) {
    return { ok: false, message: `--iterations-left must be a whole number >= 0\n${META_USAGE}` };
  }
  return {
    ok: true,
    args: { repo: values.repo ?? '', evals: values.evals ?? '', iterationsLeft: iterations, check },
  };
}

/** HYPERAGENTS_TOOL_PROTOCOL forces a protocol; otherwise the assigned model's capability decides. */
export function chooseProtocol(forced: string | undefined, models: ModelInfo[]): ToolProtocol {
  if (forced === 'native' || forced === 'text') return forced;
  return models[0]?.nativeTools ? 'native' : 'text';
}

export function buildMetaMessages(prompt: string, args: MetaArgs): { system: string; user: string } {
  const vars = { repo: args.repo, evals: args.evals, iterationsLeft: args.iterationsLeft };
  return {
    system: renderTemplate(prompt, vars),
    user: renderTemplate(
      'Improve the agents in {{repo}}. Start by reading {{repo}}/agents/AGENTS.md and the evaluation results in {{evals}}.',
      vars,
    ),
  };
}

export type MetaRunOptions = {
  args: MetaArgs;
  prompt: string;
  model: ModelFn;
  tools: Tool[];
  protocol: ToolProtocol;
  modelInfo?: ModelInfo;
  onMessage?: (message: Message) => void;
};

export function runMetaAgent(options: MetaRunOptions): Promise<ChatOutcome> {
  return chatWithAgent({
    model: options.model,
    ...buildMetaMessages(options.prompt, options.args),
    tools: options.tools,
    protocol: options.protocol,
    ...(options.modelInfo ? { modelInfo: options.modelInfo } : {}),
    beforeToolCall: defaultSafetyPolicy,
    root: options.args.repo,
    ...(options.onMessage ? { onMessage: options.onMessage } : {}),
  });
}
