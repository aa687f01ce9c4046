import type { ModelRecord } from '../model-record.ts';
import type { LocalModelOptions, ProviderSpec } from './provider-spec.ts';

export const LOCAL_DEFAULT_CONTEXT_WINDOW = 32_768;
export const LOCAL_DEFAULT_MAX_OUTPUT = 8192;

/**
 * The record of a model on an OpenAI-compatible server: free, with the `<json>` text protocol for tools
 * unless `opts` says the server returns structured tool calls. Throws RangeError on a limit that is not a
 * positive whole number (a programmer's or the configuration's error, caught by the flag parsers first).
 */
function localRecord(name: string, opts: LocalModelOptions): ModelRecord {
  const id = `local/${name}`;
  for (const key of ['contextWindow', 'maxOutput'] as const) {
    const value = opts[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      throw new RangeError(`${key} for ${id} must be a positive whole number of tokens, got ${value}`);
  }
  const contextWindow = opts.contextWindow ?? LOCAL_DEFAULT_CONTEXT_WINDOW;
  return {
    id,
    provider: 'local',
    api: 'openai-chat',
    contextWindow,
    maxOutput: opts.maxOutput ?? Math.min(LOCAL_DEFAULT_MAX_OUTPUT, contextWindow),
    price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    nativeTools: opts.nativeTools ?? false,
    temperature: true,
    reasoning: false,
    simulated: false,
    maxTokensField: 'max_tokens',
    systemRole: 'system',
    caching: 'none',
    ...(opts.baseUrl === undefined ? {} : { baseUrl: opts.baseUrl }),
  };
}

/**
 * Any model on an OpenAI-compatible server of one's own (ollama, llama.cpp `llama-server`, vLLM), through
 * the OpenAI client: `local/<name>`, at `--base-url`, the variable, or ollama's default address.
 */
export const local: ProviderSpec = {
  name: 'local',
  label: 'local server',
  keyVariables: [],
  baseUrlVariable: 'HYPERAGENTS_LOCAL_BASE_URL',
  defaultBaseUrl: 'http://127.0.0.1:11434/v1',
  models: [],
  anyModel: {
    server: 'an OpenAI-compatible server (ollama, llama.cpp, vLLM)',
    example: 'qwen2.5-coder:7b',
    listHint: 'ollama list shows the names on an ollama server',
    aliasPrefixes: ['ollama/', 'llamacpp/', 'llama.cpp/', 'llama-server/', 'vllm/', 'lmstudio/'],
    record: localRecord,
  },
  client: async (model, opts, spec) => (await import('./openai.ts')).createOpenAIProvider(model, opts, spec),
};
