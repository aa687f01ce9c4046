import type { BatchJob, GenerateContentResponse, InlinedRequest, InlinedResponse } from '@google/genai';
import type { BatchApi, BatchOutcome, BatchResult, BatchStatus } from '../batch-api.ts';
import { classifyStatus, type ErrorSource } from '../errors.ts';
import { type ModelRecord, wireModelName } from '../model-record.ts';
import { badRequest, batchTooLarge } from './batch-size.ts';
import { classifyGoogleError, connectGoogle, responseResult } from './google.ts';
import { geminiRequestFor } from './google-request.ts';
import { isRecord } from './json.ts';
import type { ProviderOptions } from './options.ts';
import type { ProviderIdentity } from './provider-spec.ts';

/**
 * Gemini's limits on a batch of inlined requests: 20 MB, as the Batch API guide documents. The API sets no
 * count of its own; 10,000 keeps one answer (every reply inlined in it) a size a poll can read.
 */
export const GEMINI_BATCH_LIMITS = { maxRequests: 10_000, maxBytes: 20 * 1024 * 1024 } as const;

const ENDED = new Set([
  'JOB_STATE_SUCCEEDED',
  'JOB_STATE_PARTIALLY_SUCCEEDED',
  'JOB_STATE_FAILED',
  'JOB_STATE_CANCELLED',
  'JOB_STATE_EXPIRED',
]);

/** What the SDK's `BatchJob` leaves out of the API's answer: the counts, and why a batch failed. */
interface WireBatch {
  counts?: { total: number; done: number; failed: number };
  error?: string;
}

/**
 * Gemini's Batch API with inlined requests (`batches.create` on the Gemini API, not Vertex): each request
 * built as `createGoogleProvider` sends it and keyed by its custom id in `metadata.key`; replies read back
 * from the batch's inlined responses and parsed as the ordinary client parses one. Never throws.
 *
 * Gemini names the requests of a batch only in its answers: requests an expired or cancelled batch did not
 * run are absent from `collect`'s outcomes (the caller, who knows what it submitted, counts them as such).
 */
export function createGoogleBatch(
  model: ModelRecord,
  opts: ProviderOptions,
  spec: ProviderIdentity,
): BatchApi {
  const seen = new Map<string, WireBatch>();
  const { ai, source, timeoutMs } = connectGoogle(opts, spec, readingBatches(opts.fetch ?? fetch, seen));
  const attempt = async <T>(
    signal: AbortSignal | undefined,
    run: () => Promise<T>,
  ): Promise<BatchResult<T>> => {
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      return {
        ok: false,
        error: classifyGoogleError(error, source, { signal, streaming: false, timeoutMs }),
      };
    }
  };
  const get = (name: string, signal?: AbortSignal) =>
    ai.batches.get({ name, config: signal ? { abortSignal: signal } : {} });

  return {
    limits: GEMINI_BATCH_LIMITS,
    async submit(requests, signal) {
      const inlined: InlinedRequest[] = [];
      for (const r of requests) {
        const wire = geminiRequestFor(model, r.request);
        if (!wire.ok) return { ok: false, error: badRequest(`request ${r.customId}: ${wire.message}`) };
        inlined.push({ contents: wire.contents, config: wire.config, metadata: { key: r.customId } });
      }
      const size = { count: inlined.length, bytes: Buffer.byteLength(JSON.stringify(inlined)) };
      const refused = batchTooLarge(source.label, GEMINI_BATCH_LIMITS, size, 'its inlined requests');
      if (refused) return { ok: false, error: refused };
      return attempt(signal, async () => {
        const job = await ai.batches.create({
          model: wireModelName(model),
          src: inlined,
          config: { displayName: 'hyperagents evaluation', ...(signal ? { abortSignal: signal } : {}) },
        });
        if (!job.name) throw new Error('Gemini answered the batch without its name');
        return { batchId: job.name };
      });
    },
    poll: (batchId, signal) =>
      attempt(signal, async () => statusOf(await get(batchId, signal), seen.get(batchId))),
    async collect(batchId, signal) {
      const got = await attempt(signal, () => get(batchId, signal));
      if (!got.ok) return got;
      const job = got.value;
      const state = job.state ?? 'JOB_STATE_UNSPECIFIED';
      if (!ENDED.has(state))
        return {
          ok: false,
          error: {
            ...badRequest(
              `${source.label}'s batch ${batchId} is still ${state}: collect it once a poll says it has ended.`,
            ),
            retryable: true,
          },
        };
      if (state === 'JOB_STATE_FAILED') {
        const why = seen.get(batchId)?.error ?? 'it gave no reason';
        return {
          ok: false,
          error: badRequest(
            `${source.label} failed the batch ${batchId} and answered none of its requests: ${why}.`,
          ),
        };
      }
      return { ok: true, value: (job.dest?.inlinedResponses ?? []).flatMap((r) => outcomeOf(r, source)) };
    },
    cancel: (batchId, signal) =>
      attempt(signal, () =>
        ai.batches.cancel({ name: batchId, config: signal ? { abortSignal: signal } : {} }),
      ),
  };
}

/** Pending until the job reaches one of Gemini's final states; counts as the API reported them, if it did. */
export function statusOf(job: Pick<BatchJob, 'state'>, wire: WireBatch = {}): BatchStatus {
  const state = job.state ?? 'JOB_STATE_UNSPECIFIED';
  const counts = wire.counts ?? { total: 0, done: 0, failed: 0 };
  return { state: ENDED.has(state) ? 'ended' : 'pending', providerState: state, ...counts };
}

function outcomeOf(r: InlinedResponse, source: ErrorSource): BatchOutcome[] {
  const customId = r.metadata?.key;
  if (customId === undefined) return [];
  if (r.response) {
    const result = responseResult(r.response as GenerateContentResponse, source.label);
    return [
      result.ok
        ? { customId, ok: true, response: result.response }
        : { customId, ok: false, reason: 'errored', error: result.error },
    ];
  }
  const code = typeof r.error?.code === 'number' ? r.error.code : 2;
  const error = classifyStatus(HTTP_STATUS[code] ?? 500, r.error?.message ?? 'no message', source);
  return [{ customId, ok: false, reason: 'errored', error }];
}

/** google.rpc.Code (an inlined error's `code`) to the HTTP status the API answers it with. */
const HTTP_STATUS: Readonly<Record<number, number>> = {
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  7: 403,
  8: 429,
  9: 400,
  11: 400,
  13: 500,
  14: 503,
  16: 401,
};

/**
 * A fetch that reads, from every answer about a batch, the counts (`batchStats`, int64s sent as strings)
 * and a failed batch's `error`, which the SDK's `BatchJob` of the Gemini API does not carry.
 */
function readingBatches(inner: typeof fetch, seen: Map<string, WireBatch>): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!response.ok || !/\/batches\/[^/:?]+(\?|$)|:batchGenerateContent/.test(url)) return response;
    try {
      const body: unknown = await response.clone().json();
      if (isRecord(body) && typeof body.name === 'string') seen.set(body.name, wireBatch(body));
    } catch {
      // Not JSON: the SDK reports it.
    }
    return response;
  };
}

function wireBatch(operation: Record<string, unknown>): WireBatch {
  const meta = isRecord(operation.metadata) ? operation.metadata : {};
  const stats = isRecord(meta.batchStats) ? meta.batchStats : undefined;
  const n = (v: unknown) => (Number.isFinite(Number(v)) ? Number(v) : 0);
  const error =
    isRecord(operation.error) && typeof operation.error.message === 'string'
      ? operation.error.message
      : undefined;
  return {
    ...(stats
      ? {
          counts: {
            total: n(stats.requestCount),
            done: n(stats.successfulRequestCount),
            failed: n(stats.failedRequestCount),
          },
        }
      : {}),
    ...(error === undefined ? {} : { error }),
  };
}
