import { toFile } from 'openai';
import type { Batch } from 'openai/resources/batches';
import type { BatchApi, BatchOutcome, BatchResult, BatchStatus } from '../batch-api.ts';
import { classifyStatus } from '../errors.ts';
import type { ModelRecord } from '../model-record.ts';
import type { ProviderError } from '../provider.ts';
import { batchTooLarge } from './batch-size.ts';
import { isRecord, tryJson } from './json.ts';
import { classify, connectOpenAI, replyResult, type Source } from './openai.ts';
import { chatCompletionBody, readCompletion } from './openai-wire.ts';
import type { ProviderOptions } from './options.ts';
import type { ProviderIdentity } from './provider-spec.ts';

/** OpenAI's limits on one batch's input file: 50,000 requests, 200 MB. */
export const OPENAI_BATCH_LIMITS = { maxRequests: 50_000, maxBytes: 200 * 1024 * 1024 } as const;

const ENDPOINT = '/v1/chat/completions';
const PENDING = new Set(['validating', 'in_progress', 'finalizing', 'cancelling']);

/**
 * OpenAI's Batch API over Chat Completions: the requests as a JSONL file uploaded with purpose `batch`
 * (each body built exactly as `createOpenAIProvider` sends it), one batch over it with a 24 h window, its
 * output and error files read back and parsed as the ordinary client parses a reply. Never throws.
 */
export function createOpenAIBatch(
  model: ModelRecord,
  opts: ProviderOptions,
  spec: ProviderIdentity,
): BatchApi {
  const connection = connectOpenAI(model, opts, spec);
  if (!connection.ok) {
    const refuse = async () => ({ ok: false, error: connection.error }) as const;
    return { submit: refuse, poll: refuse, collect: refuse, cancel: refuse, limits: OPENAI_BATCH_LIMITS };
  }
  const { client, source } = connection;
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
  const fileText = async (id: string, signal?: AbortSignal) =>
    (await client.files.content(id, { signal })).text();

  return {
    limits: OPENAI_BATCH_LIMITS,
    async submit(requests, signal) {
      const lines = requests.map((r) =>
        JSON.stringify({
          custom_id: r.customId,
          method: 'POST',
          url: ENDPOINT,
          body: chatCompletionBody(model, r.request).body,
        }),
      );
      const text = `${lines.join('\n')}\n`;
      const size = { count: requests.length, bytes: Buffer.byteLength(text) };
      const refused = batchTooLarge(source.label, OPENAI_BATCH_LIMITS, size, 'its file');
      if (refused) return { ok: false, error: refused };
      return attempt(signal, async () => {
        const file = await client.files.create(
          {
            file: await toFile(Buffer.from(text), 'requests.jsonl', { type: 'application/jsonl' }),
            purpose: 'batch',
          },
          { signal },
        );
        const batch = await client.batches.create(
          { input_file_id: file.id, endpoint: ENDPOINT, completion_window: '24h' },
          { signal },
        );
        return { batchId: batch.id };
      });
    },
    poll: (batchId, signal) =>
      attempt(signal, async () => statusOf(await client.batches.retrieve(batchId, { signal }))),
    async collect(batchId, signal) {
      const got = await attempt(signal, () => client.batches.retrieve(batchId, { signal }));
      if (!got.ok) return got;
      const batch = got.value;
      if (batch.status === 'failed') return { ok: false, error: refusal(batch, source) };
      if (PENDING.has(batch.status)) return { ok: false, error: pendingError(batch, source) };
      return attempt(signal, async () => {
        const outcomes = new Map<string, BatchOutcome>();
        for (const id of [batch.output_file_id, batch.error_file_id])
          if (id) for (const line of jsonLines(await fileText(id, signal))) addLine(outcomes, line, source);
        // Requests in no file: the input file names them (an expired or cancelled batch may leave them out).
        const total = batch.request_counts?.total ?? 0;
        if (batch.status !== 'completed' || outcomes.size < total)
          for (const line of jsonLines(await fileText(batch.input_file_id, signal)))
            addMissing(outcomes, line, batch.status, source);
        return [...outcomes.values()];
      });
    },
    cancel: (batchId, signal) =>
      attempt(signal, async () => {
        await client.batches.cancel(batchId, { signal });
      }),
  };
}

/** `validating`, `in_progress`, `finalizing` and `cancelling` are pending; every other status has ended. */
export function statusOf(batch: Pick<Batch, 'status' | 'request_counts'>): BatchStatus {
  const counts = batch.request_counts;
  return {
    state: PENDING.has(batch.status) ? 'pending' : 'ended',
    providerState: batch.status,
    done: counts?.completed ?? 0,
    failed: counts?.failed ?? 0,
    total: counts?.total ?? 0,
  };
}

/** A batch that failed validation: OpenAI ran none of its requests; its `errors` say which lines and why. */
function refusal(batch: Batch, source: Source): ProviderError {
  const errors = (batch.errors?.data ?? []).slice(0, 5).map((e) => {
    const where = typeof e.line === 'number' ? `line ${e.line}: ` : '';
    return `${where}${e.message ?? 'no message'}${e.code ? ` (${e.code})` : ''}`;
  });
  const detail = errors.length > 0 ? errors.join('; ') : 'it gave no reason';
  return {
    type: 'bad_request',
    retryable: false,
    message: `${source.label} refused the batch ${batch.id} and ran none of its requests: ${detail}.`,
  };
}

function pendingError(batch: Batch, source: Source): ProviderError {
  return {
    type: 'bad_request',
    retryable: true,
    message: `${source.label}'s batch ${batch.id} is still ${batch.status}: collect it once a poll says it has ended.`,
  };
}

function jsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => tryJson(line));
}

/** One line of the output or error file: `{custom_id, response: {status_code, body} | null, error}`. */
function addLine(outcomes: Map<string, BatchOutcome>, line: unknown, source: Source): void {
  if (!isRecord(line) || typeof line.custom_id !== 'string') return;
  const customId = line.custom_id;
  const response = isRecord(line.response) ? line.response : undefined;
  const error = isRecord(line.error) ? line.error : undefined;
  if (response && response.status_code === 200) {
    outcomes.set(customId, answered(customId, response.body, source));
    return;
  }
  if (response && typeof response.status_code === 'number') {
    const body = isRecord(response.body) ? response.body.error : undefined;
    const detail = isRecord(body) && typeof body.message === 'string' ? body.message : JSON.stringify(body);
    const failure = classifyStatus(response.status_code, detail, source);
    outcomes.set(customId, { customId, ok: false, reason: 'errored', error: failure });
    return;
  }
  const code = typeof error?.code === 'string' ? error.code : '';
  const reason = code === 'batch_expired' ? 'expired' : code === 'batch_cancelled' ? 'canceled' : 'errored';
  const text = typeof error?.message === 'string' ? error.message : 'no message';
  outcomes.set(customId, unanswered(customId, reason, `${text}${code ? ` (${code})` : ''}`, source));
}

function answered(customId: string, body: unknown, source: Source): BatchOutcome {
  let result: ReturnType<typeof replyResult>;
  try {
    result = replyResult(readCompletion(body, source.label), [], source);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    result = {
      ok: false,
      error: {
        type: 'provider_error',
        retryable: true,
        message: `${source.label} sent a malformed reply: ${text}`,
      },
    };
  }
  return result.ok
    ? { customId, ok: true, response: result.response }
    : { customId, ok: false, reason: 'errored', error: result.error };
}

/** A request of the input file that no output or error line answers: expired or cancelled with its batch. */
function addMissing(
  outcomes: Map<string, BatchOutcome>,
  line: unknown,
  status: Batch['status'],
  source: Source,
): void {
  if (!isRecord(line) || typeof line.custom_id !== 'string' || outcomes.has(line.custom_id)) return;
  const reason = status === 'expired' ? 'expired' : status === 'cancelled' ? 'canceled' : 'errored';
  outcomes.set(
    line.custom_id,
    unanswered(line.custom_id, reason, `the batch ended ${status} without it`, source),
  );
}

function unanswered(
  customId: string,
  reason: 'errored' | 'expired' | 'canceled',
  detail: string,
  source: Source,
): BatchOutcome {
  const what =
    reason === 'expired'
      ? 'did not run it within the batch window'
      : reason === 'canceled'
        ? 'did not run it: the batch was cancelled'
        : 'could not run it';
  return {
    customId,
    ok: false,
    reason,
    error: {
      type: reason === 'expired' ? 'timeout' : 'provider_error',
      retryable: true,
      message: `${source.label} ${what} (${detail}).`,
    },
  };
}
