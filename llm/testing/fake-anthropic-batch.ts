import { errorBody } from './fake-anthropic.ts';
import { createBatchBook, type FakeBatch, type FakeBatchBook, type FakeBatchKnobs } from './fake-batch.ts';
import { type FakeServer, type FakeStep, type RecordedRequest, startFakeServer } from './fake-server.ts';

/**
 * A fake Anthropic server on loopback that speaks Message Batches' wire format (from Anthropic's API
 * reference): `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`, `GET .../results` (the batch's
 * `results_url`, JSON Lines), `POST .../cancel`; and `POST /v1/messages`, answered by the same `respond` as
 * each batch request (an ordinary call's body has `stream: true` unless the client turned streaming off:
 * answer it with a streamed step). Knobs: see `FakeBatchKnobs` (`fake-batch.ts`). Steps queued with
 * `enqueue` answer the next request whatever its path.
 */
export interface FakeAnthropicBatchServer extends FakeServer {
  batches: FakeBatchBook['log'];
  /** Changes knobs from now on (e.g. `{endAfterPolls: 1}` to end a batch held pending). */
  set(knobs: Partial<FakeBatchKnobs>): void;
}

const CREATED = '2026-11-30T12:00:00.000Z';
const EXPIRES = '2026-12-01T12:00:00.000Z';

export async function startFakeAnthropicBatchServer(
  knobs: FakeBatchKnobs,
): Promise<FakeAnthropicBatchServer> {
  const book = createBatchBook(knobs);
  let base = '';
  const route = (req: RecordedRequest): FakeStep => {
    const path = req.path.replace(/\?.*$/, '');
    if (req.method === 'POST' && path === '/v1/messages') return book.knobs.respond(req.body);
    if (req.method === 'POST' && path === '/v1/messages/batches') return create(req.body, book, base);
    const one = path.match(/^\/v1\/messages\/batches\/([^/]+)(\/cancel|\/results)?$/);
    if (!one) return notFound(`fake Anthropic server: no route for ${req.method} ${path}`);
    const batch = book.find(one[1] ?? '');
    if (!batch) return notFound(`message batch ${one[1]} not found`);
    if (req.method === 'POST' && one[2] === '/cancel') {
      book.cancel(batch);
      return json(batchObject(batch, book, base));
    }
    if (req.method === 'GET' && one[2] === '/results') {
      if (!batch.outcomes)
        return notFound(`message batch ${batch.id} has not ended: its results are not ready`);
      book.log.resultReads += 1;
      const lines = batch.outcomes.map((o) => JSON.stringify(resultLine(o)));
      return {
        kind: 'raw',
        status: 200,
        body: `${lines.join('\n')}\n`,
        headers: { 'content-type': 'application/binary' },
      };
    }
    if (req.method === 'GET' && one[2] === undefined) {
      book.poll(batch);
      return json(batchObject(batch, book, base));
    }
    return notFound(`fake Anthropic server: no route for ${req.method} ${path}`);
  };
  const server = await startFakeServer({ fallback: route });
  base = server.url;
  return { ...server, batches: book.log, set: book.set };
}

function json(body: unknown, status = 200): FakeStep {
  return { kind: 'json', status, body };
}

const notFound = (message: string) => json(errorBody('not_found_error', message), 404);
const invalid = (message: string) => json(errorBody('invalid_request_error', message), 400);

/** Checks the body as the API does (each request a custom id and params with model, max_tokens, messages). */
function create(body: unknown, book: FakeBatchBook, base: string): FakeStep {
  const requests = (body as { requests?: unknown })?.requests;
  if (!Array.isArray(requests) || requests.length === 0)
    return invalid('requests: List should have at least 1 item after validation, not 0');
  const ids = new Set<string>();
  for (const [i, r] of requests.entries()) {
    const { custom_id: id, params } = (r ?? {}) as { custom_id?: unknown; params?: Record<string, unknown> };
    if (typeof id !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(id))
      return invalid(`requests.${i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
    if (ids.has(id))
      return invalid(
        `requests.${i}.custom_id: Duplicate custom_id "${id}"; custom_id must be unique within a batch`,
      );
    ids.add(id);
    for (const field of ['model', 'max_tokens', 'messages'])
      if (params?.[field] === undefined) return invalid(`requests.${i}.params.${field}: Field required`);
    if (params?.stream === true)
      return invalid(`requests.${i}.params.stream: streaming is not supported in batches`);
  }
  if (book.knobs.failValidation)
    return invalid('requests.0.params.max_tokens: Input should be greater than or equal to 1');
  const id = `msgbatch_01Fake${String(book.log.batches.length + 1).padStart(4, '0')}`;
  const batch = book.create(
    id,
    requests.map((r) => ({
      customId: (r as { custom_id: string }).custom_id,
      body: (r as { params: unknown }).params,
    })),
  );
  return json(batchObject(batch, book, base));
}

function batchObject(batch: FakeBatch, book: FakeBatchBook, base: string) {
  const ended = batch.outcomes !== undefined;
  const count = (kind: string) => (batch.outcomes ?? []).filter((o) => o.kind === kind).length;
  const done = ended ? count('succeeded') : book.progress(batch);
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : batch.cancelled ? 'canceling' : 'in_progress',
    request_counts: {
      processing: ended ? 0 : batch.requests.length - done,
      succeeded: done,
      errored: count('errored'),
      canceled: count('canceled'),
      expired: count('expired'),
    },
    ended_at: ended ? EXPIRES : null,
    created_at: CREATED,
    expires_at: EXPIRES,
    archived_at: null,
    cancel_initiated_at: batch.cancelled ? CREATED : null,
    results_url: ended ? `${base}/v1/messages/batches/${batch.id}/results` : null,
  };
}

function resultLine(o: NonNullable<FakeBatch['outcomes']>[number]) {
  switch (o.kind) {
    case 'succeeded':
      return { custom_id: o.customId, result: { type: 'succeeded', message: o.body } };
    case 'errored':
      return {
        custom_id: o.customId,
        result: { type: 'errored', error: o.body ?? errorBody('api_error', 'Internal server error') },
      };
    case 'expired':
    case 'canceled':
      return { custom_id: o.customId, result: { type: o.kind } };
  }
}
