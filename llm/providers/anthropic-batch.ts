import type {
  BatchCreateParams,
  MessageBatch,
  MessageBatchIndividualResponse,
} from '@anthropic-ai/sdk/resources/messages/batches';
import type { BatchApi, BatchOutcome, BatchResult, BatchStatus } from '../batch-api.ts';
import type { ErrorSource } from '../errors.ts';
import type { ModelRecord } from '../model-record.ts';
import { classify, connectAnthropic, messageResult, reportedError } from './anthropic.ts';
import { messagesBody } from './anthropic-request.ts';
import { badRequest, batchTooLarge } from './batch-size.ts';
import { isRecord } from './json.ts';
import type { ProviderOptions } from './options.ts';
import type { ProviderIdentity } from './provider-spec.ts';

/** Anthropic's limits on one message batch: 100,000 requests, 256 MB. */
export const ANTHROPIC_BATCH_LIMITS = { maxRequests: 100_000, maxBytes: 256 * 1024 * 1024 } as const;

/**
 * Anthropic's Message Batches: `{custom_id, params}` per request, each `params` exactly the body
 * `createAnthropicProvider` sends (without streaming); results read from the batch's `results_url` and
 * parsed as the ordinary client parses a reply. Never throws.
 */
export function createAnthropicBatch(
  model: ModelRecord,
  opts: ProviderOptions,
  spec: ProviderIdentity,
): BatchApi {
  const { client, source } = connectAnthropic(opts, spec);
  const attempt = async <T>(
    signal: AbortSignal | undefined,
    run: () => Promise<T>,
  ): Promise<BatchResult<T>> => {
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      return { ok: false, error: classify(error, source, signal) };
    }
  };

  return {
    limits: ANTHROPIC_BATCH_LIMITS,
    async submit(requests, signal) {
      const built: BatchCreateParams.Request[] = [];
      for (const r of requests) {
        const body = messagesBody(model, r.request);
        if (!body.ok) return { ok: false, error: badRequest(`request ${r.customId}: ${body.message}`) };
        // The builder never sets `stream` (the ordinary client adds it per call), so this is non-streaming.
        built.push({ custom_id: r.customId, params: body.body as BatchCreateParams.Request['params'] });
      }
      const size = { count: built.length, bytes: Buffer.byteLength(JSON.stringify({ requests: built })) };
      const refused = batchTooLarge(source.label, ANTHROPIC_BATCH_LIMITS, size, 'its body');
      if (refused) return { ok: false, error: refused };
      return attempt(signal, async () => {
        const batch = await client.messages.batches.create({ requests: built }, { signal });
        return { batchId: batch.id };
      });
    },
    poll: (batchId, signal) =>
      attempt(signal, async () => statusOf(await client.messages.batches.retrieve(batchId, {}, { signal }))),
    async collect(batchId, signal) {
      const batch = await attempt(signal, () => client.messages.batches.retrieve(batchId, {}, { signal }));
      if (!batch.ok) return batch;
      if (batch.value.processing_status !== 'ended' || !batch.value.results_url)
        return {
          ok: false,
          error: {
            ...badRequest(
              `${source.label}'s batch ${batchId} is still ${batch.value.processing_status}: collect it once a poll says it has ended.`,
            ),
            retryable: true,
          },
        };
      return attempt(signal, async () => {
        const outcomes: BatchOutcome[] = [];
        for await (const line of await client.messages.batches.results(batchId, {}, { signal }))
          outcomes.push(outcomeOf(line, source));
        return outcomes;
      });
    },
    cancel: (batchId, signal) =>
      attempt(signal, async () => {
        await client.messages.batches.cancel(batchId, {}, { signal });
      }),
  };
}

/** `in_progress` and `canceling` are pending, `ended` has ended; `request_counts` gives done and failed. */
export function statusOf(batch: Pick<MessageBatch, 'processing_status' | 'request_counts'>): BatchStatus {
  const c = batch.request_counts;
  const failed = c.errored + c.canceled + c.expired;
  return {
    state: batch.processing_status === 'ended' ? 'ended' : 'pending',
    providerState: batch.processing_status,
    done: c.succeeded,
    failed,
    total: c.processing + c.succeeded + failed,
  };
}

/** One line of the results: `succeeded` with its message, or `errored`, `canceled`, `expired`. */
function outcomeOf(line: MessageBatchIndividualResponse, source: ErrorSource): BatchOutcome {
  const customId = line.custom_id;
  const result = line.result;
  switch (result.type) {
    case 'succeeded': {
      const parsed = messageResult(result.message, []);
      return parsed.ok
        ? { customId, ok: true, response: parsed.response }
        : { customId, ok: false, reason: 'errored', error: parsed.error };
    }
    case 'errored': {
      const inner: Record<string, unknown> =
        isRecord(result.error) && isRecord(result.error.error) ? result.error.error : {};
      const type = typeof inner.type === 'string' ? inner.type : 'api_error';
      const detail = typeof inner.message === 'string' ? inner.message : 'no message';
      return { customId, ok: false, reason: 'errored', error: reportedError(type, detail, source) };
    }
    case 'canceled':
      return unanswered(customId, 'canceled', `${source.label} did not run it: the batch was cancelled.`);
    case 'expired':
      return unanswered(customId, 'expired', `${source.label} did not run it within the batch's 24 hours.`);
  }
}

function unanswered(customId: string, reason: 'expired' | 'canceled', message: string): BatchOutcome {
  const type = reason === 'expired' ? 'timeout' : 'provider_error';
  return { customId, ok: false, reason, error: { type, retryable: true, message } };
}
