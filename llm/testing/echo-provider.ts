import { classifyStatus, classifyThrown, type ErrorSource } from '../errors.ts';
import type { ModelRecord } from '../model-record.ts';
import type { ModelProvider, ProviderResult } from '../provider.ts';
import type { ProviderOptions } from '../providers/options.ts';
import type { ProviderSpec } from '../providers/provider-spec.ts';
import { wireModelName } from '../registry.ts';

/**
 * A provider for tests, in one file as every provider is: `echo/parrot-1`, spoken to in a wire of its own
 * (`POST <base>/echo` with `{model, prompt}` and a bearer key; the answer `{text, model, tokens}`). It is
 * registered by the test that uses it (`registerProvider(echo)`), never by the harness.
 */
export const echo: ProviderSpec = {
  name: 'echo',
  label: 'Echo',
  keyVariables: ['ECHO_API_KEY'],
  baseUrlVariable: 'ECHO_BASE_URL',
  // Ranked before every built-in provider, so a test can see it chosen while their keys are set too.
  defaultModel: { id: 'echo/parrot-1', rank: 0 },
  models: [
    {
      id: 'echo/parrot-1',
      provider: 'echo',
      api: 'echo-wire',
      contextWindow: 8192,
      maxOutput: 1024,
      price: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 1 },
      nativeTools: false,
      temperature: false,
      reasoning: false,
      simulated: false,
      maxTokensField: 'max_tokens',
      systemRole: 'system',
      caching: 'none',
      apiName: 'parrot-1-2026',
    },
  ],
  client: async (model, opts) => echoClient(model, opts),
};

function echoClient(model: ModelRecord, opts: ProviderOptions): ModelProvider {
  const baseUrl = opts.baseUrl ?? 'http://127.0.0.1:9';
  const source: ErrorSource = { label: echo.label, baseUrl, keyVariable: 'ECHO_API_KEY' };
  const doFetch = opts.fetch ?? globalThis.fetch;
  return {
    async complete(req, _ctx, signal): Promise<ProviderResult> {
      const prompt = req.messages.at(-1)?.content ?? '';
      try {
        const response = await doFetch(`${baseUrl}/echo`, {
          method: 'POST',
          headers: { authorization: `Bearer ${opts.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: wireModelName(model), prompt }),
          ...(signal ? { signal } : {}),
        });
        const text = await response.text();
        if (!response.ok) return { ok: false, error: classifyStatus(response.status, text, source) };
        const body = JSON.parse(text) as { text: string; model: string; tokens: number };
        const usage = { input: body.tokens, output: body.tokens, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
        return {
          ok: true,
          response: { message: { content: body.text }, stopReason: 'end', usage, reportedModel: body.model },
        };
      } catch (error) {
        return { ok: false, error: classifyThrown(error, source, signal) };
      }
    },
  };
}
