import type { BatchApi } from '../batch-api.ts';
import type { ModelRecord } from '../model-record.ts';
import type { ModelProvider } from '../provider.ts';
import type { ProviderOptions } from './options.ts';

/** Limits of a model on a server of one's own that the defaults get wrong; see `resolveModel`. */
export interface LocalModelOptions {
  /** Tokens; default 32 768. Set it to the server's context size (ollama `num_ctx`, llama.cpp `-c`). */
  contextWindow?: number;
  /** Tokens; default 8192, or the context window when that is smaller. */
  maxOutput?: number;
  /** The server returns structured tool calls (default false: agents use the `<json>` text protocol). */
  nativeTools?: boolean;
  /** The server's OpenAI-compatible API root, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl?: string;
}

/** A provider that serves whatever model name it is given (a server of one's own), rather than a table. */
export interface AnyModel {
  /** The server, for messages and help: `an OpenAI-compatible server (ollama, llama.cpp, vLLM)`. */
  server: string;
  /** A model name to show in examples, e.g. `qwen2.5-coder:7b`. */
  example: string;
  /** Where to find the names its server knows, for the message on an empty name. */
  listHint: string;
  /** Prefixes people write for such a server (`ollama/`), each answered with this provider's own. */
  aliasPrefixes: readonly string[];
  /** The record of `<provider>/<name>` (`name` non-empty, trimmed). Throws RangeError on bad `opts`. */
  record(name: string, opts: LocalModelOptions): ModelRecord;
}

/**
 * Everything the harness knows of one provider, declared in its own file and registered once (see
 * `providers/built-in.ts`). The registry answers every question about providers from these: which model
 * an id names, which variables hold a key, which model a run uses without `--model`, how to make a client.
 */
export interface ProviderSpec {
  /** The prefix of its model ids (`openai` in `openai/gpt-4o`) and each record's `provider`. */
  name: string;
  /** How messages name it: `OpenAI`, `local server`. */
  label: string;
  /**
   * The variables that may hold its key, in the order they are read; the first is the one messages name.
   * Empty for a server that takes no key (it gets a placeholder).
   */
  keyVariables: readonly string[];
  /** The variable that moves its API root (e.g. to a proxy or a test server). */
  baseUrlVariable: string;
  /** Its API root when neither `--base-url` nor the variable sets one; omitted: the SDK's own default. */
  defaultBaseUrl?: string;
  /**
   * The model a run uses without `--model` when one of its key variables is set. Providers are tried by
   * `rank`, lowest first (ties in registration order); without this the provider is never the default.
   */
  defaultModel?: { id: string; rank: number };
  /** Its models as plain data; every id starts with `<name>/`, every `provider` is `name`. */
  models: readonly ModelRecord[];
  /** For a provider that serves any model name: how its records are made. */
  anyModel?: AnyModel;
  /**
   * Its client for `model`, one attempt per call, never throwing (see `ModelProvider`). Every command loads
   * the registry, so the client's SDK must be loaded here, with `import()`, never at the top of this file.
   */
  client(model: ModelRecord, opts: ProviderOptions, spec: ProviderIdentity): Promise<ModelProvider>;
  /**
   * Its batch endpoint for `model` (half price, answered within hours), loaded lazily like `client`;
   * omitted: the provider has none, and `--batch` with its models is refused with a message.
   */
  batch?(model: ModelRecord, opts: ProviderOptions, spec: ProviderIdentity): Promise<BatchApi>;
  /**
   * The share of each model's listed price that its batch endpoint takes off (0.5: batch calls cost half);
   * with `batch` only. `batchCostUsd` (registry.ts) prices a batch call from it.
   */
  batchDiscount?: number;
}

/** What a client's messages name of its provider (its label, key variable, API root): its spec, passed in. */
export type ProviderIdentity = Pick<ProviderSpec, 'name' | 'label' | 'keyVariables' | 'defaultBaseUrl'>;
