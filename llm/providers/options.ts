/** What every real provider needs; built by `providerSettings` from flags, the environment and `.env`. */
export interface ProviderOptions {
  /** Required by the hosted APIs; local servers get a placeholder. */
  apiKey: string;
  /** API root, e.g. `https://api.openai.com/v1`; the SDK's default when omitted. */
  baseUrl?: string;
  /** Per attempt, in ms (default 600 000). Retries are the layer's, never the SDK's. */
  timeoutMs?: number;
  /** Stream the reply (Anthropic defaults to streaming; the others to a single JSON body). */
  stream?: boolean;
  /** Injected fetch, for recording or tests. */
  fetch?: typeof fetch;
}

export const DEFAULT_TIMEOUT_MS = 600_000;

/** The environment variables each provider reads (key, base-URL override) and its name in messages. */
export const PROVIDER_ENV: Readonly<
  Record<'openai' | 'anthropic' | 'google' | 'local', { key?: string; baseUrl: string; label: string }>
> = {
  openai: { key: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL', label: 'OpenAI' },
  anthropic: { key: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL', label: 'Anthropic' },
  google: { key: 'GEMINI_API_KEY', baseUrl: 'GOOGLE_GEMINI_BASE_URL', label: 'Google Gemini' },
  local: { baseUrl: 'HYPERAGENTS_LOCAL_BASE_URL', label: 'local server' },
};

/** Where `local/*` models are served when no base URL is given: ollama's default. */
export const DEFAULT_LOCAL_BASE_URL = 'http://127.0.0.1:11434/v1';
