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
