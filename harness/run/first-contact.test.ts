import { describe, expect, it } from 'vitest';
import type {
  CallContext,
  ChatRequest,
  ModelProvider,
  ProviderError,
  ProviderResult,
} from '../../llm/index.ts';
import { withRetries } from '../../llm/index.ts';
import { FIRST_CONTACT_ATTEMPTS, firstContact, type RetryNotice } from './first-contact.ts';

const req: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };
const ctx: CallContext = { runId: 'run-1', variantId: 0, role: 'task' };
const ok: ProviderResult = {
  ok: true,
  response: {
    message: { content: '4' },
    stopReason: 'end',
    usage: { input: 5, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  },
};
const refused: ProviderError = {
  type: 'unreachable',
  retryable: true,
  message: 'could not reach local server at http://127.0.0.1:9/v1 (ECONNREFUSED): Connection error.',
};

/** A provider that answers from a list of outcomes in turn (the last repeats), counting its calls. */
function scripted(outcomes: ProviderResult[]) {
  let calls = 0;
  const provider: ModelProvider = {
    complete: async () => outcomes[Math.min(calls++, outcomes.length - 1)]!,
  };
  return { provider, calls: () => calls };
}

/** The guard as a run wires it: around the provider's own retries, with waits that take no time. */
function guarded(outcomes: ProviderResult[]) {
  const upstream = scripted(outcomes);
  const notices: RetryNotice[] = [];
  const guard = firstContact('local/llama3', (n) => notices.push(n));
  const retried = withRetries(upstream.provider, {
    onRetry: guard.onRetry,
    sleep: async () => {},
    policy: { totalMs: 3_600_000 },
  });
  return { provider: guard.wrap(retried), guard, notices, calls: upstream.calls };
}

describe('firstContact', () => {
  it('gives up on a model that has never answered, then fails every later call at once', async () => {
    const { provider, guard, notices, calls } = guarded([{ ok: false, error: refused }]);
    const first = await provider.complete(req, ctx);
    expect(first.ok).toBe(false);
    if (first.ok) return;
    expect(first.error.type).toBe('unreachable');
    expect(first.error.message).toContain(refused.message);
    expect(first.error.message).toContain(`gave up after ${FIRST_CONTACT_ATTEMPTS} attempts`);
    expect(calls()).toBe(FIRST_CONTACT_ATTEMPTS);
    expect(notices.map((n) => n.attempt)).toEqual([1, 2, 3]);
    expect(notices[0]).toMatchObject({ model: 'local/llama3', reason: refused.message });
    expect(guard.failure()?.message).toBe(first.error.message);

    const later = await provider.complete(req, ctx);
    expect(later).toMatchObject({ ok: false, error: { message: first.error.message } });
    expect(calls()).toBe(FIRST_CONTACT_ATTEMPTS);
  });

  it('keeps retrying a model that has answered once, as its retry policy says', async () => {
    const down = Array.from({ length: 6 }, (): ProviderResult => ({ ok: false, error: refused }));
    const { provider, guard, calls } = guarded([ok, ...down, ok]);
    expect((await provider.complete(req, ctx)).ok).toBe(true);
    expect((await provider.complete(req, ctx)).ok).toBe(true);
    expect(calls()).toBe(8);
    expect(guard.failure()).toBeNull();
  });

  it('does not cut short failures other than an unreachable model', async () => {
    const overloaded: ProviderError = {
      type: 'provider_error',
      retryable: true,
      status: 529,
      message: 'overloaded',
    };
    const down = Array.from({ length: 5 }, (): ProviderResult => ({ ok: false, error: overloaded }));
    const { provider, guard, calls } = guarded([...down, ok]);
    expect((await provider.complete(req, ctx)).ok).toBe(true);
    expect(calls()).toBe(6);
    expect(guard.failure()).toBeNull();
  });
});
