import { createBatchBook, type FakeBatch, type FakeBatchBook, type FakeBatchKnobs } from './fake-batch.ts';
import { type FakeServer, type FakeStep, type RecordedRequest, startFakeServer } from './fake-server.ts';

/**
 * A fake Gemini API server on loopback that speaks its Batch API's wire format (from the Gemini API
 * reference) for inlined requests: `POST /v1beta/models/{model}:batchGenerateContent`, `GET
 * /v1beta/batches/{id}` (an Operation whose `metadata` is the batch: state, `batchStats`, and once done its
 * `output.inlinedResponses`), `POST /v1beta/batches/{id}:cancel`; and `POST .../{model}:generateContent`,
 * answered by the same `respond` as each batch request. Knobs: see `FakeBatchKnobs` (`fake-batch.ts`);
 * `failValidation` answers the create call with 400. Requests an expired or cancelled batch did not run
 * are absent from its output, as Gemini names requests only in its answers.
 */
export interface FakeGoogleBatchServer extends FakeServer {
  batches: FakeBatchBook['log'];
  /** Changes knobs from now on (e.g. `{endAfterPolls: 1}` to end a batch held pending). */
  set(knobs: Partial<FakeBatchKnobs>): void;
}

const TIME = '2026-11-30T12:00:00.000000Z';
const BATCH_TYPE = 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch';
const OUTPUT_TYPE = 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput';
/** HTTP status to the google.rpc.Code an inlined error carries. */
const RPC_CODE: Readonly<Record<number, number>> = {
  400: 3,
  401: 16,
  403: 7,
  404: 5,
  429: 8,
  500: 13,
  503: 14,
  504: 4,
};

export async function startFakeGoogleBatchServer(knobs: FakeBatchKnobs): Promise<FakeGoogleBatchServer> {
  const book = createBatchBook(knobs);
  const models = new Map<string, string>();
  const route = (req: RecordedRequest): FakeStep => {
    const path = req.path.replace(/\?.*$/, '');
    const model = path.match(/^\/v1beta\/models\/([^/:]+):(generateContent|batchGenerateContent)$/);
    if (req.method === 'POST' && model?.[2] === 'generateContent') return book.knobs.respond(req.body);
    if (req.method === 'POST' && model?.[2] === 'batchGenerateContent')
      return create(req.body, model[1] ?? '', book, models);
    const one = path.match(/^\/v1beta\/batches\/([^/:]+)(:cancel)?$/);
    const batch = one ? book.find(`batches/${one[1]}`) : undefined;
    if (!one || !batch)
      return json(errorBody404(`fake Gemini server: nothing at ${req.method} ${path}`), 404);
    if (req.method === 'POST' && one[2]) {
      book.cancel(batch);
      return json({});
    }
    if (req.method === 'GET' && !one[2])
      return json(operation(book.poll(batch), book, models.get(batch.id) ?? ''));
    return json(errorBody404(`fake Gemini server: nothing at ${req.method} ${path}`), 404);
  };
  const server = await startFakeServer({ fallback: route });
  return { ...server, batches: book.log, set: book.set };
}

function json(body: unknown, status = 200): FakeStep {
  return { kind: 'json', status, body };
}

function errorBody404(message: string) {
  return { error: { code: 404, message, status: 'NOT_FOUND' } };
}

function invalid(message: string): FakeStep {
  return json({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }, 400);
}

function create(body: unknown, model: string, book: FakeBatchBook, models: Map<string, string>): FakeStep {
  const batch = isObject(body) && isObject(body.batch) ? body.batch : {};
  const input =
    isObject(batch.inputConfig) && isObject(batch.inputConfig.requests) ? batch.inputConfig.requests : {};
  const requests = Array.isArray(input.requests) ? input.requests : [];
  if (typeof batch.displayName !== 'string' || batch.displayName === '')
    return invalid('* batch.display_name: required');
  if (requests.length === 0) return invalid('* batch.input_config: the batch holds no requests');
  const bad = requests.findIndex(
    (r) => !isObject(r) || !isObject(r.request) || !Array.isArray(r.request.contents),
  );
  if (bad >= 0) return invalid(`* batch.input_config.requests.requests[${bad}].request.contents: required`);
  if (book.knobs.failValidation)
    return invalid(
      `* batch.input_config.requests.requests[0].request.generation_config.max_output_tokens: must be positive`,
    );
  const id = `batches/fake${String(book.log.batches.length + 1).padStart(4, '0')}`;
  const made = book.create(
    id,
    requests.map((r, i) => {
      const key = isObject(r) && isObject(r.metadata) ? r.metadata.key : undefined;
      return { customId: typeof key === 'string' ? key : `#${i}`, body: (r as { request: unknown }).request };
    }),
  );
  models.set(id, `models/${model}`);
  return json(operation(made, book, `models/${model}`));
}

/** The batch as the API shows it: a long-running Operation whose metadata is the batch. */
function operation(batch: FakeBatch, book: FakeBatchBook, model: string) {
  const outcomes = batch.outcomes;
  const answered = (outcomes ?? []).filter((o) => o.kind === 'succeeded' || o.kind === 'errored');
  const failed = answered.filter((o) => o.kind === 'errored').length;
  const done = outcomes ? answered.length - failed : book.progress(batch);
  const total = batch.requests.length;
  const output = outcomes ? { inlinedResponses: { inlinedResponses: answered.map(inlined) } } : undefined;
  const state = outcomes
    ? {
        completed: 'BATCH_STATE_SUCCEEDED',
        expired: 'BATCH_STATE_EXPIRED',
        cancelled: 'BATCH_STATE_CANCELLED',
        failed: 'BATCH_STATE_FAILED',
      }[batch.ending ?? 'completed']
    : batch.polls <= 1 && !batch.cancelled
      ? 'BATCH_STATE_PENDING'
      : 'BATCH_STATE_RUNNING';
  return {
    name: batch.id,
    metadata: {
      '@type': BATCH_TYPE,
      model,
      displayName: 'hyperagents evaluation',
      createTime: TIME,
      updateTime: TIME,
      ...(outcomes ? { endTime: TIME } : {}),
      batchStats: {
        requestCount: String(total),
        successfulRequestCount: String(done),
        ...(failed > 0 ? { failedRequestCount: String(failed) } : {}),
        pendingRequestCount: String(outcomes ? 0 : total - done),
      },
      state,
      name: batch.id,
      ...(output ? { output } : {}),
    },
    ...(outcomes ? { done: true, response: { '@type': OUTPUT_TYPE, ...output } } : {}),
  };
}

function inlined(o: NonNullable<FakeBatch['outcomes']>[number]) {
  const metadata = { key: o.customId };
  if (o.kind === 'succeeded') return { response: o.body, metadata };
  const status = o.kind === 'errored' ? o.status : 500;
  const body = o.kind === 'errored' && isObject(o.body) && isObject(o.body.error) ? o.body.error : undefined;
  const message = typeof body?.message === 'string' ? body.message : 'Internal error encountered.';
  return { error: { code: RPC_CODE[status] ?? 2, message }, metadata };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
